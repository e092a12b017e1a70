#!/usr/bin/env bash
# The command-line contract of `aliasfuzz fuzz`: every bad option is exit 2
# before any work; one writer per campaign folder (a real second process is
# refused while the first holds the lock, and accepted after); exit 1 with
# --fail-on any when something was found, 0 for under-study findings only;
# --resume without --seed takes the campaign's seed; compare --out that
# cannot be written is exit 2; the summary, findings.jsonl, `minimize
# findings/BUCKET` and repro.py's exit status.
set -uo pipefail
A=tools/aliasfuzz
T=${TEST_TMPDIR:-$(mktemp -d)}
fail=0
check() {  # check NAME EXPECTED_STATUS CMD...
  local name=$1 want=$2; shift 2
  "$@" > "$T/out" 2> "$T/err"
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL $name: exit $got, wanted $want"; cat "$T/out" "$T/err"; fail=1
  else
    echo "ok   $name"
  fi
}
for bad in "--strategy bogus" "--inject bogus" "--time -1" "--time 0" "--seed -1" "--seed 12x" "--case-timeout 0" \
           "--jobs 0" "--shard 3/2" "--shard x" "--fail-on maybe" "--size 0" "--target tpu" "--programs -5" \
           "--minimize-budget 0.95" "--minimize-budget -1" "--minimize-budget x" "--recall"; do
  # shellcheck disable=SC2086
  check "rejects $bad" 2 $A fuzz $bad --out "$T/bad" --quiet
done
[[ ! -e "$T/bad/state.json" ]] || { echo "FAIL a rejected campaign wrote state"; fail=1; }
# --recall calls a compiled function again: only the compilers under study have one.
printf 'aliasfuzz 1\nstorage s0 f32[2] = full(0.0)\nstorage s1 f32[2] = full(0.0)\ninput x0 = s0\ninput x1 = s1\nadd_(x0, 1.0)\nreturn x1\n' > "$T/two.af"
check "run --recall of our own strategies" 2 $A run "$T/two.af" --recall
grep -q "external" "$T/err" || { echo "FAIL run --recall does not say why"; cat "$T/err"; fail=1; }
check "run --recall --dump-passes prints the layout" 0 $A run "$T/two.af" --recall --dump-passes \
  --strategy py:oracles.testdata.toy_compiler:as_is@/usr/bin/python3
grep -q "after recall_layout (together)" "$T/out" && grep -q "input x1 = s0" "$T/out" ||
  { echo "FAIL no recall layout printed"; cat "$T/out"; fail=1; }
# A second call that diverges is a recall bug (exit 1) only when a fresh
# compile of the recall layout agrees; else run says it is the layout's own.
check "run --recall: a compiler caching across layouts" 1 $A run "$T/two.af" --recall \
  --strategy py:oracles.testdata.toy_compiler:caches_alias_layout@/usr/bin/python3
grep -q "DISAGREES.*(on the second call, inputs moved together)" "$T/out" ||
  { echo "FAIL the recall divergence is not named"; cat "$T/out"; fail=1; }
printf 'aliasfuzz 1\nstorage s0 f32[2] = full(1.0)\nstorage s1 f32[2] = full(2.0)\ninput x0 = s0\ninput x1 = s1\nadd_(x0, x1)\nreturn x0\n' > "$T/own.af"
check "run --recall: the layout's own first-call bug" 0 $A run "$T/own.af" --recall \
  --strategy py:oracles.testdata.toy_compiler:two_defects@/usr/bin/python3
grep -q "agrees (the second call, inputs moved together, diverged, and so does a fresh compile" "$T/out" ||
  { echo "FAIL the layout's own bug is not told apart"; cat "$T/out"; fail=1; }

check "under-study findings only: exit 0" 0 $A fuzz --inject fn-per-input-base --programs 200 --seed 2 --out "$T/m0" --quiet --minimize-time 0
grep -q "findings in [1-9]" "$T/out" || { echo "FAIL expected findings"; cat "$T/out"; fail=1; }
grep -q "expected to diverge (under study, mutants): functionalize+fn-per-input-base" "$T/out" ||
  { echo "FAIL the summary does not say what is expected to diverge"; cat "$T/out"; fail=1; }
