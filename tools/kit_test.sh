#!/usr/bin/env bash
# Device kits (issue #13) built and run here: a host kit and an opencl kit
# (pocl) agree with the oracle on every must-agree run, unchecked and
# checked; the mutants built into them are detected in checked mode with
# the first diverging source statement; a damaged kernel pack is reported,
# never a crash; tools/gpu_check.sh runs end to end on an opencl kit. The
# kernel cache lives in TEST_TMPDIR, never in the user's home.
set -euo pipefail
bin="$TEST_SRCDIR/$TEST_WORKSPACE/tools/aliasfuzz"
export AF_KIT_RUNNER="$TEST_SRCDIR/$TEST_WORKSPACE/lowering/kit_runner"
export AF_KERNEL_CACHE="$TEST_TMPDIR/kernels"
export POCL_CACHE_DIR=/tmp/aliasfuzz-pocl-cache
t="$TEST_TMPDIR"

expect() {  # expect PATTERN FILE
  grep -q -- "$1" "$2" || { echo "FAIL: '$1' not in $2:"; cat "$2"; exit 1; }
}
ok="missing-kernel 0, error 0; failures (must-agree, missing, error) 0"

# Host: 3 programs, every strategy, and five mutants that these programs
# trigger: each must be detected in checked mode (lower-halide-alias only
# there: its observables agree on these programs), and a mutant of a source
# statement named with its text. (Seed 30: with format v1.1's ops in the
# generator, seed 11's three programs no longer trigger ua-no-multi-output;
# seed 33: with format v1.3's ops, seed 30 detects 3 of 5 (dce-drops-outputless
# 1/3, lower-halide-alias and ua-no-multi-output 0/3), seeds 31, 32, 34 detect
# 3, 4, 3; on seed 33 fn-no-regenerate diverges unchecked on 2 of its 3 programs;
# seed 35: with format v1.2's ops lowered too, seed 33 detects 3 of 5 and seeds
# 34, 36-41 detect 4 of 5; on seed 35 fn-no-regenerate diverges on 2 of 3;
# seed 51: with the generator's partial-alias operands (issue #38), seed 35
# detects 4 of 5 (ua-no-multi-output 0/3), seeds 36-50 2 to 5 of 5 (44: 5
# but no checked failure); on seed 51 all five, 3 of them by a check.)
mutants="--inject dce-drops-outputless --inject fn-no-regenerate --inject fn-per-input-base --inject ua-no-multi-output"
mutants="$mutants --inject lower-halide-alias"
"$bin" kit --target host --programs 3 --seed 51 $mutants --out "$t/host" | tee "$t/build.txt"
expect "0 build errors" "$t/build.txt"
rc=0
"$t/host/run" >"$t/host.txt" || rc=$?
cat "$t/host.txt"
[[ $rc == 0 ]] || { echo "FAIL: runner exit $rc"; exit 1; }
expect "$ok" "$t/host.txt"
expect "mutants detected in checked mode: 5 of 5" "$t/host.txt"
expect "fn-no-regenerate [1-3]/3 (unchecked [1-3]) first at source stmt [0-9]* \`[a-z0-9]" "$t/host.txt"
python3 - "$t/host/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
checked = [x for x in r["runs"] if x["mutant"] and x["checked"] and x["status"] == "check-failed"]
assert checked and all(x["first_failure"]["count"] > 0 for x in checked), "check-failed runs name their failure"
assert all(not x["mutant"] or not x["must_agree"] for x in r["runs"]), "mutant cases are never must-agree"
assert r["failures"] == 0 and r["kernels_unpacked"] > 0
PY

# A rebuilt kit compiles nothing (the kernels come from the cache).
"$bin" kit --target host --programs 3 --seed 51 --out "$t/host2" | tee "$t/build2.txt"
expect "(0 compiled now)" "$t/build2.txt"

# A truncated pack: the kernels after the damage are reported missing, never a crash.
size=$(stat -c %s "$t/host2/kernels.pack")
truncate -s $((size * 2 / 3)) "$t/host2/kernels.pack"
rc=0
"$t/host2/run" --out "$t" >"$t/missing.txt" 2>&1 || rc=$?
cat "$t/missing.txt"
[[ $rc == 1 ]] || { echo "FAIL: runner exit $rc"; exit 1; }
expect "damaged pack" "$t/missing.txt"
expect "missing-kernel [1-9]" "$t/missing.txt"

# OpenCL on pocl through tools/gpu_check.sh, both halves (what a GPU machine
# does with a cuda kit): one program, every strategy and the 8 mutants,
# every verdict the same as the host kit's.
AF_ALIASFUZZ="$bin" "$TEST_SRCDIR/$TEST_WORKSPACE/tools/gpu_check.sh" build "$t/cl" 1 12 opencl | tee "$t/clb.txt"
expect "0 build errors" "$t/clb.txt"
test -s "$t/cl/host-results.json"
"$TEST_SRCDIR/$TEST_WORKSPACE/tools/gpu_check.sh" run "$t/cl" "$t/cl-results" | tee "$t/cl.txt"
expect "$ok" "$t/cl.txt"
expect "vs the host kit: [1-9][0-9]* runs compared, 0 verdicts differ" "$t/cl.txt"
expect "mutants detected in checked mode: [1-9] of 8" "$t/cl.txt"
expect "gpu_check: PASS" "$t/cl.txt"
test -s "$t/cl-results/results.json"
echo "kit_test: ok"
