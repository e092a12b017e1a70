#!/usr/bin/env bash
# `aliasfuzz slurm` without a cluster: the scripts it writes, --submit against
# a stand-in sbatch (the job ids it prints, the afterany dependency), and the
# scripts run by hand as Slurm would run them (task i with SLURM_ARRAY_TASK_ID,
# a requeued task resuming, then the merge), compared with a single-machine
# campaign. The real one-node cluster is slurm_test.sh.
set -euo pipefail
if [[ -n "${TEST_SRCDIR:-}" ]]; then
  bin="$TEST_SRCDIR/${TEST_WORKSPACE:-aliasfuzz}/tools/aliasfuzz"
else
  bin=${1:-$(dirname "${BASH_SOURCE[0]}")/../../bazel-bin/tools/aliasfuzz}
fi
bin=$(realpath "$bin")
T=$(mktemp -d "${TEST_TMPDIR:-/tmp}/af-slurm-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "slurm_cli_test: FAILED: $*" >&2; exit 1; }
SEED=31 PROGRAMS=120

# ---- --print: the array script and the merge script ---------------------------
"$bin" slurm --array 3 --programs $PROGRAMS --seed $SEED --jobs 2 --partition short \
  --sbatch-option=--time=00:10:00 --fuzz-option=--size=6 --out "$T/p" --print >"$T/print.out" 2>"$T/print.err" ||
  fail "--print: $(cat "$T/print.err")"
for want in "#SBATCH --array=0-2" "#SBATCH --cpus-per-task=2" "#SBATCH --partition=short" "#SBATCH --time=00:10:00" \
            "fuzz --shard \"\$i/3\" --out \"\$out\" --seed $SEED --jobs 2 --programs $PROGRAMS --size=6" \
            "$T/p/slurm/bin/aliasfuzz merge" "--out $T/p"; do
  grep -qF -- "$want" "$T/print.out" || fail "--print output lacks '$want'"
done
[[ -x "$T/p/slurm/bin/aliasfuzz" && -f "$T/p/slurm/fuzz.sbatch" && -f "$T/p/slurm/merge.sbatch" ]] ||
  fail "--print did not write the scripts and the binary copy"
cmp -s "$bin" "$T/p/slurm/bin/aliasfuzz" || fail "the binary copy differs from the binary"

# ---- usage errors --------------------------------------------------------------
for bad in "--array 0 --out $T/x" "--array 2 --out $T/x --fuzz-option=--bogus" "--array 2 --out $T/x --strategy bogus" "--array 2 --out $T/x --submit --print" "--array 2 --out $T/x --seed -3"; do
  set +e; "$bin" slurm $bad >/dev/null 2>&1; rc=$?; set -e
  [[ $rc -eq 2 ]] || fail "aliasfuzz slurm $bad: status $rc, want 2"
done
set +e; "$bin" slurm --array 2 --out "$T/with space" >/dev/null 2>&1; rc=$?; set -e
[[ $rc -eq 2 ]] || fail "an --out with a space: status $rc, want 2"

# ---- --submit with a stand-in sbatch ----------------------------------------------
mkdir -p "$T/fakebin"
cat >"$T/fakebin/sbatch" <<EOF
#!/bin/bash
echo "\$*" >>"$T/sbatch.calls"
n=\$(wc -l <"$T/sbatch.calls")
if [[ \$n -eq 1 ]]; then echo 4242; else echo "4243;cluster"; fi
EOF
chmod +x "$T/fakebin/sbatch"
OUT="$T/c"
PATH="$T/fakebin:$PATH" "$bin" slurm --array 3 --programs $PROGRAMS --seed $SEED --quiet --out "$OUT" --submit \
  >"$T/submit.out" 2>&1 || fail "--submit: $(cat "$T/submit.out")"
grep -q "array job 4242 (3 tasks), merge job 4243 (afterany:4242)" "$T/submit.out" ||
  fail "--submit printed: $(cat "$T/submit.out")"
[[ "$(sed -n 1p "$T/sbatch.calls")" == "--parsable $OUT/slurm/fuzz.sbatch" ]] ||
  fail "first sbatch call: $(sed -n 1p "$T/sbatch.calls")"
[[ "$(sed -n 2p "$T/sbatch.calls")" == "--parsable --dependency=afterany:4242 $OUT/slurm/merge.sbatch" ]] ||
  fail "second sbatch call: $(sed -n 2p "$T/sbatch.calls")"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert (j["array"], j["merge"], j["shards"], j["seed"]) == (4242, 4243, 3, 31), j' \
  "$OUT/slurm/jobs.json" || fail "jobs.json"

# ---- the scripts, run as Slurm runs them ------------------------------------------
for i in 0 1 2; do
  SLURM_ARRAY_TASK_ID=$i bash "$OUT/slurm/fuzz.sbatch" >"$T/task$i.log" 2>&1 || fail "task $i: $(cat "$T/task$i.log")"
done
# A requeued task finds its shard and resumes it instead of refusing.
SLURM_ARRAY_TASK_ID=1 bash "$OUT/slurm/fuzz.sbatch" >"$T/task1b.log" 2>&1 || fail "requeued task 1: $(cat "$T/task1b.log")"
# Submitting again over existing shards needs --resume.
set +e; PATH="$T/fakebin:$PATH" "$bin" slurm --array 3 --programs $PROGRAMS --seed $SEED --out "$OUT" --print >/dev/null 2>&1; rc=$?; set -e
[[ $rc -eq 2 ]] || fail "a second submission over existing shards: status $rc, want 2"
bash "$OUT/slurm/merge.sbatch" >"$T/merge.log" 2>&1 || fail "merge: $(cat "$T/merge.log")"
grep -q "merged 3 of 3 shards" "$T/merge.log" || fail "merge log: $(cat "$T/merge.log")"

"$bin" fuzz --programs $PROGRAMS --seed $SEED --quiet --out "$T/single" >/dev/null 2>&1 || fail "single campaign"
"$bin" report "$T/single" >/dev/null 2>&1 || fail "report of the single campaign"
python3 - "$OUT" "$T/single" <<'EOF' || fail "merged and single-machine findings differ"
import json, os, sys
def findings(d):
    p = d + "/findings.jsonl"
    if not os.path.exists(p):
        return []
    return sorted((f["k"], f["bucket"]) for f in map(json.loads, filter(str.strip, open(p))))
def buckets(d):
    r = json.load(open(d + "/report.json"))
    return r["programs"], sorted((b["name"], b["count"], b["first_program"]) for b in r["buckets"])
a, b = sys.argv[1], sys.argv[2]
assert findings(a) == findings(b), (len(findings(a)), len(findings(b)))
assert buckets(a) == buckets(b), "report.json buckets differ"
assert buckets(a)[0] == 120, buckets(a)[0]
EOF

# A missing shard: the merge job merges the others and says so with status 1.
rm -rf "$OUT/shard-2" "$OUT/report.json"
set +e; bash "$OUT/slurm/merge.sbatch" >"$T/merge2.log" 2>&1; rc=$?; set -e
[[ $rc -eq 1 ]] || fail "merge with a missing shard: status $rc, want 1: $(cat "$T/merge2.log")"
grep -q "shard 2 has no results" "$T/merge2.log" && grep -q "merged 2 of 3 shards" "$T/merge2.log" ||
  fail "merge with a missing shard: $(cat "$T/merge2.log")"
# ---- --kit: the array runs a device kit's runner, the merge joins summaries ----
export AF_KIT_RUNNER="${TEST_SRCDIR:+$TEST_SRCDIR/${TEST_WORKSPACE:-aliasfuzz}/lowering/kit_runner}"
[[ -n "$AF_KIT_RUNNER" ]] || AF_KIT_RUNNER=$(dirname "$bin")/../lowering/kit_runner
export AF_KERNEL_CACHE="$T/kernels"
"$bin" kit --target host --programs 3 --seed 5 --strategy eager --strategy functionalize --out "$T/kit" \
  >"$T/kit.log" 2>&1 || fail "kit: $(cat "$T/kit.log")"
"$bin" slurm --kit "$T/kit" --array 2 --partition gpu --out "$T/k" --print >"$T/kprint.out" 2>&1 ||
  fail "--kit --print: $(cat "$T/kprint.out")"
for want in "#SBATCH --array=0-1" "#SBATCH --partition=gpu" "$T/k/slurm/kit/run --shard \"\$i/2\" --out \"\$out\"" \
            "joins the shards' summaries into $T/k/summary.txt"; do
  grep -qF -- "$want" "$T/kprint.out" || fail "--kit --print output lacks '$want'"
done
grep -q "gres" "$T/kprint.out" && fail "a host kit asks for a GPU"
set +e; "$bin" slurm --kit "$T/kit" --array 2 --programs 4 --out "$T/k2" >/dev/null 2>&1; rc=$?; set -e
[[ $rc -eq 2 ]] || fail "--kit with a fuzz option: status $rc, want 2"
set +e; "$bin" slurm --kit "$T/nokit" --array 2 --out "$T/k2" >/dev/null 2>&1; rc=$?; set -e
[[ $rc -eq 2 ]] || fail "--kit without a kit: status $rc, want 2"
for i in 0 1; do
  SLURM_ARRAY_TASK_ID=$i bash "$T/k/slurm/fuzz.sbatch" >"$T/ktask$i.log" 2>&1 || fail "kit task $i: $(cat "$T/ktask$i.log")"
done
grep -q "kit host: 4 cases" "$T/ktask0.log" && grep -q "kit host: 2 cases" "$T/ktask1.log" ||
  fail "kit shards (programs 0, 2 and 1): $(cat "$T/ktask0.log" "$T/ktask1.log")"
bash "$T/k/slurm/merge.sbatch" >"$T/kmerge.log" 2>&1 || fail "kit merge: $(cat "$T/kmerge.log")"
grep -q "kit host: 2 shards, failures (must-agree, missing, error) 0" "$T/k/summary.txt" ||
  fail "kit merge summary: $(cat "$T/k/summary.txt")"
rm -rf "$T/k/shard-1"
set +e; bash "$T/k/slurm/merge.sbatch" >"$T/kmerge2.log" 2>&1; rc=$?; set -e
[[ $rc -eq 1 ]] && grep -q "shard 1: no results" "$T/kmerge2.log" || fail "kit merge with a missing shard: status $rc"
echo "slurm_cli_test: PASSED"
