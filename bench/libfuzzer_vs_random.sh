#!/usr/bin/env bash
# Is coverage guidance worth it here? For every zoo mutant, the time until
# the first divergence for (a) the libFuzzer differential target (coverage
# guided, structure-aware bytes) and (b) `aliasfuzz fuzz`'s seeded random
# generator, one core each, same budget. Also the libFuzzer target's exec/s.
#   bench/libfuzzer_vs_random.sh [BUDGET_SECONDS]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
budget=${1:-30}
base="$HOME/.cache/bazel-libfuzzer"
bazel --output_base="$base" build --noshow_progress --config=libfuzzer //fuzz:fuzz_differential >/dev/null 2>&1 || { echo "libFuzzer build failed"; exit 1; }
fuzzer="$(bazel --output_base="$base" info --config=libfuzzer bazel-bin 2>/dev/null)/fuzz/fuzz_differential"
bazel build --noshow_progress //tools:aliasfuzz >/dev/null 2>&1 || { echo "build failed"; exit 1; }
af="$root/bazel-bin/tools/aliasfuzz"
mutants=(ua-no-maybe-views ua-no-multi-output ua-writes-only dce-drops-outputless fusion-stale-copy fn-per-input-base fn-no-regenerate)
printf '| mutant | libFuzzer s | libFuzzer execs | random s | random programs |\n|---|---|---|---|---|\n'
for m in "${mutants[@]}"; do
  work=$(mktemp -d)
  mkdir -p "$work/corpus"
  find corpus/examples -name '*.af' -exec cp {} "$work/corpus/" \;
  start=$(date +%s.%N)
  log=$(cd "$work" && AF_FUZZ_STRATEGY=- AF_FUZZ_INJECT="$m" AF_FUZZ_ABORT=1 "$fuzzer" -max_total_time="$budget" \
        -print_final_stats=1 -seed=1 corpus 2>&1)
  end=$(date +%s.%N)
  lf_execs=$(echo "$log" | grep -oE '#[0-9]+' | tail -1 | tr -d '#')
  if echo "$log" | grep -q "deadly signal"; then lf=$(echo "$end - $start" | bc); else lf=">$budget"; fi
  "$af" fuzz --inject "$m" --time "$budget" --seed 1 --jobs 1 --minimize-time 0 --quiet --out "$work/rand" >/dev/null 2>&1
  first=$(head -1 "$work/rand/findings.jsonl" 2>/dev/null)
  if [[ -n "$first" ]]; then
    rt=$(echo "$first" | /usr/bin/python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["t"])')
    rk=$(echo "$first" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["k"] + 1)')
  else rt=">$budget"; rk="-"; fi
  printf '| %s | %s | %s | %s | %s |\n' "$m" "$lf" "${lf_execs:-?}" "$rt" "$rk"
  rm -rf "$work"
done
# exec/s of the differential target with the must-agree strategies (no abort).
work=$(mktemp -d)
rate=$(cd "$work" && "$fuzzer" -max_total_time=10 -print_final_stats=1 -seed=1 2>&1 | grep -E "stat::number_of_executed_units|stat::average_exec_per_sec")
echo "$rate"
rm -rf "$work"
