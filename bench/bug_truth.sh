#!/usr/bin/env bash
# Ground truth for bug counting (issues #34, #40): campaigns against
# systems whose defects we know, and how many bugs each reports.
#   - every bug-zoo mutant (one defect each: any divergence is it);
#   - the two-defect toy compiler (oracles/testdata/toy_compiler.py:
#     two_defects): a frequent defect (an in-place write lost when its
#     target shares storage with another argument) and a rare one (exp
#     with out= off by one). A bug whose program has exp_out is the rare
#     defect, any other the frequent one.
# Prints per system: defects injected, bugs reported, defects found,
# precision (defects found / bugs reported) and recall (defects found /
# defects injected), and the root defects the report groups the bugs into
# (triage/defects.h), with how many mix the toy's two. Not a test (it takes minutes).
#   bench/bug_truth.sh [SECONDS=60] [SEED=8] [KEEP_DIR]
# With KEEP_DIR the campaigns stay there (KEEP_DIR/SYSTEM). AF_BIN=PATH runs
# that binary instead of this checkout's (e.g. an older build, for a
# before/after table).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
af=${AF_BIN:-$root/aliasfuzz}
export AF_ROOT=${AF_ROOT:-$root}
secs=${1:-60}
seed=${2:-8}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
echo "system | defects | bugs | found | precision | recall | buckets | findings | root defects reported (mixed)"
row() {  # row DIR NAME DEFECTS: the table line of one campaign
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
d, name, defects = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    r = json.load(open(d + "/report.json"))
except OSError:
    print("%s | %d | - | - | - | - | - | - (no report)" % (name, defects)); sys.exit()
bugs = r["bugs"]
if defects == 1:
    found = 1 if bugs else 0
else:  # the two-defect toy: exp_out is the rare defect's op
    found = any("exp_out" in b["program"] for b in bugs) + any("exp_out" not in b["program"] for b in bugs)
prec = "%.2f" % (found / len(bugs)) if bugs else "-"
# Root defects (issue #57): how many the report groups the bugs into, and
# how many of those mix the toy's two defects (exp_out with any other).
by_name = {b["name"]: b for b in bugs}
mixed = sum(1 for d in r.get("defects", [])
            if len({"exp_out" in by_name.get(n, {}).get("program", "") for n in d["bugs"]}) > 1)
print("%s | %d | %d | %d | %s | %.2f | %d | %d | %d (%d)" % (name, defects, len(bugs), found, prec, found / defects,
                                                    r["bucket_count"], r["findings"], len(r.get("defects", [])), mixed))
PY
}
for m in $("$af" run --help 2>/dev/null | sed -n 's/.*bug-zoo mutant: \([^(]*\).*$/\1/p' | tr ',' ' '); do
  # A lowering mutant shows only where regions are lowered.
  target=interp
  [[ "$m" == lower-* ]] && target=host
  "$af" fuzz --inject "$m" --target "$target" --time "$secs" --seed "$seed" --out "$out/$m" --quiet >/dev/null 2>&1
  row "$out/$m" "$m" 1
done
# The toy is imported from the working directory of the campaign.
cp "$root/oracles/testdata/toy_compiler.py" "$out/"
(cd "$out" && "$af" fuzz --strategy "py:toy_compiler:two_defects@/usr/bin/python3" --time "$secs" --seed "$seed" \
   --jobs 2 --out "$out/two-defects" --quiet >/dev/null 2>&1)
row "$out/two-defects" "two-defects (py stub)" 2
[[ -n "${3:-}" ]] || rm -rf "$out"
