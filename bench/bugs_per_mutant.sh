#!/usr/bin/env bash
# Buckets vs bugs (fuzz/signature.h) per bug-zoo mutant: a campaign of
# SECONDS for each mutant, every bucket minimized, then the number of
# buckets and of distinct bug signatures. Not a test (it takes minutes).
#   bench/bugs_per_mutant.sh [SECONDS=60] [SEED=1] [KEEP_DIR]
# With KEEP_DIR the campaigns stay there (KEEP_DIR/MUTANT) for a look at
# the minimized programs behind each bug. AF_BIN=PATH runs that binary
# instead of building this checkout (e.g. a copy, while the sources change).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
af=${AF_BIN:-$root/aliasfuzz}
export AF_ROOT=${AF_ROOT:-$root}
secs=${1:-60}
seed=${2:-1}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
echo "mutant | buckets | bugs | findings"
for m in $("$af" run --help 2>/dev/null | sed -n 's/.*bug-zoo mutant: \([^(]*\).*$/\1/p' | tr ',' ' '); do
  # A lowering mutant shows only where regions are lowered.
  target=interp
  [[ "$m" == lower-* ]] && target=host
  "$af" fuzz --inject "$m" --target "$target" --time "$secs" --seed "$seed" --out "$out/$m" --quiet \
    --minimize-time 10 --minimize-total 600 >/dev/null 2>&1
  /usr/bin/python3 - "$out/$m" "$m" <<'PY'
import json, os, sys
d, m = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/report.json"))
print("%s | %d | %d | %d" % (m, r["bucket_count"], r["bug_count"], r["findings"]))
PY
done
[[ -n "${3:-}" ]] || rm -rf "$out"
