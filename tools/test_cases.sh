# Test cases of a shell test, written as JUnit XML ($XML_OUTPUT_FILE) so the
# test command counts each one (tools/count_tests.py): passed, failed, or
# skipped with its reason. Source it, then:
#   case_ok NAME | case_fail NAME MESSAGE | case_skip NAME REASON
#   write_cases_xml SUITE    (once, at exit; returns 1 when a case failed)
_cases=()
case_ok() { _cases+=("$1|ok|"); echo "ok      $1"; }
case_fail() { _cases+=("$1|fail|${2:-}"); echo "FAIL    $1: ${2:-}"; }
case_skip() { _cases+=("$1|skip|${2:-}"); echo "skipped $1: ${2:-}"; }
_xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' | tr -d '\000-\010\013\014\016-\037'; }
write_cases_xml() {
  local suite=$1 n=${#_cases[@]} failures=0 skipped=0 c name st msg
  for c in "${_cases[@]}"; do
    st=$(cut -d'|' -f2 <<<"$c")
    [[ $st == fail ]] && failures=$((failures + 1))
    [[ $st == skip ]] && skipped=$((skipped + 1))
  done
  if [[ -n "${XML_OUTPUT_FILE:-}" ]]; then
    {
      echo '<?xml version="1.0" encoding="UTF-8"?>'
      echo "<testsuites tests=\"$n\" failures=\"$failures\" errors=\"0\">"
      echo "<testsuite name=\"$suite\" tests=\"$n\" failures=\"$failures\" skipped=\"$skipped\" errors=\"0\">"
      for c in "${_cases[@]}"; do
        IFS='|' read -r name st msg <<<"$c"
        msg=$(_xml_escape <<<"$msg")
        name=$(_xml_escape <<<"$name")
        case $st in
          ok) echo "<testcase classname=\"$suite\" name=\"$name\" status=\"run\"/>" ;;
          skip) echo "<testcase classname=\"$suite\" name=\"$name\" status=\"notrun\"><skipped message=\"$msg\"/></testcase>" ;;
          *) echo "<testcase classname=\"$suite\" name=\"$name\" status=\"run\"><failure message=\"$msg\"/></testcase>" ;;
        esac
      done
      echo "</testsuite>"
      echo "</testsuites>"
    } >"$XML_OUTPUT_FILE"
  fi
  echo "$n cases: $((n - failures - skipped)) passed, $failures failed, $skipped skipped"
  [[ $failures -eq 0 ]]
}
