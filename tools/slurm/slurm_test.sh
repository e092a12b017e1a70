#!/usr/bin/env bash
# The Slurm test of `aliasfuzz slurm`: starts a one-node Slurm on this machine
# (munged, slurmctld and slurmd from Debian's munge and slurm-wlm, with a
# slurm.conf generated from slurm.conf.in in a temporary folder), submits a
# 4-task array campaign with a fixed seed and program count, waits for it and
# its merge job, and checks that the merged report has the same findings as a
# single-machine campaign over the same programs; then ships a host kit to a
# 2-task array (--kit) and checks its merged summary. Every daemon it started is
# stopped by pid on exit, failure included. If a daemon cannot start, the
# test fails and prints its log.
#
# Under Bazel (//tools/slurm:slurm_test) the binary comes from the runfiles;
# by hand: tools/slurm/slurm_test.sh [path/to/aliasfuzz]   (run as root).
# Settings: AF_SLURM_PROGRAMS (default 400), AF_SLURM_SEED (default 20261129),
# AF_SLURM_KEEP=1 keeps the temporary folder.
set -euo pipefail
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:${PATH:-}"

PROGRAMS=${AF_SLURM_PROGRAMS:-400}
SEED=${AF_SLURM_SEED:-20261129}
SHARDS=4
START=$(date +%s)

# ---- where things are -------------------------------------------------------
if [[ -n "${TEST_SRCDIR:-}" ]]; then
  rf="$TEST_SRCDIR/${TEST_WORKSPACE:-aliasfuzz}"
  bin="$rf/tools/aliasfuzz"
  template="$rf/tools/slurm/slurm.conf.in"
  lib="$rf/tools/test_cases.sh"
else
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  bin=${1:-$here/../../bazel-bin/tools/aliasfuzz}
  template="$here/slurm.conf.in"
  lib="$here/../test_cases.sh"
fi
bin=$(realpath "$bin")  # absolute: the job scripts run it (a copy of it) on the "cluster"

# ---- results, as JUnit XML for the test command's counts --------------------
# shellcheck source=tools/test_cases.sh
source "$lib"

# ---- the temporary cluster folder and cleanup ---------------------------------
# Short path under /tmp: munge and slurmd put Unix sockets here (108-byte limit).
T=$(mktemp -d /tmp/af-slurm.XXXXXX)
chmod 711 "$T"
declare -A pid_of=()   # daemon -> pid (started by this script)
ctld_up=0

