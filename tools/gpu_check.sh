#!/usr/bin/env bash
# The GPU check of issue #13, in two halves:
#
#   tools/gpu_check.sh build [KIT_DIR] [PROGRAMS] [SEED] [TARGET]
#       here (Halide, no GPU): a TARGET kit (default cuda) of PROGRAMS
#       generated programs (default 40, seed 7) under every strategy plus the
#       8 bug-zoo mutants, and a host kit of the same cases, run here; its
#       results travel in KIT_DIR/host-results.json as the reference verdicts.
#   tools/gpu_check.sh run KIT_DIR RESULTS_DIR
#       on the GPU machine (a driver, python3; nothing else): runs the kit
#       (at most 8 minutes), writes RESULTS_DIR/results.json and summary.txt,
#       and compares every run's verdict with the host kit's: the must-agree
#       strategies agree on every program, checked mode detects each mutant
#       wherever the host detected it, and each program's GPU time is set
#       against its pipelines x the cheapest pipeline run (~ launch latency).
#       Prints "gpu_check: PASS" or "gpu_check: FAIL (why)"; exit 0 on PASS.
# The run half is the same for any kit (tools:kit_test runs it on opencl).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mutants="ua-no-maybe-views ua-no-multi-output ua-writes-only dce-drops-outputless fusion-stale-copy fn-per-input-base fn-no-regenerate lower-halide-alias"

build() {
  local kit=${1:-kit-gpu} n=${2:-40} seed=${3:-7} target=${4:-cuda}
  local af=${AF_ALIASFUZZ:-} inject=""
  if [[ -z "$af" ]]; then  # tests name the binaries (AF_ALIASFUZZ, AF_KIT_RUNNER); by hand, build them
    local root; root=$(cd "$here/.." && pwd)
    (cd "$root" && bazel build --noshow_progress //tools:aliasfuzz //lowering:kit_runner >/dev/null 2>&1) ||
      { echo "gpu_check: build failed" >&2; exit 2; }
    af="$root/bazel-bin/tools/aliasfuzz"
  fi
  for m in $mutants; do inject="$inject --inject $m"; done
  "$af" kit --target "$target" --programs "$n" --seed "$seed" $inject --out "$kit"
  local ref; ref=$(mktemp -d)
  "$af" kit --target host --programs "$n" --seed "$seed" $inject --out "$ref/kit" >/dev/null
  "$ref/kit/run" --out "$ref" >/dev/null || true  # under-study strategies and mutants may disagree
  cp "$ref/results.json" "$kit/host-results.json"
  rm -rf "$ref"
  echo "gpu_check: $kit ready ($(du -sh "$kit" | cut -f1)); on the GPU machine: tools/gpu_check.sh run $kit RESULTS_DIR"
}

run() {
  local kit=$1 out=$2
  mkdir -p "$out"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1 || true
  local rc=0
  timeout 480 "$kit/run" --out "$out" >"$out/summary.txt" 2>&1 || rc=$?
  cat "$out/summary.txt"
  if [[ $rc == 124 ]]; then echo "gpu_check: FAIL (the kit ran past 8 minutes)"; exit 1; fi
  if [[ $rc == 2 ]]; then echo "gpu_check: FAIL (the kit could not run)"; exit 1; fi
  python3 - "$out/results.json" "$kit/host-results.json" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
why = []
if r["failures"]:
    why.append("%d must-agree, missing-kernel or error runs" % r["failures"])
detected = ("disagree", "check-failed")
if os.path.exists(sys.argv[2]):
    ref = {(x["program"], x["strategy"], x["mutant"], x["checked"]): x["status"] for x in json.load(open(sys.argv[2]))["runs"]}
    differ = []
    for x in r["runs"]:
        h = ref.get((x["program"], x["strategy"], x["mutant"], x["checked"]))
        if h is not None and (h in detected) != (x["status"] in detected):
            differ.append("program %d %s%s%s: host %s, here %s" % (x["program"], x["strategy"], "+" + x["mutant"] if x["mutant"] else "",
                          " checked" if x["checked"] else "", h, x["status"]))
    print("vs the host kit: %d runs compared, %d verdicts differ" % (len(r["runs"]), len(differ)))
    for d in differ[:20]:
        print("  " + d)
    if differ:
        why.append("%d verdicts differ from the host kit's" % len(differ))
missed = [m for m, d in r["mutants"].items() if d["detected_checked"] == 0]
if missed:
    print("mutants these programs do not trigger (none detected in checked mode): " + ", ".join(missed))
t = r["timing"]
slow = sorted(t["programs"], key=lambda p: -p["vs_pipelines_x_launch"])[:5]
print("slowest programs vs pipelines x %.4f ms: %s" % (t["cheapest_pipeline_ms"], ", ".join(
    "#%d %.2f ms / %d pipelines (%.1fx)" % (p["program"], p["run_ms"], p["pipelines"], p["vs_pipelines_x_launch"]) for p in slow)))
print("gpu_check: " + ("FAIL (" + "; ".join(why) + ")" if why else "PASS"))
sys.exit(1 if why else 0)
PY
}

case "${1:-}" in
  build) shift; build "$@" ;;
  run) [[ $# == 3 ]] || { echo "usage: $0 run KIT_DIR RESULTS_DIR" >&2; exit 2; }; run "$2" "$3" ;;
  *) sed -n '2,18p' "$0" >&2; exit 2 ;;
esac