grep -q "report: $T/m0/report.html" "$T/out" || { echo "FAIL the summary does not name the report"; cat "$T/out"; fail=1; }
# findings.jsonl: one line per bucket.
buckets=$(ls "$T/m0/findings" | wc -l)
[[ $(wc -l < "$T/m0/findings.jsonl") -eq $buckets ]] || { echo "FAIL findings.jsonl is not one line per bucket"; fail=1; }
# `minimize findings/BUCKET` takes the spec from settings.json and writes into the folder;
# its repro.py re-runs the strategy through aliasfuzz and exits 1 on the divergence.
b="$T/m0/findings/$(ls "$T/m0/findings" | head -1)"
check "minimize a bucket folder" 0 $A minimize "$b" --time 10
[[ -f "$b/min.af" && -f "$b/repro.py" ]] || { echo "FAIL no min.af/repro.py in $b"; fail=1; }
check "repro.py exits 1 on the divergence" 1 env AF_BIN="$PWD/$A" /usr/bin/python3 "$b/repro.py"
grep -q "just now" "$T/out" || { echo "FAIL repro.py did not re-run aliasfuzz"; cat "$T/out"; fail=1; }
check "minimize a folder without settings" 2 $A minimize "$T/m0"
# report --issues: one issue.md per bug, its script run once (and reproducing).
check "small campaign for issues" 0 $A fuzz --inject fn-per-input-base --programs 12 --seed 2 --out "$T/is" --quiet
check "report --issues" 0 env AF_BIN="$PWD/$A" $A report "$T/is" --issues
n=$(ls "$T/is/issues"/*.md 2>/dev/null | wc -l)
[[ $n -ge 1 ]] || { echo "FAIL no issue.md written"; cat "$T/out"; fail=1; }
[[ $(grep -c "(reproduces)" "$T/out") -eq $n ]] || { echo "FAIL an issue does not reproduce"; cat "$T/out"; fail=1; }
grep -q '^```python' "$T/is/issues/"*.md || { echo "FAIL issue.md has no script"; fail=1; }
check "--fail-on any: exit 1" 1 $A fuzz --inject fn-per-input-base --programs 200 --seed 2 --out "$T/m1" --quiet --minimize-time 0 --fail-on any

# The lock, with two real processes.
$A fuzz --time 6 --seed 9 --out "$T/lk" --quiet --minimize-time 0 > /dev/null 2>&1 &
first=$!
for _ in $(seq 50); do [[ -s "$T/lk/campaign.lock" ]] && break; sleep 0.1; done
check "second writer refused" 2 $A fuzz --time 1 --out "$T/lk" --quiet
grep -q "in use by pid $first" "$T/err" || { echo "FAIL holder not named"; cat "$T/err"; fail=1; }
check "merge waits for a running shard" 2 $A merge "$T/lk" --out "$T/mg"
grep -q "in use by pid $first" "$T/err" || { echo "FAIL merge did not name the writer"; cat "$T/err"; fail=1; }
wait "$first"
check "merge after the shard ends" 0 $A merge "$T/lk" --out "$T/mg"
check "resume after the holder exits" 0 $A fuzz --resume --time 1 --out "$T/lk" --quiet --minimize-time 0
grep -q "seed 9" "$T/out" || { echo "FAIL --resume without --seed did not take the campaign's seed"; cat "$T/out"; fail=1; }
# --resume takes the campaign's settings; a flag that says otherwise is refused.
check "mutant-only campaign" 0 $A fuzz --inject ua-writes-only --time 1 --seed 4 --out "$T/rs" --quiet --minimize-time 0
check "resume with another --strategy" 2 $A fuzz --resume --strategy eager --time 1 --out "$T/rs" --quiet
grep -q "differs from the campaign" "$T/err" || { echo "FAIL no conflict message"; cat "$T/err"; fail=1; }
check "resume with another --seed" 2 $A fuzz --resume --seed 5 --time 1 --out "$T/rs" --quiet
check "resume takes the settings" 0 $A fuzz --resume --time 1 --out "$T/rs" --quiet --minimize-time 0
if ls "$T/rs/findings" | grep -qv "+ua-writes-only"; then
  echo "FAIL the resumed campaign ran other strategies:"; ls "$T/rs/findings"; fail=1
fi

# compare --out that cannot be written: exit 2 before the work (root may
# write read-only folders, so the folder sits under a regular file).
touch "$T/file"
check "compare --out unwritable" 2 $A compare --programs 3 --out "$T/file/sub"
grep -q "cannot write" "$T/err" || { echo "FAIL compare did not say why"; cat "$T/err"; fail=1; }
check "run /dev/zero stops at the input limit" 2 $A run /dev/zero
grep -q "larger than" "$T/err" || { echo "FAIL no input-size message"; cat "$T/err"; fail=1; }
exit $fail
