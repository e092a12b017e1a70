#!/usr/bin/env bash
# How many of `gen --format 1.4`'s programs are training programs, and how
# many of those eager PyTorch accepts under autograd (issue #37's target:
# >= 80%); each rejection's message is printed.
#   bench/training_acceptance.sh [SEED=14] [COUNT=400] [PYTHON=newest .venvs/torch-*]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seed=${1:-14}
count=${2:-400}
py=${3:-$(ls -d "$root"/.venvs/torch-*/bin/python 2>/dev/null | sort -V | tail -1)}
[[ -x "$py" ]] || { echo "no torch venv (./aliasfuzz setup --torch VERSION)"; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$root/aliasfuzz" gen --seed "$seed" --count "$count" --format 1.4 --out "$dir" >/dev/null || exit 2
n=0 ok=0
for f in $(grep -l "^backward" "$dir"/*.af); do
  n=$((n + 1))
  out=$("$root/aliasfuzz" torch "$f" | "$py" - 2>/dev/null)
  if grep -q '"error"' <<<"$out"; then
    echo "rejected $(basename "$f"): $(/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["error"]["message"][:120])' <<<"$out")"
  else
    ok=$((ok + 1))
  fi
done
echo "seed $seed: $n of $count programs are training programs; eager ($py) accepts $ok of them"
