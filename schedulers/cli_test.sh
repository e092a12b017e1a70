#!/usr/bin/env bash
# The command-line contract of `aliasfuzz run` and `aliasfuzz dot` for the
# schedulers: exit statuses, the JSON `runs` objects, usage errors.
set -uo pipefail
A=tools/aliasfuzz
D=schedulers/testdata
fail=0
check() {  # check NAME EXPECTED_STATUS CMD...
  local name=$1 want=$2; shift 2
  "$@" > "$TEST_TMPDIR/out" 2> "$TEST_TMPDIR/err"
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL $name: exit $got, wanted $want"; cat "$TEST_TMPDIR/out" "$TEST_TMPDIR/err"; fail=1
  else
    echo "ok   $name"
  fi
}
TEST_TMPDIR=${TEST_TMPDIR:-$(mktemp -d)}

check "must-agree strategies agree" 0 $A run $D/chunk_war.af --reorder random:5 --fusion dataflow
[[ $(wc -l < "$TEST_TMPDIR/out") -eq 4 ]] || { echo "FAIL expected 4 runs"; fail=1; }
check "none disagrees (exit 1)" 1 $A run $D/alias_inputs.af --strategy none --reorder random:1 --json
check "mutant disagrees" 1 $A run $D/alias_inputs.af --strategy functionalize --inject fn-per-input-base --json
/usr/bin/python3 - "$TEST_TMPDIR/out" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["valid"] is True and j["error"] is None, j
r = j["runs"]
assert len(r) == 1, r
keys = {"strategy", "inject", "reorder", "fusion", "target", "agree", "regions", "first_mismatch"}
assert set(r[0]) == keys, r[0].keys()
assert r[0]["strategy"] == "functionalize" and r[0]["inject"] == "fn-per-input-base"
assert r[0]["agree"] is False and r[0]["first_mismatch"]["observable"]
assert r[0]["target"] == "interp" and isinstance(r[0]["regions"], int)
print("ok   JSON runs object")
PY
check "repeatable --strategy" 0 $A run $D/tanh_chain.af --strategy eager --strategy update_aliases-min --json
/usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; assert [x['strategy'] for x in r]==['eager','update_aliases-min'] and r[0]['inject'] is None" "$TEST_TMPDIR/out" || fail=1
check "unknown mutant is a usage error" 2 $A run $D/tanh_chain.af --inject no-such-mutant
grep -q "fn-no-regenerate" "$TEST_TMPDIR/err" || { echo "FAIL usage error does not list the mutants"; fail=1; }
check "unknown strategy" 2 $A run $D/tanh_chain.af --strategy bogus
check "unknown reorder" 2 $A run $D/tanh_chain.af --reorder random:
check "halide host target agrees" 0 $A run $D/tanh_chain.af --target host
check "unknown target" 2 $A run $D/tanh_chain.af --target tpu
check "lower-halide-alias accepted on interp" 0 $A run $D/tanh_chain.af --inject lower-halide-alias
check "run --dump-passes" 0 $A run $D/alias_inputs.af --strategy functionalize --inject dce-drops-outputless --dump-passes
for h in "after strategy functionalize" "after mutant dce-drops-outputless" "after dag" "after order program" "after regions none" "schedule"; do
  grep -q "^# ---- $h" "$TEST_TMPDIR/out" || { echo "FAIL --dump-passes lacks '$h'"; fail=1; }
done
# Checked mode judges against the source program, on the interpreter tier
# too: fn-per-input-base is named at source statement 1 (line 6), the first
# whose value it changes, not at a statement the strategy inserted.
printf 'aliasfuzz 1\nstorage s f32[4] = iota(0, 1)\ninput x0 = as_strided(s, [4], [1], 0)\ninput x1 = as_strided(s, [2], [1], 2)\nmul_(x0, 2.0)\nc = add(x1, 1.0)\nreturn c\n' > "$TEST_TMPDIR/fpib.af"
check "run --checked on interp" 1 $A run "$TEST_TMPDIR/fpib.af" --strategy functionalize --inject fn-per-input-base --checked --json
grep -q '"first_diverging_op":{"count":2,"first_index":0,"line":6,"op":"add","region":[0-9]*,"source_stmt":1' "$TEST_TMPDIR/out" || { echo "FAIL --checked names the source statement"; cat "$TEST_TMPDIR/out"; fail=1; }
check "dot text" 0 $A dot $D/tanh_chain.af --strategy update_aliases-ordered --text
grep -q "update_aliases(\[a\])" "$TEST_TMPDIR/out" || { echo "FAIL dot --text"; fail=1; }
check "dot graphviz" 0 $A dot $D/chunk_war.af --strategy update_aliases --reorder fusion --fusion greedy
grep -q "subgraph cluster_r0" "$TEST_TMPDIR/out" || { echo "FAIL dot"; fail=1; }
if [[ -x /usr/bin/dot ]]; then
  check "dot svg" 0 $A dot $D/chunk_war.af --strategy functionalize --out "$TEST_TMPDIR/s.svg"
  grep -q "<svg" "$TEST_TMPDIR/s.svg" || { echo "FAIL svg"; fail=1; }
fi
exit $fail
