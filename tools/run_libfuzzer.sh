#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and sanitizers (in a separate
# Bazel output base, so the gcc build stays cached) and runs each for a
# bounded number of inputs from a corpus seeded with corpus/. Writes one
# JUnit XML per target into $1 so that the test summary counts them.
#   tools/run_libfuzzer.sh OUT_DIR [RUNS]
#   tools/run_libfuzzer.sh --build-only   only the clang build (run_tests.sh
#                                         starts it beside `bazel test`)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# package/name: the parser, the differential check, the command line (tools/fuzz_cli.cc).
targets=(fuzz/fuzz_parser fuzz/fuzz_differential tools/fuzz_cli)
base="$HOME/.cache/bazel-libfuzzer"
labels=()
for t in "${targets[@]}"; do labels+=("//${t%/*}:${t#*/}"); done
if [[ "${1:-}" == --build-only ]]; then
  exec bazel --output_base="$base" build --noshow_progress --config=libfuzzer "${labels[@]}"
fi
out=${1:?usage: run_libfuzzer.sh OUT_DIR [RUNS]}
runs=${2:-2000}
mkdir -p "$out"
junit() {  # name, failed(0/1), message
  local msg
  msg=$(printf '%s' "$3" | tail -c 4000 | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g')
  if [[ "$2" == 0 ]]; then
    printf '<testsuites><testsuite name="libfuzzer"><testcase classname="libfuzzer" name="%s"/></testsuite></testsuites>\n' "$1"
  else
    printf '<testsuites><testsuite name="libfuzzer"><testcase classname="libfuzzer" name="%s"><failure message="%s"/></testcase></testsuite></testsuites>\n' "$1" "$msg"
  fi > "$out/$1.xml"
}
if ! log=$(bazel --output_base="$base" build --noshow_progress --config=libfuzzer "${labels[@]}" 2>&1); then
  for t in "${targets[@]}"; do junit "${t#*/}" 1 "build failed: $log"; done
  echo "$log" | tail -20
  exit 1
fi
bin=$(bazel --output_base="$base" info --config=libfuzzer bazel-bin 2>/dev/null)
status=0
for t in "${targets[@]}"; do
  corpus=$(mktemp -d)
  find corpus -name '*.af' -exec cp {} "$corpus/" \;
  # Hostile inputs (invalid UTF-8 in names and expressions, NUL bytes, ...) as seeds too.
  find corpus/hostile -name '*.bad' -size -64k -exec cp {} "$corpus/" \;
  # .af files are valid inputs of both targets (generate/bytes.h: text or decoder bytes).
  # .af files are also inputs of fuzz_cli (a program and no arguments: `run`).
  if log=$("$bin/$t" -runs="$runs" -seed=1 -rss_limit_mb=4096 "$corpus" 2>&1); then
    junit "${t#*/}" 0 ""
    echo "libfuzzer ${t#*/}: $runs runs, no crash, no sanitizer report"
  else
    junit "${t#*/}" 1 "$log"
    echo "libfuzzer ${t#*/} FAILED:"
    echo "$log" | tail -30
    status=1
  fi
  rm -rf "$corpus"
done
exit $status
