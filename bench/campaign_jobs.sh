#!/usr/bin/env bash
# Campaign throughput with --jobs 2 against --jobs 1, same seed and
# programs, in one run (the ratio is what counts on a noisy machine).
#   bench/campaign_jobs.sh [PROGRAMS] [TARGET]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
n=${1:-20000}
target=${2:-interp}
bazel build --noshow_progress //tools:aliasfuzz >/dev/null 2>&1 || { echo "build failed"; exit 1; }
af="$root/bazel-bin/tools/aliasfuzz"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rate() {  # jobs -> programs/s
  local start end
  start=$(date +%s.%N)
  "$af" fuzz --programs "$n" --seed 1 --jobs "$1" --target "$target" --minimize-time 0 --quiet --out "$work/j$1" >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "$n / ($end - $start)" | bc -l
}
r1=$(rate 1)
r2=$(rate 2)
printf 'target %s, %d programs: --jobs 1 %.0f programs/s, --jobs 2 %.0f programs/s, ratio %.2f\n' "$target" "$n" "$r1" "$r2" "$(echo "$r2 / $r1" | bc -l)"
/usr/bin/python3 - "$work/j1/findings.jsonl" "$work/j2/findings.jsonl" <<'PY'
import json, sys
def keys(p):
    return sorted((f["k"], f["bucket"], json.dumps(f["spec"], sort_keys=True)) for f in map(json.loads, open(p)))
a, b = keys(sys.argv[1]), keys(sys.argv[2])
print("same findings with 1 and 2 jobs (%d)" % len(a) if a == b else "findings DIFFER between 1 and 2 jobs")
PY
