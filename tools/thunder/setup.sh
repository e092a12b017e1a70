#!/usr/bin/env bash
# Creates .venv-thunder (project-local) with the pinned torch and
# lightning-thunder from PyPI, only when it is missing or out of date.
# Debian's PyTorch 1.13 for /usr/bin/python3 is left as it is.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
venv="$root/.venv-thunder"
req="$root/tools/thunder/requirements.txt"
stamp="$venv/.requirements"
if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$req" "$stamp"; then
  exit 0
fi
# The Python first on PATH creates the venv (python3-venv for Debian's).
py=$(command -v python3)
if ! "$py" -m venv --help >/dev/null 2>&1; then
  echo "aliasfuzz setup --thunder: $py has no venv module" >&2
  exit 1
fi
echo "aliasfuzz setup --thunder: creating $venv (torch and lightning-thunder from PyPI, a few minutes)" >&2
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/pip" install --quiet --progress-bar off -r "$req" >&2
"$venv/bin/python" -c "import warnings; warnings.filterwarnings('ignore'); import torch, thunder" >&2
cp "$req" "$stamp"
echo "aliasfuzz setup --thunder: ready ($("$venv/bin/python" -c 'import torch; print("torch", torch.__version__)'))" >&2
