#!/usr/bin/env bash
# The persistent kernel cache on `fuzz --target host` with every strategy
# (issue #13): cold (empty cache), the same seed again, a new seed, each a
# new process against one cache folder. First the real command (programs/s),
# then bench/kcache_bench (hit rate, compile ms p50/p95, miss breakdown).
#   bench/kcache_bench.sh [PROGRAMS] [JOBS]
set -euo pipefail
n=${1:-40}; jobs=${2:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" && bazel build //tools:aliasfuzz //bench:kcache_bench >/dev/null 2>&1
dir=$(mktemp -d); out=$(mktemp -d)
strategies=$(for s in eager functionalize update_aliases-ordered update_aliases-min update_aliases none; do echo --strategy $s; done)
# fuzz exits 1 when it finds something (under-study strategies do): the
# rate comes from the campaign's state.json either way.
fuzz() {
  "$root/bazel-bin/tools/aliasfuzz" fuzz --target host $strategies --programs "$n" --seed "$1" --jobs "$jobs" \
    --quiet --minimize-time 0 --kernel-cache "$dir" --out "$out/$2" >/dev/null 2>&1 || true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"  {d['programs']} programs in {d['elapsed_s']:.1f} s: {d['programs']/d['elapsed_s']:.2f} programs/s ({d['programs']/d['elapsed_s']/$jobs:.2f} per job), timeouts {d['timeouts']}\")" "$out/$2/state.json"
}
echo "== aliasfuzz fuzz --target host, 6 strategies, $n programs, $jobs jobs"
echo "cold:";      fuzz 101 cold
echo "same seed:"; fuzz 101 same
echo "new seed:";  fuzz 202 new
rm -rf "$dir"
echo "== bench/kcache_bench (one process each)"
b="$root/bazel-bin/bench/kcache_bench"
"$b" --dir "$dir" --seed 101 --programs "$n" --label cold
"$b" --dir "$dir" --seed 101 --programs "$n" --label same-seed
"$b" --dir "$dir" --seed 202 --programs "$n" --label new-seed
"$b" --jit --seed 303 --programs "$n" --label jit-only
rm -rf "$dir" "$out"