stop_pid() {  # name pid: TERM, then KILL after 10 s
  local name=$1 pid=$2 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "slurm_test: $name ($pid) ignored SIGTERM; SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  if [[ $ctld_up -eq 1 && -n "${pid_of[slurmctld]:-}" ]] && kill -0 "${pid_of[slurmctld]}" 2>/dev/null; then
    # Jobs still queued or running (a failure or timeout): cancel them and
    # let slurmd end their steps before the daemons go.
    local jobs
    jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
    if [[ -n "${jobs// /}" ]]; then
      echo "slurm_test: cancelling jobs $jobs" >&2
      scancel $jobs 2>/dev/null
      for _ in $(seq 1 150); do [[ -z "$(squeue -h -o %A 2>/dev/null)" ]] && break; sleep 0.1; done
    fi
  fi
  for d in slurmd slurmctld munged; do
    [[ -n "${pid_of[$d]:-}" ]] && stop_pid "$d" "${pid_of[$d]}"
  done
  write_cases_xml Slurm >/dev/null || true
  if [[ "${AF_SLURM_KEEP:-0}" == 1 ]]; then echo "slurm_test: kept $T" >&2; else rm -rf "$T"; fi
  echo "slurm_test: $(( $(date +%s) - START )) s" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

show_logs() {
  local f
  for f in "$T"/munge/munged.log "$T"/munge/munged.out "$T"/slurmctld.log "$T"/slurmctld.out "$T"/slurmd.log \
           "$T"/slurmd.out "$T"/campaign/slurm/logs/*.log; do
    [[ -s "$f" ]] || continue
    echo "----- $f (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

fail() {  # case message
  echo "slurm_test: FAILED $1: $2" >&2
  case_fail "$1" "$2"
  show_logs
  exit 1
}

for tool in munged slurmctld slurmd sbatch squeue scontrol sinfo scancel munge unmunge; do
  command -v "$tool" >/dev/null || fail DaemonsStart "$tool not found: install Debian's munge and slurm-wlm (tools/setup.sh does)"
done
[[ $(id -u) -eq 0 ]] || fail DaemonsStart "needs root (the one-node cluster runs its daemons and jobs as root)"

# ---- munged ---------------------------------------------------------------------
mkdir -p "$T/munge" "$T/state" "$T/spool"
chmod 711 "$T/munge"
head -c 1024 /dev/urandom >"$T/munge/munge.key"
chmod 400 "$T/munge/munge.key"
SOCK="$T/munge/munge.socket"
munged -F --force --key-file="$T/munge/munge.key" --socket="$SOCK" --pid-file="$T/munge/munged.pid" \
  --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" >"$T/munge/munged.out" 2>&1 &
pid_of[munged]=$!
ok=0
for _ in $(seq 1 100); do
  kill -0 "${pid_of[munged]}" 2>/dev/null || break
  if [[ -S "$SOCK" ]] && munge --socket="$SOCK" -n 2>/dev/null | unmunge --socket="$SOCK" >/dev/null 2>&1; then ok=1; break; fi
  sleep 0.1
done
[[ $ok -eq 1 ]] || fail DaemonsStart "munged did not start (or a credential did not round-trip)"

# ---- slurm.conf -------------------------------------------------------------------
HOST=$(hostname -s)
hw=$(slurmd -C 2>/dev/null | head -n 1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ' || true)
[[ "$hw" == *CPUs=* ]] || hw="CPUs=$(nproc)"
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
CONF="$T/slurm.conf"
sed -e "s|@HOST@|$HOST|g" -e "s|@NODE_HW@|$hw|g" -e "s|@CTLD_PORT@|$CTLD_PORT|g" -e "s|@SLURMD_PORT@|$SLURMD_PORT|g" \
    -e "s|@MUNGE_SOCKET@|$SOCK|g" -e "s|@DIR@|$T|g" "$template" >"$CONF"
export SLURM_CONF="$CONF"
echo "slurm_test: one-node cluster on $HOST ($hw), ports $CTLD_PORT/$SLURMD_PORT, in $T" >&2

# ---- slurmctld and slurmd -------------------------------------------------------
slurmctld -D -c -i -f "$CONF" >"$T/slurmctld.out" 2>&1 &
pid_of[slurmctld]=$!
ctld_up=1
ok=0
for _ in $(seq 1 200); do
  kill -0 "${pid_of[slurmctld]}" 2>/dev/null || break
  if scontrol ping 2>/dev/null | grep -q "is UP"; then ok=1; break; fi
  sleep 0.1
done
[[ $ok -eq 1 ]] || fail DaemonsStart "slurmctld did not start"

slurmd -D -f "$CONF" -N "$HOST" >"$T/slurmd.out" 2>&1 &
pid_of[slurmd]=$!
ok=0
for _ in $(seq 1 300); do
  kill -0 "${pid_of[slurmd]}" 2>/dev/null || break
  state=$(sinfo -h -n "$HOST" -o %T 2>/dev/null || true)
  if [[ "$state" == idle* ]]; then ok=1; break; fi
  sleep 0.1
done
[[ $ok -eq 1 ]] || fail DaemonsStart "slurmd did not register, node state '${state:-}' $(sinfo -R -h 2>/dev/null)"
case_ok DaemonsStart

# ---- the array campaign, and a single-machine one over the same programs ---------
OUT="$T/campaign"
submit=$("$bin" slurm --array "$SHARDS" --programs "$PROGRAMS" --seed "$SEED" --jobs 1 --quiet \
         --out "$OUT" --submit 2>&1) || fail ArrayCampaignRuns "aliasfuzz slurm --submit failed: $submit"
echo "$submit" >&2
read -r ARRAY_ID MERGE_ID < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(j["array"], j["merge"])' "$OUT/slurm/jobs.json") || fail ArrayCampaignRuns "no $OUT/slurm/jobs.json"

# Runs on the same two CPUs while Slurm works.
"$bin" fuzz --programs "$PROGRAMS" --seed "$SEED" --jobs 1 --quiet --out "$T/single" >"$T/single.out" 2>&1 ||
  fail MergedReportMatchesSingleMachine "the single-machine campaign failed: $(cat "$T/single.out")"
"$bin" report "$T/single" >>"$T/single.out" 2>&1 ||
  fail MergedReportMatchesSingleMachine "aliasfuzz report failed: $(cat "$T/single.out")"

deadline=$(( $(date +%s) + ${AF_SLURM_WAIT_S:-90} ))
merge_state=""
while :; do
  merge_state=$(scontrol -o show job "$MERGE_ID" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true)
  case "$merge_state" in
    COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) break ;;
  esac
  [[ $(date +%s) -lt $deadline ]] || { squeue >&2; fail ArrayCampaignRuns "the merge job $MERGE_ID did not finish in time (state '$merge_state')"; }
  sleep 0.5
done
tasks=$(scontrol -o show job "$ARRAY_ID" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
ntasks_ok=$(scontrol -o show job "$ARRAY_ID" | grep -c 'JobState=COMPLETED' || true)
[[ "$ntasks_ok" -eq "$SHARDS" ]] || fail ArrayCampaignRuns "array tasks: $tasks (want $SHARDS COMPLETED)"
[[ "$merge_state" == COMPLETED ]] || fail ArrayCampaignRuns "merge job $MERGE_ID: $merge_state"
# The merge ran after every task (afterany), and merged all of them.
grep -q "merged $SHARDS of $SHARDS shards" "$OUT"/slurm/logs/merge-"$MERGE_ID".log ||
  fail ArrayCampaignRuns "the merge log does not say it merged $SHARDS shards"
case_ok ArrayCampaignRuns

# ---- the merged report against the single-machine one ----------------------------
diff=$(python3 - "$OUT" "$T/single" "$PROGRAMS" "$SHARDS" <<'EOF'
import json, os, sys
merged, single, programs, shards = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def findings(d):
    out = []
    if not os.path.exists(d + "/findings.jsonl"):  # a campaign without findings may not write it
        return out
    for line in open(d + "/findings.jsonl"):
        if line.strip():
            f = json.loads(line)
            out.append((f["k"], f["bucket"], json.dumps(f.get("spec"), sort_keys=True)))
    return sorted(out)

def report(d):
    r = json.load(open(d + "/report.json"))
    keep = ["seed", "programs", "invalid", "findings", "crashes", "timeouts", "bucket_count",
            "must_agree_buckets", "findings_per_strategy"]
    s = {k: r.get(k) for k in keep}
    s["buckets"] = sorted((b["name"], b["count"], b["first_program"], b["must_agree"]) for b in r["buckets"])
    return s

problems = []
fm, fs = findings(merged), findings(single)
if fm != fs:
    problems.append("findings.jsonl differ: merged has %d, single %d; only merged: %s; only single: %s"
                    % (len(fm), len(fs), sorted(set(fm) - set(fs))[:5], sorted(set(fs) - set(fm))[:5]))
rm, rs = report(merged), report(single)
for k in rm:
    if rm[k] != rs[k]:
        problems.append("report.json %s: merged %s, single %s" % (k, rm[k], rs[k]))
if rm["programs"] != programs:
    problems.append("merged report has %s programs, want %d" % (rm["programs"], programs))
m = json.load(open(merged + "/report.json"))
if len(m.get("sources", [])) != shards:
    problems.append("merged report lists %d sources, want %d" % (len(m.get("sources", [])), shards))
for b in m["buckets"]:
    if "case" not in b.get("files", {}):
        problems.append("bucket %s has no case.af in the merged folder" % b["name"])
print("; ".join(problems))
print("compared %d findings in %d buckets over %d programs" % (len(fm), rm["bucket_count"], rm["programs"]),
      file=sys.stderr)
EOF
) || fail MergedReportMatchesSingleMachine "the comparison script failed"
[[ -z "$diff" ]] || fail MergedReportMatchesSingleMachine "$diff"
case_ok MergedReportMatchesSingleMachine

# ---- a device kit shipped to the array (aliasfuzz slurm --kit) ---------------------
export AF_KIT_RUNNER=${AF_KIT_RUNNER:-$(dirname "$bin")/../lowering/kit_runner}
export AF_KERNEL_CACHE="$T/kernels"
"$bin" kit --target host --programs 4 --seed "$SEED" --strategy eager --strategy functionalize --out "$T/kit" \
  >"$T/kit.out" 2>&1 || fail KitArrayRuns "aliasfuzz kit failed: $(cat "$T/kit.out")"
ksubmit=$("$bin" slurm --kit "$T/kit" --array 2 --out "$T/kitrun" --submit 2>&1) ||
  fail KitArrayRuns "aliasfuzz slurm --kit --submit failed: $ksubmit"
KMERGE_ID=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["merge"])' "$T/kitrun/slurm/jobs.json")
deadline=$(( $(date +%s) + ${AF_SLURM_WAIT_S:-90} ))
while :; do
  kstate=$(scontrol -o show job "$KMERGE_ID" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true)
  case "$kstate" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) break ;; esac
  [[ $(date +%s) -lt $deadline ]] || fail KitArrayRuns "the kit merge job $KMERGE_ID did not finish (state '$kstate')"
  sleep 0.5
done
[[ "$kstate" == COMPLETED ]] || fail KitArrayRuns "kit merge job $KMERGE_ID: $kstate: $(cat "$T/kitrun/summary.txt" 2>/dev/null)"
grep -q "kit host: 2 shards, failures (must-agree, missing, error) 0" "$T/kitrun/summary.txt" ||
  fail KitArrayRuns "kit summary: $(cat "$T/kitrun/summary.txt")"
case_ok KitArrayRuns
echo "slurm_test: PASSED (array $ARRAY_ID, merge $MERGE_ID)" >&2
