#!/bin/bash
# A real Slurm on this machine: starts munged, slurmctld and slurmd with a minimal slurm.conf in a private
# folder, runs a 2-task array campaign (scripts/slurm/kforge-array.sbatch) on the host backend against the
# scripted mock server, cancels one task mid-run (scancel), requeues it, and checks that the run folder ends
# with every unit done once and nothing recorded twice (`kforge status`). Exits 77 (CTest: skipped) with
# the reason where Slurm or munge cannot run here.
#   tests/cluster/slurm_array_test.sh KFORGE_BIN_DIR SOURCE_DIR
set -uo pipefail
BIN=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
KFORGE=$BIN/kforge

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [[ -n "${D:-}" ]] && echo "(state kept in $D)"; KEEP=1; exit 1; }

for p in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol sinfo; do
  command -v "$p" >/dev/null 2>&1 || skip "$p is not installed (Debian packages slurm-wlm and munge)"
done
PY=${KFORGE_PYTHON:-}
if [[ -z $PY ]]; then
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import torch' >/dev/null 2>&1; then PY=$(command -v "$candidate"); break; fi
  done
fi
[[ -n $PY ]] && "$PY" -c 'import torch' >/dev/null 2>&1 || skip "no python3 with torch for the oracle (set KFORGE_PYTHON)"
[[ -x $KFORGE ]] || fail "no kforge binary at $KFORGE"

D=$(mktemp -d /tmp/kforge-slurm.XXXXXX)
chmod 755 "$D"
KEEP=0
JOB=""
MOCK_PID=""
cleanup() {
  [[ -n $JOB ]] && SLURM_CONF=$D/slurm.conf scancel "$JOB" >/dev/null 2>&1
  sleep 1
  local pids=()
  for f in "$D/slurmd.pid" "$D/slurmctld.pid" "$D/munge/munged.pid"; do
    [[ -s $f ]] && pids+=("$(cat "$f")")
  done
  [[ -n $MOCK_PID ]] && pids+=("$MOCK_PID")
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for _ in $(seq 1 40); do
    local alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive == 0)) && break
    sleep 0.25
  done
  wait 2>/dev/null
  [[ $KEEP == 0 ]] && rm -rf "$D"
}
trap cleanup EXIT

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for SECONDS COMMAND...: true once COMMAND succeeds
  local until=$((SECONDS + $1)); shift
  while ((SECONDS < until)); do "$@" && return 0; sleep 0.5; done
  return 1
}

# ---- munge ----
mkdir -p "$D/munge" "$D/state" "$D/spool" "$D/log"
chmod 711 "$D/munge"
mungekey -c -k "$D/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$D/munge/munge.key"
SOCK=$D/munge/munge.socket
munged --socket="$SOCK" --key-file="$D/munge/munge.key" --pid-file="$D/munge/munged.pid" \
  --log-file="$D/munge/munged.log" --seed-file="$D/munge/seed" --force >/dev/null 2>&1 ||
  skip "munged does not start here: $(tail -2 "$D/munge/munged.log" 2>/dev/null)"
wait_for 10 test -S "$SOCK" || skip "munged made no socket"

# ---- slurmctld, slurmd ----
HOST=$(hostname -s)
USER_NAME=$(id -un)
CPUS=$(nproc)
cat >"$D/slurm.conf" <<CONF
ClusterName=kforgetest
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=$USER_NAME
SlurmdUser=$USER_NAME
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobRequeue=1
KillWait=5
MinJobAge=600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -f "$SLURM_CONF" -i >/dev/null 2>&1 || skip "slurmctld does not start here: $(tail -3 "$D/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || skip "slurmd does not start here: $(tail -3 "$D/log/slurmd.log" 2>/dev/null)"
node_idle() { [[ $(sinfo -h -N -o %T 2>/dev/null) == idle* ]]; }
wait_for 60 node_idle || skip "the Slurm node never became idle: $(tail -3 "$D/log/slurmd.log" 2>/dev/null)"
echo "slurm up in $D ($CPUS CPUs)"

# ---- the mock model server and a configuration pointing at it ----
"$PY" - "$SRC/configs/problems/demo/mock-host.json" "$D/script.json" <<'PYEOF'
import json, sys
script = json.load(open(sys.argv[1]))
for e in script["entries"]:
    e["delay_s"] = 1.0  # slow enough to cancel a task mid-run
    e["usage"] = {"input": 1000, "output": 50, "reasoning": 0}
