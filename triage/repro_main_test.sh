#!/usr/bin/env bash
# repro_main_test.py under the Python a repro.py runs with (Debian's, torch 1.13).
set -euo pipefail
dir="$(dirname "$0")"
exec /usr/bin/python3 "$dir/repro_main_test.py" "$dir/repro_main.py"
