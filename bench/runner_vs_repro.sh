#!/usr/bin/env bash
# The runner and repro.py cannot disagree (issue #56): N generated programs
# (and, with LEDGER=1, every ledger entry of the strategy's system) each run
# through the campaign's runner (`aliasfuzz run --json`) and as
# `python repro.py` alone in a fresh process (`run --write-repro`); a
# program whose verdicts differ is listed with both. Not a test (hours at
# the issue's 500 programs of inductor).
#   bench/runner_vs_repro.sh STRATEGY [N=100] [SEED=1] [MAX_NUMEL]
#   e.g. bench/runner_vs_repro.sh aot-eager@2.15.0 500
# LEDGER=1 also replays corpus/findings/*.af whose `# strategy:` is STRATEGY's
# name without @VERSION. WEIGHTS="OP=0 ..." passes `--weight`s to the
# generator (a campaign leaves out what the capability probe found
# unsupported; programs holding such ops are not compared). KEEP=DIR keeps
# a copy of each program whose verdicts differ.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
af=${AF_BIN:-$root/aliasfuzz}
export AF_ROOT=${AF_ROOT:-$root}
strategy=${1:?STRATEGY}
n=${2:-100}
seed=${3:-1}
numel=${4:-64}
work=$(mktemp -d)
[[ -n "${KEEP:-}" ]] && mkdir -p "$KEEP"
trap 'rm -rf "$work"' EXIT
weights=()
for w in ${WEIGHTS:-}; do weights+=(--weight "$w"); done
"$af" gen --seed "$seed" --count "$n" --max-numel "$numel" "${weights[@]}" --out "$work/progs" >/dev/null || exit 2
files=("$work"/progs/*.af)
if [[ "${LEDGER:-0}" == 1 ]]; then
  base=${strategy%@*}
  for f in "$root"/corpus/findings/*.af; do
    grep -q "^# strategy: $base\$" "$f" && files+=("$f")
  done
fi
same=0 differ=0 skipped=0
for f in "${files[@]}"; do
  # A running count: a run stopped early still says how far it got.
  done_n=$((same + differ + skipped))
  ((done_n > 0 && done_n % 25 == 0)) && echo "[$done_n of ${#files[@]}] $same same, $differ differ, $skipped not compared" >&2
  json=$("$af" run "$f" --strategy "$strategy" --json --write-repro "$work/repro.py" 2>/dev/null)
  runner=$(/usr/bin/python3 -c '
import json, sys
try:
    r = json.loads(sys.stdin.read())["runs"][0]
except Exception:
    print("none"); sys.exit()
print("unsupported" if r.get("unsupported") else ("agree" if r["agree"] else "diverge"))
if not r["agree"]:
    print(json.dumps(r.get("first_mismatch"))[:300], file=sys.stderr)' <<<"$json" 2>"$work/runner.why")
  if [[ "$runner" == none || "$runner" == unsupported || ! -f "$work/repro.py" ]]; then
    skipped=$((skipped + 1))
    continue
  fi
  py=$(head -1 "$work/repro.py" | cut -c3-)
  timeout 600 "$py" "$work/repro.py" >"$work/repro.out" 2>&1  # from here: a py: module beside the caller
  rc=$?
  repro=$([[ $rc == 0 ]] && echo agree || ([[ $rc == 1 ]] && echo diverge || echo "exit-$rc"))
  if [[ "$runner" == "$repro" ]]; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "DIFFER $f: runner $runner, repro.py $repro"
    [[ -s "$work/runner.why" ]] && sed 's/^/    runner: /' "$work/runner.why"
    [[ -n "${KEEP:-}" ]] && cp "$f" "$KEEP/differ-$(basename "$f")"
    tail -3 "$work/repro.out" | sed 's/^/    /'
  fi
  rm -f "$work/repro.py"
done
echo "$strategy: $same programs with the same verdict, $differ differ, $skipped not compared (unsupported or unavailable)"
[[ $differ == 0 ]]
