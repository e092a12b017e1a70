#!/usr/bin/env bash
# A campaign worker's rate against an external strategy, as a share of the
# in-process rate (issue #34 item 4: target >= 70% for aot-eager): the
# first PROGRAMS programs of SEED, once in one warm Python that only
# compiles and calls them (bench/external_rate.cc), once as a one-worker
# campaign (`aliasfuzz fuzz --jobs 1`, no minimization; its own rate, the
# Python's start-up excluded as far as the campaign's clock allows). Both
# in one run, alternating ROUNDS times, each with an empty Inductor cache. Not a test (minutes).
#   bench/external_rate.sh [STRATEGY=aot-eager] [PROGRAMS=300] [SEED=5] [ROUNDS=2]
# AF_BIN=PATH runs that aliasfuzz binary for the campaign (a before/after).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export AF_ROOT=${AF_ROOT:-$root}
strategy=${1:-aot-eager}
n=${2:-300}
seed=${3:-5}
rounds=${4:-2}
af=${AF_BIN:-$root/aliasfuzz}
(cd "$root" && bazel build --noshow_progress //bench:external_rate >/dev/null 2>&1) ||
  { echo "external_rate.sh: build of //bench:external_rate failed" >&2; exit 2; }
[[ -n "${AF_BIN:-}" ]] || "$af" --help >/dev/null  # builds the tool before the clock starts
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "strategy $strategy, programs 0..$((n - 1)) of seed $seed, $rounds rounds"
for r in $(seq "$rounds"); do
  inproc=$("$root/bazel-bin/bench/external_rate" "$strategy" "$n" "$seed" "$root/bench/external_rate.py")
  rm -rf "$out/c" "$out/cache"
  TORCHINDUCTOR_CACHE_DIR="$out/cache" "$af" fuzz --strategy "$strategy" --seed "$seed" --programs "$n" --jobs 1 --minimize-time 0 --out "$out/c" \
    >/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 2; }
  /usr/bin/python3 - "$out/c/state.json" "$inproc" "$r" <<'PY'
import json, re, sys
st = json.load(open(sys.argv[1]))
text = sys.argv[2]
compile_rate = float(re.search(r"compile\+call\s+([0-9.]+)", text).group(1))
request_rate = float(re.search(r"whole request\s+([0-9.]+)", text).group(1))
camp = st["programs"] / st["elapsed_s"]
print("round %s: in-process compile+call %.2f/s, whole request %.2f/s; campaign worker %.2f/s = %.0f%% of compile+call"
      % (sys.argv[3], compile_rate, request_rate, camp, 100 * camp / compile_rate))
PY
done
