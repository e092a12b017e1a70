#!/usr/bin/env bash
# Installs the Debian packages aliasfuzz needs, only those missing, so a
# second run takes a fraction of a second.
#   tools/setup.sh            what building the tool and a CPU campaign need
#   tools/setup.sh --all      also what the test suite and every command need
#                             (PyTorch 1.13, RapidCheck, GoogleTest, Google
#                             Benchmark, clang for libFuzzer, Graphviz,
#                             C-Reduce, Slurm and munge, headless Chromium)
#   tools/setup.sh GROUP...   core plus groups: torch graphviz slurm creduce
set -euo pipefail
# Building //tools:aliasfuzz: the compilers, Bazel, Halide, the header
# libraries, mimalloc, and pocl (the opencl target is linked in).
CORE=(bazel-bootstrap g++ libhalide14-0-dev libcli11-dev nlohmann-json3-dev libfmt-dev libmimalloc-dev
      pocl-opencl-icd ocl-icd-opencl-dev)
declare -A GROUP=(
  [torch]="python3-torch"
  [graphviz]="graphviz"
  [slurm]="slurm-wlm munge"
  [creduce]="creduce"
  [test]="librapidcheck-dev libgtest-dev libbenchmark-dev clang clang-format libclang-rt-14-dev clinfo chromium"
)
PACKAGES=("${CORE[@]}")
for a in "$@"; do
  case "$a" in
    --all) for g in "${!GROUP[@]}"; do read -ra more <<<"${GROUP[$g]}"; PACKAGES+=("${more[@]}"); done ;;
    --quiet) ;;
    *) if [[ -z "${GROUP[$a]:-}" ]]; then echo "tools/setup.sh: unknown group '$a' (--all, ${!GROUP[*]})" >&2; exit 2; fi
       read -ra more <<<"${GROUP[$a]}"; PACKAGES+=("${more[@]}") ;;
  esac
done
missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
# apt's own lines (a "Setting up" per package, 230 on a fresh machine for
# the core alone) go to a log: a newcomer's first screen is the campaign's.
# The log stays, and its tail is shown, when the install fails.
log=$(mktemp /tmp/aliasfuzz-setup.XXXXXX.log)
echo "aliasfuzz setup: installing ${missing[*]}" >&2
start=$SECONDS
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
# The core alone without Debian's recommends (a CPU campaign needs none of
# them); the test suite's tools with theirs (Chromium's fonts, ...).
recommends=()
[[ ${#PACKAGES[@]} -eq ${#CORE[@]} ]] && recommends=(--no-install-recommends)
if ! { $SUDO apt-get update -qq &&
       DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -o DPkg::Lock::Timeout=600 -y -qq "${recommends[@]}" "${missing[@]}"; } >"$log" 2>&1; then
  tail -20 "$log" >&2
  echo "aliasfuzz setup: apt-get failed (whole output: $log)" >&2
  exit 1
fi
added=$(grep -c '^Setting up ' "$log" || true)
echo "aliasfuzz setup: ${#missing[@]} requested, $added packages set up in $((SECONDS - start)) s" >&2
rm -f "$log"
