#!/usr/bin/env bash
# A campaign of SECONDS against each real system (issue #34): programs/s,
# findings, bugs (new, known to the ledger) and the share of wall time the
# minimization took (buckets and novelty leads). Needs .venv-thunder
# (./aliasfuzz setup --thunder); a system that is not installed says so.
# Not a test (an hour at the default).
#   bench/systems.sh [SECONDS=600] [SEED=5] [KEEP_DIR] [SYSTEM...]
# AF_BIN=PATH runs that binary instead of this checkout's (a before/after
# table from two builds, one run each); JOBS=N workers per campaign
# (default 2; 1 each when a before and an after run side by side);
# FUZZ_FLAGS="..." adds options to every campaign (an ablation: the same
# binary with "--minimize-budget 0 --minimize-novel 0 --minimize-past-known"
# minimizes only each bucket's first finding, at the end and to its fixed
# point, as campaigns did before issue #34).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
af=${AF_BIN:-$root/aliasfuzz}
export AF_ROOT=${AF_ROOT:-$root}
secs=${1:-600}
seed=${2:-5}
keep=${3:-}
out=${3:-$(mktemp -d)}
shift $(( $# < 3 ? $# : 3 ))
systems=("$@")
[[ ${#systems[@]} -gt 0 ]] ||
  systems=(torch-func-functionalize torch-functionalize aot-eager inductor thunderfx thunder)
mkdir -p "$out"
echo "system | programs/s | findings | buckets | bugs | new | known | minimization share"
for s in "${systems[@]}"; do
  t0=$(date +%s.%N)
  "$af" fuzz --strategy "$s" --time "$secs" --seed "$seed" --jobs "${JOBS:-2}" --out "$out/$s" ${FUZZ_FLAGS:-} >"$out/$s.out" 2>"$out/$s.err"
  t1=$(date +%s.%N)
  /usr/bin/python3 - "$out/$s" "$s" "$t0" "$t1" "$out/$s.err" <<'PY'
import json, re, sys
d, name, t0, t1, err = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
try:
    r = json.load(open(d + "/report.json"))
    st = json.load(open(d + "/state.json"))
except OSError:
    print("%s | - | - | - | - | - | - | - (%s)" % (name, open(err).read().strip().splitlines()[-1:]))
    sys.exit()
wall = t1 - t0
# "minimized N buckets in T s", "novelty: ... minimized M in T s" (at the
# end), "minimization while running: N rounds, T s" (the summary; older
# binaries printed "minimize round N: T s" per round)
text = open(err).read()
mins = sum(float(x) for x in re.findall(r"minimized \d+(?: buckets)? in ([0-9.]+) s", text))
rounds = re.findall(r"minimize round \d+: ([0-9.]+) s", text)  # (binaries before -v printed a line per round)
mins += sum(float(x) for x in rounds) if rounds else sum(
    float(x) for x in re.findall(r"minimization while running: \d+ rounds, ([0-9.]+) s", text))
bugs = r["bugs"]
known = sum("ledger" in b for b in bugs)
print("%s | %.1f | %d | %d | %d | %d | %d | %.0f%%" % (name, st["programs"] / max(st["elapsed_s"], 1e-9), r["findings"],
      r["bucket_count"], len(bugs), len(bugs) - known, known, 100 * mins / wall))
PY
done
[[ -n "$keep" ]] || rm -rf "$out"
