#!/usr/bin/env bash
# Device kits (issue #13) built and run here: a host kit and an opencl kit
# (pocl) agree with the oracle on every must-agree run, unchecked and
# checked; a kit with a kernel removed reports it and does not crash. The
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

"$bin" kit --target host --programs 3 --seed 11 --out "$t/host" | tee "$t/build.txt"
expect "0 build errors" "$t/build.txt"
"$t/host/run" | tee "$t/host.txt"
expect "missing-kernel 0, error 0; failures (must-agree, missing, error) 0" "$t/host.txt"
test -s "$t/host/results.json"

# A rebuilt kit compiles nothing (the kernels come from the cache).
"$bin" kit --target host --programs 3 --seed 11 --out "$t/host2" | tee "$t/build2.txt"
expect "(0 compiled now)" "$t/build2.txt"

# A missing kernel is reported, never a crash.
rm "$(ls "$t/host2/kernels"/*.so | sort | tail -n 1)"
rc=0
"$t/host2/run" --out "$t" >"$t/missing.txt" 2>&1 || rc=$?
cat "$t/missing.txt"
[[ $rc == 1 || $rc == 2 ]] || { echo "FAIL: runner exit $rc"; exit 1; }
grep -q "missing-kernel [1-9]\|no usable Halide runtime" "$t/missing.txt" || { echo "FAIL: nothing reported missing"; exit 1; }

# OpenCL on pocl: one program, the must-agree strategies.
"$bin" kit --target opencl --programs 1 --seed 12 --strategy eager --strategy functionalize --out "$t/cl" | tee "$t/clb.txt"
"$t/cl/run" | tee "$t/cl.txt"
expect "missing-kernel 0, error 0; failures (must-agree, missing, error) 0" "$t/cl.txt"
echo "kit_test: ok"
