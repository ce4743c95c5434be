#!/usr/bin/env bash
# The workflow on a real SLURM scheduler: a one-node cluster on loopback
# (Debian's munge, slurmctld, slurmd), part of the smoke DAG (seed 0: corpus,
# 4 models, 4 tables) submitted through profiles/slurm, a GPU request through profiles/slurm-gpu on a fake GPU, and
# a training job requeued mid-run (as preemption does) that resumes from its
# checkpoint. Tables, histories and weights must be byte-identical to a local
# run of the same targets and config.
#
#   sudo tests/slurm/run.sh          # ends with a line PASS: ..., FAIL: ... or SKIP: ...
#
# Needs root and apt-get (Debian/Ubuntu); installs the packages when missing
# and stops, by pid, every daemon it started. Not for a machine that runs
# SLURM already (it skips there). 4 to 8 minutes on 2 cores shared with other
# work; mostly the start of a Snakemake inside each of the 7 SLURM jobs.
#
# Environment: GATEDRNN_PYTHON (default .venv/bin/python, else python3),
# GATEDRNN_SLURM_TIMEOUT (seconds for each Snakemake run, default 600),
# GATEDRNN_SLURM_KEEP=1 keeps the work directory (kept anyway on FAIL).

set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tests/slurm
TIMEOUT=${GATEDRNN_SLURM_TIMEOUT:-600}
KEEP=${GATEDRNN_SLURM_KEEP:-0}
MARKER="# written by gatedrnn tests/slurm/run.sh"
T0=$(date +%s)

say() { echo "[slurm-test $(($(date +%s) - T0))s] $*"; }
RESULT=FAIL
skip() {
    RESULT=SKIP
    echo "SKIP: $*"
    exit 0
}

# ---- can this machine run it? ------------------------------------------------
[ "$(id -u)" = 0 ] || skip "needs root (installs Debian packages, starts munged/slurmctld/slurmd)"
command -v apt-get >/dev/null || skip "no apt-get (Debian/Ubuntu only)"
if [ -n "${GATEDRNN_PYTHON:-}" ]; then
    PY=$GATEDRNN_PYTHON
elif [ -x "$REPO/.venv/bin/python" ]; then
    PY=$REPO/.venv/bin/python
else
    PY=$(command -v python3)
fi
if ! "$PY" -c "import importlib.util as u, sys
sys.exit(not all(u.find_spec(m) for m in ('snakemake', 'snakemake_executor_plugin_slurm', 'gatedrnn', 'yaml')))"; then
    echo "FAIL: $PY cannot import snakemake, snakemake_executor_plugin_slurm and gatedrnn (set GATEDRNN_PYTHON)"
    exit 1