json.dump(script, open(sys.argv[2], "w"))
PYEOF
"$KFORGE" mock-server --script "$D/script.json" --port 0 --port-file "$D/port" >"$D/mock.log" 2>&1 &
MOCK_PID=$!
wait_for 20 test -s "$D/port" || fail "mock server did not start: $(cat "$D/mock.log")"
"$PY" - "$D/config.json" "$(cat "$D/port")" <<'PYEOF'
import json, sys
json.dump({"name": "slurm-demo", "provider": "openai-chat", "base_url": f"http://127.0.0.1:{sys.argv[2]}/v1",
           "api_key_env": "", "model": "test-model",
           "generation": {"max_output_tokens": 2048, "stream": True},
           "timeouts": {"connect_s": 2, "idle_s": 30, "total_s": 60},
           "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "max_backoff_s": 0.05, "multiplier": 2.0, "jitter": 0.0},
           "rate_limits": {"requests_per_minute": 0, "tokens_per_minute": 0, "max_concurrent": 1},
           "prices": {"input": 1000.0, "cached_input": 1000.0, "output": 0.0, "reasoning": 0.0},
           "loop": {"turns": 1, "samples": 3, "stop_at_first_correct": True, "keep_last_attempts": 0}},
          open(sys.argv[1], "w"))
PYEOF

# ---- the array campaign: 3 problems x 3 samples = 9 units over 2 tasks ----
RUN=$D/run
JOB=$(KFORGE_RUN=$RUN KFORGE=$KFORGE KFORGE_BACKEND=host KFORGE_ARGS="--timing-budget-ms 1" KFORGE_PYTHON=$PY \
  XDG_CACHE_HOME=$D/cache sbatch --parsable --array=0-1 --gres=none --cpus-per-task=1 --time=00:10:00 \
  --output="$D/task-%a.out" --export=ALL "$SRC/scripts/slurm/kforge-array.sbatch" \
  --config "$D/config.json" --problems "$SRC/configs/problems/demo") || fail "sbatch refused the array job"
JOB=${JOB%%;*}
echo "array job $JOB submitted"

state() { squeue -h -t all -j "$1" -o %T 2>/dev/null | head -1; }
shard1_started() { [[ -f $RUN/evaluations.shard-1-of-2.jsonl ]] && grep -q '"kind":"evaluation"' "$RUN/evaluations.shard-1-of-2.jsonl"; }
wait_for 180 shard1_started || fail "task 1 recorded no evaluation: $(cat "$D"/task-1.out 2>/dev/null)"
[[ $(state "${JOB}_1") == RUNNING ]] || fail "task 1 finished before it could be cancelled; slow the mock server down"
before=$(grep -c '"kind":"unit_done"' "$RUN/evaluations.shard-1-of-2.jsonl")
echo "cancelling task 1 mid-run ($before units of its shard done)"
scancel "${JOB}_1"
# The task ends CANCELLED, or FAILED when its script's signal handler exits first; either may be requeued.
cancelled() { [[ $(state "${JOB}_1") =~ ^(CANCELLED|FAILED)$ ]]; }
wait_for 60 cancelled || fail "task 1 is $(state "${JOB}_1") after scancel"
# squeue may still show the ended state for a moment after the requeue (and a task still completing refuses
# it): requeue until the task is no longer CANCELLED or FAILED, else "finished" below would hold at once.
requeued() { cancelled && { scontrol requeue "${JOB}_1" >/dev/null 2>&1; return 1; }; return 0; }
wait_for 60 requeued || fail "task 1 is still $(state "${JOB}_1") after scontrol requeue"
# Slurm holds a requeued job for a while before it is eligible again; the test does not wait for that.
scontrol update JobId="${JOB}_1" StartTime=now >/dev/null 2>&1
finished() { [[ -z $(squeue -h -j "$JOB" -t pending,running,completing,configuring 2>/dev/null) ]]; }
wait_for 400 finished || fail "the array did not finish: $(squeue -t all -j "$JOB")"

for t in 0 1; do
  [[ $(state "${JOB}_$t") == COMPLETED ]] || fail "task $t ended $(state "${JOB}_$t"): $(tail -20 "$D/task-$t.out")"
done
grep -q "restart 1" "$D/task-1.out" || fail "task 1 never ran again after the requeue: $(cat "$D/task-1.out")"

"$KFORGE" status "$RUN" --json >"$D/status.json" || fail "kforge status says something was recorded twice: $("$KFORGE" status "$RUN")"
"$PY" - "$D/status.json" <<'PYEOF' || fail "$("$KFORGE" status "$RUN")"
import json, sys
s = json.load(open(sys.argv[1]))
t = s["total"]
assert t["units"] == 9 and t["units_done"] == 9, t
assert t["evaluations"] == 9, t
assert not s["duplicates"], s["duplicates"]
assert sorted(x["shard"] for x in s["shards"]) == ["0/2", "1/2"], s["shards"]
PYEOF
"$KFORGE" report "$RUN" --format json >"$D/report.json" || fail "kforge report failed"
"$KFORGE" status "$RUN"
echo "PASS: 9 units over 2 array tasks, task 1 cancelled and requeued, each unit done once"
