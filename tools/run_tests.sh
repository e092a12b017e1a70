#!/usr/bin/env bash
# The test command: builds everything, runs every test, runs the libFuzzer
# targets for a bounded number of inputs, and prints the counts of test
# cases (gtest XML of each test target, JUnit XML of the fuzz runs), last line:
#   N passed, N failed[, N skipped]
# Options: --thunder  also install .venv-thunder (torch 2.x + lightning-thunder)
#                     first, so the Thunder tests run instead of being skipped.
#          --full     the slowest loops whole (AF_TEST_FULL=1), not their
#                     default samples (each sampled loop prints what it ran).
# The torches of `./aliasfuzz setup --torch` (.venvs/) are used where installed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
args=()
test_env=()
for a in "$@"; do
  if [[ "$a" == --thunder ]]; then tools/thunder/setup.sh || exit 1
  elif [[ "$a" == --full ]]; then test_env+=(--test_env=AF_TEST_FULL=1)  # the sampled loops whole
  else args+=("$a"); fi
done
if [[ -x "$root/.venv-thunder/bin/python" ]]; then
  test_env+=(--test_env=AF_THUNDER_PYTHON="$root/.venv-thunder/bin/python")
fi
# The torches of ./aliasfuzz setup --torch: the ledger replays under each.
[[ -n "${AF_TEST_SAMPLE_OFFSET:-}" ]] && test_env+=(--test_env=AF_TEST_SAMPLE_OFFSET)
[[ -n "${AF_TEST_FULL:-}" ]] && test_env+=(--test_env=AF_TEST_FULL)
if [[ -d "$root/.venvs" ]]; then test_env+=(--test_env=AF_TORCH_VENVS="$root"); fi
if ! bazel build --noshow_progress //...; then
  echo "0 passed, 1 failed"
  exit 1
fi
# The libFuzzer targets' clang build beside the tests, so that it takes
# the cycles they leave idle (a test that runs alone at the end) and is
# mostly done when they are. `nice` cannot keep it out of the tests' way on
# a kernel with autogroups: each Bazel action (each test, each clang) is a
# session and a group of its own there, and groups share the cores evenly
# (measured in fresh clones: `bazel test` 1,201 s beside it; the whole
# suite 1,701 s, where the run before, with the two one after the other and
# this build at -O1 throughout, took 1,902 s).
# Its log is printed only when it fails; run_libfuzzer.sh below builds
# again (cached) and reports a failure as the targets' own.
extra=$(mktemp -d)
nice -n 19 tools/run_libfuzzer.sh --build-only > "$extra/libfuzzer-build.log" 2>&1 < /dev/null &
libfuzzer_build=$!
# GoogleTest cases run in a random order (the seed is in each test log):
# no test may depend on another having run first.
bazel test --noshow_progress "${test_env[@]}" --test_env=GTEST_SHUFFLE=1 //... "${args[@]}"
rc=$?
wait "$libfuzzer_build" || tail -20 "$extra/libfuzzer-build.log"
# Only the test targets that exist now count (count_tests.py: a moved
# target's old test.xml stays in the output base).
bazel query 'tests(//...)' --output label > "$extra/targets.txt" 2>/dev/null || rm -f "$extra/targets.txt"
tools/run_libfuzzer.sh "$extra/libfuzzer" 2000
# The include graph: 0 arrows up, 0 cycles (reads the tree, so not a Bazel test).
/usr/bin/python3 tools/layers_test.py --xml "$extra/layers.xml"
/usr/bin/python3 tools/count_tests.py "$(bazel info bazel-testlogs 2>/dev/null)" "$rc" "$extra"
status=$?
rm -rf "$extra"
exit $status