fi
for pidfile in /run/slurm/slurmctld.pid /run/slurm/slurmd.pid /var/run/slurmctld.pid /var/run/slurmd.pid; do
    if [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        skip "a SLURM daemon already runs here ($pidfile); this test starts its own cluster"
    fi
done
if [ -e /etc/slurm/slurm.conf ] && ! grep -qF "$MARKER" /etc/slurm/slurm.conf; then
    skip "/etc/slurm/slurm.conf exists and is not this test's; not overwriting it"
fi

# ---- state for the cleanup ---------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gatedrnn-slurm.XXXXXX")
MUNGED_PID="" SLURMCTLD_PID="" SLURMD_PID="" SMK_PID="" LOCAL_PID="" POLL_PID=""

stop_pid() { # name pid [group]: TERM, wait up to 15 s, then KILL
    # With "group", the signals go to the process group that pid leads (a
    # `timeout` run: timeout, Snakemake and its jobs; nothing else).
    local name=$1 pid=$2 target=$2
    [ -n "$pid" ] || return 0
    kill -0 "$pid" 2>/dev/null || return 0
    [ "${3:-}" = group ] && target=-$pid
    kill -TERM -- "$target" 2>/dev/null
    for _ in $(seq 1 30); do
        kill -0 "$pid" 2>/dev/null || {
            say "stopped $name (pid $pid)"
            return 0
        }
        sleep 0.5
    done
    kill -KILL -- "$target" 2>/dev/null
    say "killed $name (pid $pid)"
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    stop_pid "requeue poller" "$POLL_PID"
    stop_pid "snakemake" "$SMK_PID" group
    stop_pid "local snakemake" "$LOCAL_PID" group
    if [ -n "$SLURMCTLD_PID" ] && kill -0 "$SLURMCTLD_PID" 2>/dev/null; then
        # Every job on this cluster is this test's: cancel what is left.
        local ids
        ids=$(squeue -h -o %i 2>/dev/null)
        if [ -n "$ids" ]; then
            say "cancelling leftover jobs: $(echo $ids)"
            scancel $ids 2>/dev/null
            for _ in $(seq 1 30); do
                [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
                sleep 0.5
            done
        fi
    fi
    stop_pid slurmd "$SLURMD_PID"
    stop_pid slurmctld "$SLURMCTLD_PID"
    stop_pid munged "$MUNGED_PID"
    # A requeued job's first Snakemake can outlive its job: proctrack/linuxproc follows
    # parents, and the job step's Snakemake is reparented when its step ends. Every
    # process of this test names $WORK (its own temporary folder) on its command line.
    local left
    left=$(pgrep -f -- "$WORK" || true)
    if [ -n "$left" ]; then
        say "stopping processes left by the jobs: $(echo $left)"
        pkill -TERM -f -- "$WORK" 2>/dev/null || true
        for _ in $(seq 1 20); do
            pgrep -f -- "$WORK" >/dev/null || break
            sleep 0.25
        done
        pkill -KILL -f -- "$WORK" 2>/dev/null || true
    fi
    # With a slurm.conf but no controller, every `scontrol` waits ~10 s for an
    # answer, and the SLURM executor plugin runs one each time Snakemake starts:
    # remove the test cluster's config so later Snakemake runs here stay fast.
    for conf in /etc/slurm/slurm.conf /etc/slurm/gres.conf; do
        if [ -e "$conf" ] && grep -qF "$MARKER" "$conf"; then
            rm -f "$conf"
        fi
    done
    if [ "$RESULT" != FAIL ] && [ "$KEEP" != 1 ]; then
        rm -rf "$WORK"
    else
        echo "work directory kept: $WORK"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Snakemake under `timeout` (which leads its own process group), in the
# background and waited for, so that a signal to this script is handled at
# once and the cleanup can stop the whole run.
run_snakemake() { # log dir snakemake-args...
    local log=$1 dir=$2 rc
    shift 2
    (cd "$dir" && exec timeout -k 10 "$TIMEOUT" "${SMK[@]}" --directory "$dir" "$@") >"$log" 2>&1 &
    SMK_PID=$!
    wait "$SMK_PID"
    rc=$?
    SMK_PID=""
    return $rc
}

timed_out() { # exit status of a `timeout` run -> a note when it timed out
    case $1 in 124 | 137) echo " (timed out after ${TIMEOUT}s; GATEDRNN_SLURM_TIMEOUT)" ;; esac
}

fail() {
    echo "---- last lines of the logs ----"
    for f in "$WORK"/*.log /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log; do
        [ -s "$f" ] && {
            echo "== $f"
            tail -n 25 "$f"
        }
    done
    echo "FAIL: $*"
    exit 1
}

# ---- 1. packages -------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
    ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing munge slurmctld slurmd slurm-client"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
        munge slurmctld slurmd slurm-client; } >"$WORK/apt.log" 2>&1; then
        tail -n 20 "$WORK/apt.log"
        skip "apt-get could not install munge/slurmctld/slurmd/slurm-client (no package mirror?)"
    fi
fi
for exe in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd; do
    [ -x "$exe" ] || fail "$exe missing after installing the packages"
done
say "slurm $(dpkg-query -W -f '${Version}' slurmctld 2>/dev/null), munge $(dpkg-query -W -f '${Version}' munge 2>/dev/null)"

# ---- 2. munge ----------------------------------------------------------------
install -d -o munge -g munge -m 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
    runuser -u munge -- mungekey --create >/dev/null || fail "could not create /etc/munge/munge.key"
fi
if [ -s /run/munge/munged.pid ] && kill -0 "$(cat /run/munge/munged.pid)" 2>/dev/null; then
    say "munged already running (pid $(cat /run/munge/munged.pid)); using it, not stopping it"
else
    runuser -u munge -- /usr/sbin/munged || fail "munged did not start"
    for _ in $(seq 1 20); do
        [ -s /run/munge/munged.pid ] && break
        sleep 0.25
    done
    MUNGED_PID=$(cat /run/munge/munged.pid 2>/dev/null)
    [ -n "$MUNGED_PID" ] || fail "munged wrote no pid file"
fi
munge -n | unmunge >/dev/null || fail "munge -n | unmunge failed"

# ---- 3. directories and configuration -------------------------------------
install -d -o slurm -g slurm /run/slurm /var/spool/slurmctld /var/log/slurm
install -d /var/spool/slurmd /etc/slurm
NCPU=$(nproc)
DETECTED_MB=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -n1)
[ -n "$DETECTED_MB" ] || fail "slurmd -C reported no RealMemory"
MEM_MB=$((DETECTED_MB * 8 / 10)) # above what slurmd detects, the node drains
cat >/etc/slurm/slurm.conf <<EOF
$MARKER: a one-node test cluster on loopback.
ClusterName=gatedrnn-test
SlurmctldHost=localhost
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# Finished jobs stay known to squeue (the plugin's status command here) and to
# scontrol (the checks) for an hour, however slow the machine.
MinJobAge=3600
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$NCPU RealMemory=$MEM_MB Gres=gpu:fake:1 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
cat >/etc/slurm/gres.conf <<EOF
$MARKER: one fake GPU, so that GPU requests can be scheduled without one.
AutoDetect=off
NodeName=localhost Name=gpu Type=fake File=/dev/null
EOF

# ---- 4. daemons --------------------------------------------------------------
: >/var/log/slurm/slurmctld.log
: >/var/log/slurm/slurmd.log
chown slurm:slurm /var/log/slurm/slurmctld.log
rm -f /run/slurm/slurmctld.pid /run/slurm/slurmd.pid
# -c: start from a clean state, never resuming jobs of an earlier run.
/usr/sbin/slurmctld -c || fail "slurmctld did not start"
for _ in $(seq 1 40); do
    [ -s /run/slurm/slurmctld.pid ] && break
    sleep 0.25
done
SLURMCTLD_PID=$(cat /run/slurm/slurmctld.pid 2>/dev/null)
[ -n "$SLURMCTLD_PID" ] || fail "slurmctld wrote no pid file"
/usr/sbin/slurmd -N localhost || fail "slurmd did not start"
for _ in $(seq 1 40); do
    [ -s /run/slurm/slurmd.pid ] && break
    sleep 0.25
done
SLURMD_PID=$(cat /run/slurm/slurmd.pid 2>/dev/null)
[ -n "$SLURMD_PID" ] || fail "slurmd wrote no pid file"
STATE=""
for _ in $(seq 1 60); do
    STATE=$(sinfo -h -o %t 2>/dev/null | head -n1)
    [ "$STATE" = idle ] && break
    sleep 0.5
done
[ "$STATE" = idle ] || fail "node state is '$STATE', not idle: $(sinfo -R 2>&1 | tail -n +2)"
say "cluster up: munged ${MUNGED_PID:-(not ours)}, slurmctld $SLURMCTLD_PID, slurmd $SLURMD_PID; $(sinfo -h -o '%P %D %c cpus %m MB %G')"

# ---- 5. test profiles, config and targets ----------------------------------
make_profile() { # real profile dir, output dir
    mkdir -p "$2"
    "$PY" - "$1/config.yaml" "$HERE/profile-overrides.yaml" "$2/config.yaml" <<'EOF'
import sys

import yaml

source, overrides, out = sys.argv[1:]
profile = yaml.safe_load(open(source))
# No accounting on the test cluster (an account is validated with sacctmgr)
# and one partition: drop what a user may have filled in.
for key in ("default-resources", "set-resources"):
    entry = profile.get(key) or {}
    for resources in [entry] + [v for v in entry.values() if isinstance(v, dict)]:
        for name in ("slurm_account", "slurm_partition"):
            resources.pop(name, None)
profile.update(yaml.safe_load(open(overrides)))
yaml.safe_dump(profile, open(out, "w"), sort_keys=False)
EOF
}
make_profile "$REPO/profiles/slurm" "$WORK/profile-slurm" || fail "could not derive the test profile"
make_profile "$REPO/profiles/slurm-gpu" "$WORK/profile-slurm-gpu" || fail "could not derive the GPU test profile"
# One seed of the smoke grid; a longer-trained regime for the requeue check.
cat >"$WORK/test-config.yaml" <<'EOF'
grid:
  seeds: [0]
regimes:
  default: {}
  # clip_norm apart from default: no shorter regime is this one's prefix, so the
  # requeued job trains from step 0 (prefix sharing has its own tests)
  requeue: {steps: 1000, clip_norm: 0.9}
EOF
printf 'train:\n  device: auto\n' >"$WORK/gpu-config.yaml"
TABLES="results/tables/matched_widths.csv results/tables/gru_vs_lstm.csv results/tables/gru_advantage_split.csv results/tables/val_loss_curves.csv"
GATES=results/gates/default/lstm_w24_s0.npz
REQUEUE_MODEL=results/models/requeue/lstm_w24_s0
SMK=("$PY" -m snakemake -s "$REPO/Snakefile")
CONFIG=(--configfile "$REPO/config/smoke.yaml" "$WORK/test-config.yaml")
mkdir -p "$WORK/slurm" "$WORK/local"

# ---- 6. the smoke tables through profiles/slurm -------------------------------
# Only training and gate extraction go to the scheduler: every other rule is a
# localrule (workflow/rules/common.smk), run by this Snakemake on the login node.
say "snakemake --profile profiles/slurm: corpus and tables local; 4 training jobs and 1 gate job submitted"
run_snakemake "$WORK/slurm.log" "$WORK/slurm" "${CONFIG[@]}" --profile "$WORK/profile-slurm" $TABLES $GATES
rc=$?
[ $rc = 0 ] || fail "snakemake through SLURM exited with $rc$(timed_out $rc)"
say "SLURM run done"

# ---- 7. the local reference run, in the background of step 8 ------------------
(cd "$WORK/local" && exec timeout -k 10 "$TIMEOUT" "${SMK[@]}" --directory "$WORK/local" "${CONFIG[@]}" --cores 2 \
    $TABLES "$REQUEUE_MODEL/summary.json") >"$WORK/local.log" 2>&1 &
LOCAL_PID=$! # leads its process group (timeout)

# ---- 8. one GPU training job, requeued mid-run ------------------------------
# profiles/slurm-gpu asks gpu=1 for `train`; train.device auto must fall back
# to the CPU on the fake GPU. Once its first checkpoint is on disk, the job is
# requeued (what preemption does); it must resume from that checkpoint.
(
    ckpt=$WORK/slurm/results/checkpoints/requeue/lstm_w24_s0
    for _ in $(seq 1 1500); do
        if [ -n "$(ls -A "$ckpt" 2>/dev/null)" ]; then
            id=$(squeue -h -t RUNNING -o '%i %k' | awk '$2 ~ /^rule_train_wildcards_requeue_/ {print $1}')
            if [ -n "$id" ] && scontrol requeue "$id"; then
                echo "$id" >"$WORK/requeued-jobid"
                echo "requeued job $id after checkpoint(s): $(ls "$ckpt" | tr '\n' ' ')"
                # SLURM holds a requeued job for 2 minutes (BeginTime); release it now.
                for _ in $(seq 1 100); do
                    state=$(squeue -h -j "$id" -o %T 2>/dev/null)
                    [ "$state" = RUNNING ] && break
                    [ "$state" = PENDING ] && scontrol update JobId="$id" StartTime=now 2>/dev/null
                    sleep 0.3
                done
                exit 0
            fi
        fi
        sleep 0.2
    done
    echo "no checkpoint of the requeue model seen; nothing requeued"
) >"$WORK/requeue.log" 2>&1 &
POLL_PID=$!
say "snakemake --profile profiles/slurm-gpu: one training job on the fake GPU, requeued mid-run"
run_snakemake "$WORK/slurm-gpu.log" "$WORK/slurm" "${CONFIG[@]}" "$WORK/gpu-config.yaml" --profile "$WORK/profile-slurm-gpu" "$REQUEUE_MODEL/summary.json"
rc=$?
stop_pid "requeue poller" "$POLL_PID" >/dev/null # done by now, unless nothing was requeued
POLL_PID=""
cat "$WORK/requeue.log"
[ $rc = 0 ] || fail "snakemake through SLURM (GPU profile) exited with $rc$(timed_out $rc)"
say "GPU/requeue run done"

wait "$LOCAL_PID"
rc=$?
LOCAL_PID=""
[ $rc = 0 ] || fail "the local reference run exited with $rc$(timed_out $rc)"
say "local run done"

# ---- 9. checks -----------------------------------------------------------------
"$PY" "$HERE/check.py" --slurm "$WORK/slurm" --local "$WORK/local" \
    --requeued-jobid "$(cat "$WORK/requeued-jobid" 2>/dev/null)" \
    --requeue-model "$REQUEUE_MODEL" >"$WORK/check.log" 2>&1
rc=$?
cat "$WORK/check.log"
[ $rc = 0 ] || fail "checks failed (see above)"
RESULT=PASS
echo "PASS: smoke tables through a real SLURM scheduler byte-identical to a local run;" \
    "GPU request scheduled on the fake GPU with a CPU fallback; requeued training resumed" \
    "byte-identical ($(($(date +%s) - T0)) s)"
