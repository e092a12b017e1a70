#!/usr/bin/env bash
# The test command: builds everything, runs every test, and prints the
# counts of test cases (from the gtest XML of each test target), last line:
#   N passed, N failed[, N skipped]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bazel build --noshow_progress //... || { echo "0 passed, 1 failed"; exit 1; }
bazel test --noshow_progress //... "$@"
rc=$?
/usr/bin/python3 tools/count_tests.py "$(bazel info bazel-testlogs 2>/dev/null)" "$rc"
