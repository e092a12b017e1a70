#!/usr/bin/env bash
# Installs the Debian packages aliasfuzz needs, only those missing, so a
# second run takes a fraction of a second. Usage: tools/setup.sh [--quiet]
set -euo pipefail
PACKAGES=(
  bazel-bootstrap g++ libhalide14-0-dev librapidcheck-dev libgtest-dev
  libbenchmark-dev libcli11-dev nlohmann-json3-dev libfmt-dev libmimalloc-dev
  clang clang-format libclang-rt-14-dev python3-torch graphviz creduce
  slurm-wlm munge chromium
  pocl-opencl-icd ocl-icd-opencl-dev clinfo
)
missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
echo "aliasfuzz setup: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >&2
