#!/usr/bin/env bash
# Formats the project's C++ with .clang-format; `--check` lists the files
# it would change and exits 1 if any. Usage: tools/format.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' | grep -v '^third_party/')
if [[ "${1:-}" == "--check" ]]; then
  bad=0
  for f in "${files[@]}"; do
    clang-format --style=file "$f" | cmp -s - "$f" || { echo "$f"; bad=1; }
  done
  exit $bad
fi
clang-format --style=file -i "${files[@]}"
