#!/usr/bin/env bash
# Minimizer vs C-Reduce on bug-zoo findings.
#
#   bench/minimize_vs_creduce.sh [CREDUCE_TIMEOUT_S] [ENTRIES...]
#
# For each entry (STRATEGY or STRATEGY:MUTANT; default: the `none` baseline
# and every mutant with its strategy) it finds the first program of
# `aliasfuzz gen --seed $AF_BENCH_SEED --size 14` that diverges under
# `--reorder random:7 --fusion greedy --target interp`, then minimizes it
#   - with `aliasfuzz minimize` (default: may switch the random seed),
#   - with `aliasfuzz minimize --seeds 0` (the spec's seed kept, like creduce),
#   - with `creduce --n 2` and an interestingness script that calls
#     `aliasfuzz run --json` with the same spec and requires a disagreement
#     of the same observable class (return / storage / error). `aliasfuzz run`
#     does not print the first diverging op, so creduce's signature is weaker
#     than the bucket our minimizer keeps (which also names that op).
# It prints, per case and in total: time (s), statements and bytes of the
# result (comments and blank lines removed), and the ratios creduce / ours.
set -uo pipefail
root=${BUILD_WORKSPACE_DIRECTORY:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$root"
T=${1:-120}
shift || true
ENTRIES=("$@")
if [ ${#ENTRIES[@]} -eq 0 ]; then
  ENTRIES=(none update_aliases-ordered:ua-no-maybe-views update_aliases-ordered:ua-no-multi-output
           update_aliases-ordered:ua-writes-only update_aliases-ordered:dce-drops-outputless
           update_aliases-min:fusion-stale-copy functionalize:fn-per-input-base functionalize:fn-no-regenerate)
fi
command -v creduce >/dev/null || { echo "creduce is not installed"; exit 2; }
command -v jq >/dev/null || { echo "jq is not installed"; exit 2; }
bazel build --noshow_progress //tools:aliasfuzz >/dev/null 2>&1 || { echo "build failed"; exit 2; }
AF="$root/bazel-bin/tools/aliasfuzz"
SEED=${AF_BENCH_SEED:-21}
COUNT=${AF_BENCH_COUNT:-300}
work=$(mktemp -d /tmp/af_min_vs_creduce.XXXXXX)
"$AF" gen --seed "$SEED" --count "$COUNT" --size 14 --out "$work/gen" >/dev/null 2>&1

now() { date +%s.%N; }
# statements and bytes of a program text without comments and blank lines
stmts() { grep -v '^\s*#' "$1" | grep -v '^\s*$' | grep -cvE '^\s*(aliasfuzz|storage|input|return)\b'; }
bytes() { grep -v '^\s*#' "$1" | sed 's/#.*//' | grep -v '^\s*$' | wc -c; }
class_of() { jq -r '.runs[0] | if .agree then "agree" elif .first_mismatch == null then "error"
                    elif (.first_mismatch.observable | startswith("return")) then "return" else "storage" end' 2>/dev/null; }

printf "%-44s %6s | %8s %5s %6s | %8s %5s %6s | %8s %5s %6s | %7s %7s\n" case stmts ours_s st bytes \
  fixed_s st bytes creduce_s st bytes t_ratio b_ratio
sum_ot=0; sum_ct=0; sum_ob=0; sum_cb=0; sum_ft=0; sum_fb=0; n=0
for e in "${ENTRIES[@]}"; do
  strat=${e%%:*}; inj=""; [ "$e" != "$strat" ] && inj=${e#*:}
  flags=(--strategy "$strat" --reorder random:7 --fusion greedy --target interp)
  [ -n "$inj" ] && flags+=(--inject "$inj")
  case_file=""
  for ((k = 0; k < COUNT; k++)); do
    f="$work/gen/prog-$k.af"
    [ -f "$f" ] || continue
    "$AF" run "$f" "${flags[@]}" >/dev/null 2>&1
    if [ $? -eq 1 ]; then case_file=$f; break; fi
  done
  if [ -z "$case_file" ]; then printf "%-44s no finding in %d programs\n" "$e" "$COUNT"; continue; fi
  d="$work/${e//[:]/_}"; mkdir -p "$d"
  cp "$case_file" "$d/case.af"
  want=$("$AF" run "$d/case.af" "${flags[@]}" --json | class_of)
  # ours
  t0=$(now); "$AF" minimize "$d/case.af" "${flags[@]}" --out "$d/ours" --time "$T" >/dev/null 2>&1; t1=$(now)
  ot=$(echo "$t1 - $t0" | bc -l)
  t0=$(now); "$AF" minimize "$d/case.af" "${flags[@]}" --out "$d/fixed" --time "$T" --seeds 0 >/dev/null 2>&1; t1=$(now)
  ft=$(echo "$t1 - $t0" | bc -l)
  # creduce
  mkdir -p "$d/creduce"; cp "$d/case.af" "$d/creduce/case.af"
  {
    echo '#!/usr/bin/env bash'
    printf 'out=$(%q run case.af' "$AF"; printf ' %q' "${flags[@]}"; echo ' --json 2>/dev/null)'
    echo '[ $? -eq 1 ] || exit 1'
    echo "cls=\$(echo \"\$out\" | jq -r '.runs[0] | if .agree then \"agree\" elif .first_mismatch == null then \"error\" elif (.first_mismatch.observable | startswith(\"return\")) then \"return\" else \"storage\" end')"
    echo "[ \"\$cls\" = \"$want\" ]"
  } > "$d/creduce/test.sh"
  chmod +x "$d/creduce/test.sh"
  t0=$(now)
  (cd "$d/creduce" && timeout "$T" creduce --n 2 ./test.sh case.af >creduce.log 2>&1)
  t1=$(now)
  ct=$(echo "$t1 - $t0" | bc -l)
  os=$(stmts "$d/ours/min.af"); ob=$(bytes "$d/ours/min.af")
  fs=$(stmts "$d/fixed/min.af" 2>/dev/null || echo 0); fb=$(bytes "$d/fixed/min.af" 2>/dev/null || echo 0)
  cs=$(stmts "$d/creduce/case.af"); cb=$(bytes "$d/creduce/case.af")
  printf "%-44s %6s | %8.2f %5s %6s | %8.2f %5s %6s | %8.2f %5s %6s | %7.1f %7.2f\n" "$e" "$(stmts "$d/case.af")" \
    "$ot" "$os" "$ob" "$ft" "$fs" "$fb" "$ct" "$cs" "$cb" "$(echo "$ct / $ot" | bc -l)" "$(echo "$cb / $ob" | bc -l)"
  sum_ot=$(echo "$sum_ot + $ot" | bc -l); sum_ct=$(echo "$sum_ct + $ct" | bc -l); sum_ft=$(echo "$sum_ft + $ft" | bc -l)
  sum_ob=$((sum_ob + ob)); sum_cb=$((sum_cb + cb)); sum_fb=$((sum_fb + fb)); n=$((n + 1))
done
if [ "$n" -gt 0 ]; then
  printf "total (%d cases): ours %.2f s %d bytes; ours --seeds 0 %.2f s %d bytes; creduce %.2f s %d bytes\n" \
    "$n" "$sum_ot" "$sum_ob" "$sum_ft" "$sum_fb" "$sum_ct" "$sum_cb"
  printf "ratios creduce/ours: time %.1fx, bytes %.2fx; creduce/ours(--seeds 0): time %.1fx, bytes %.2fx\n" \
    "$(echo "$sum_ct / $sum_ot" | bc -l)" "$(echo "$sum_cb / $sum_ob" | bc -l)" \
    "$(echo "$sum_ct / $sum_ft" | bc -l)" "$(echo "$sum_cb / $sum_fb" | bc -l)"
fi
echo "(work files in $work; creduce timeout ${T}s per case)"
