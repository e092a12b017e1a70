#!/usr/bin/env bash
# ./aliasfuzz setup --torch [VERSION] [--torch VERSION]...: one project-local environment per
# torch version, .venvs/torch-VERSION, with torch==VERSION from PyPI. The
# torch.compile-family strategies run under any of them (inductor@VERSION,
# or fuzz --torch VERSION; the newest installed by default). Without a
# VERSION: the one pinned in tools/torch/newest (the newest on the index
# when it was last checked: `pip index versions torch`). An environment
# that is complete is left as it is.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
versions=()
for a in "$@"; do [[ "$a" == "--torch" ]] || versions+=("$a"); done  # --torch A --torch B, or --torch A B
if [[ ${#versions[@]} -eq 0 ]]; then versions=("$(tr -d ' \n' < "$root/tools/torch/newest")"); fi
py=$(command -v python3)
if ! "$py" -m venv --help >/dev/null 2>&1; then
  echo "aliasfuzz setup --torch: $py has no venv module" >&2
  exit 1
fi
for v in "${versions[@]}"; do
  if ! [[ "$v" =~ ^[0-9]+(\.[0-9]+)*[A-Za-z0-9.+_]*$ ]]; then
    echo "aliasfuzz setup --torch: '$v' is not a version (e.g. 2.15.0)" >&2
    exit 2
  fi
  venv="$root/.venvs/torch-$v"
  want="torch==$v"
  if [[ -x "$venv/bin/python" && "$(cat "$venv/.requirements" 2>/dev/null)" == "$want" ]]; then
    echo "aliasfuzz setup --torch: torch $v is installed ($venv)" >&2
    continue
  fi
  echo "aliasfuzz setup --torch: creating $venv (torch $v from PyPI, a few minutes)" >&2
  rm -rf "$venv"
  mkdir -p "$root/.venvs"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install --quiet --progress-bar off "$want" numpy >&2
  "$venv/bin/python" -c "import warnings; warnings.filterwarnings('ignore'); import torch" >&2
  echo "$want" > "$venv/.requirements"
  echo "aliasfuzz setup --torch: ready ($("$venv/bin/python" -c 'import torch; print("torch", torch.__version__)'))" >&2
done
