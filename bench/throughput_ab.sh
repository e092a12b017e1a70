#!/usr/bin/env bash
# The throughput table of issue #16 for two builds, interleaved in one run
# (this machine's load swings; only ratios within one run mean anything):
#   bench/throughput_ab.sh OLD_DIR NEW_DIR [ROUNDS]
# Each DIR holds `-c opt` copies of aliasfuzz, sched_bench and
# oracle_vs_torch from one commit, e.g.
#   bazel build -c opt //tools:aliasfuzz //bench:sched_bench //bench:oracle_vs_torch
#   mkdir -p /tmp/new && cp bazel-bin/tools/aliasfuzz bazel-bin/bench/{sched_bench,oracle_vs_torch} /tmp/new/
# Per round, old then new: the interpreter tier (sched_bench 5000 programs,
# user CPU seconds), the oracle against PyTorch (oracle_vs_torch 2000), and
# a 20,000-program campaign with --jobs 1 and --jobs 2 (wall programs/s,
# and the parent's own CPU seconds under --jobs 2). Run from the repository
# root (oracle_vs_torch starts the PyTorch runner with /usr/bin/python3).
set -uo pipefail
old=${1:?usage: throughput_ab.sh OLD_DIR NEW_DIR [ROUNDS]}
new=${2:?usage: throughput_ab.sh OLD_DIR NEW_DIR [ROUNDS]}
rounds=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tier() {  # dir -> user CPU seconds for 5,000 programs
  /usr/bin/time -f "%U" -o "$work/t" "$1/sched_bench" 5000 12 0 >/dev/null 2>&1
  cat "$work/t"
}

oracle() {  # dir -> "oracle programs/s, torch programs/s, ratio"
  "$1/oracle_vs_torch" 2000 2>&1 | awk '
    /^oracle \(analyze/ { o = $(NF-5) }
    /program only:/ && /PyTorch/ { t = $(NF-3) }
    END { printf "%s %s %.1fx", o, t, o / t }'
}

campaign() {  # dir jobs -> "programs/s parent_cpu_s"
  local out="$work/c$2" start end pid parent cpu=""
  rm -rf "$out"
  start=$(date +%s.%N)
  "$1/aliasfuzz" fuzz --programs 20000 --seed 1 --jobs "$2" --minimize-time 0 --quiet --out "$out" >/dev/null 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    parent=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) && [[ -n "$parent" ]] && cpu=$parent
    sleep 0.2
  done
  end=$(date +%s.%N)
  echo "$(echo "20000 / ($end - $start)" | bc -l) ${cpu:-0}"
}

printf '%-5s %-4s %10s %28s %12s %12s %8s %10s\n' round ver tier_cpu_s "oracle/s torch/s ratio" jobs1/s jobs2/s ratio parent_s
for r in $(seq 1 "$rounds"); do
  for v in old new; do
    dir=$old
    [[ $v == new ]] && dir=$new
    t=$(tier "$dir")
    o=$(oracle "$dir")
    read -r j1 _ <<<"$(campaign "$dir" 1)"
    read -r j2 p <<<"$(campaign "$dir" 2)"
    printf '%-5s %-4s %10s %28s %12.0f %12.0f %8.2f %10.2f\n' "$r" "$v" "$t" "$o" "$j1" "$j2" \
      "$(echo "$j2 / $j1" | bc -l)" "$(echo "$p / 100" | bc -l)"
  done
done
