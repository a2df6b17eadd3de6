#!/bin/bash
# The ladder under a real Slurm: a one-node cluster of our own with four
# fake GPUs, the demo ladder's four rungs as an sbatch --array job (one
# task per GPU, --gres=gpu:1, each task a --shard through Slurm's array
# variables), then one ladder that only buries. Checks: every rung ran
# exactly once, each server saw the CUDA_VISIBLE_DEVICES Slurm gave its
# task, every task completed, the bury is there; the cluster is stopped
# by PID afterwards. Skips (and says why) where Slurm cannot be had.
# Usage: run.sh BUILD_DIR. Ends with "slurm: N passed, M failed".
#
# Tests: orchestrator/cmd/cmd_ladder.c
# Tests: orchestrator/night/sched.c
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
skip() { echo "slurm: skipped: $*"; echo "slurm: 0 passed, 0 failed"; exit 0; }

[ "$(id -u)" = 0 ] || skip "not root (the cluster's daemons need it)"
for c in slurmctld slurmd sbatch munged; do
    command -v $c >/dev/null || skip "$c is not installed (scripts/deps.sh installs it)"
done
D=$(mktemp -d /tmp/graveyard-slurm-XXXXXX)
work=$(mktemp -d)
trap 'bash "$here/cluster.sh" down "$D" >/dev/null 2>&1; rm -rf "$work"' EXIT
if ! out=$(bash "$here/cluster.sh" up "$D" 4 2>&1); then
    echo "$out"
    skip "the cluster did not start"
fi
export SLURM_CONF=$D/etc/slurm.conf
ok=1
fail() { echo "  $*"; ok=0; }

cat >"$work/ladder.json" <<JSON
{"name": "slurm demo", "questions": "$root/configs/demo/questions.jsonl",
 "run_dir": "$work/run",
 "rungs": [
  {"name": "BF16", "model": "$root/configs/demo/BF16.gguf"},
  {"name": "Q8_0", "model": "$root/configs/demo/Q8_0.gguf"},
  {"name": "Q4_0", "model": "$root/configs/demo/Q4_0.gguf"},
  {"name": "Q2_K", "model": "$root/configs/demo/Q2_K.gguf"}],
 "server": {"binary": "$build/fake-llama-server"}}
JSON
cat >"$work/task.sh" <<SH
#!/bin/sh
#SBATCH --array=0-3
#SBATCH --gres=gpu:1
#SBATCH --output=$work/task-%a.out
# Slurm gives this task one GPU in CUDA_VISIBLE_DEVICES; the ladder's shard
# comes from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.
echo "task \$SLURM_ARRAY_TASK_ID gpu \$CUDA_VISIBLE_DEVICES"
exec "$build/graveyard" ladder "$work/ladder.json" --gpus "\$CUDA_VISIBLE_DEVICES" --quiet
SH
jid=$(sbatch --parsable "$work/task.sh") || { echo "  sbatch failed"; echo "slurm: 0 passed, 1 failed"; exit 1; }
for _ in $(seq 1200); do
    [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break
    sleep 0.1
done
[ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] || fail "the array did not finish in 120 s"
states=$(scontrol -o show job "$jid" | grep -oE 'JobState=[A-Z]+' | sort | uniq -c)
[ "$(echo "$states" | tr -s ' ')" = " 4 JobState=COMPLETED" ] || fail "tasks: $states"
rungs=(BF16 Q8_0 Q4_0 Q2_K)
for t in 0 1 2 3; do
    gpu=$(sed -n 's/^task [0-9]* gpu \(.*\)$/\1/p' "$work/task-$t.out")
    log=$work/run/logs/${rungs[$t]}.server.log
    [ -n "$gpu" ] || fail "task $t saw no GPU"
    # run once: as many servers in the log as the one run that finished
    # the rung started (Q2_K's server is restarted on a question)
    starts=$(grep -o '"server_starts": [0-9]*' "$work/run/rows/${rungs[$t]}.done" | grep -o '[0-9]*$')
    [ "$(grep -c 'server is listening' "$log" 2>/dev/null)" = "$starts" ] || fail "${rungs[$t]}: not run exactly once"
    grep -q "fake: CUDA_VISIBLE_DEVICES=$gpu\$" "$log" || fail "${rungs[$t]}: the server did not see GPU $gpu"
done
"$build/graveyard" ladder "$work/ladder.json" --quiet >"$work/bury.out" || fail "the bury run: exit $?"
grep -q '"tombstones"' "$work/bury.out" || fail "no bury"
if [ $ok = 1 ]; then echo "ok   slurm array of 4 tasks on 4 fake GPUs"; echo "slurm: 1 passed, 0 failed"
else echo "FAIL slurm"; echo "slurm: 0 passed, 1 failed"; exit 1; fi
