#!/bin/bash
# A throwaway one-node Slurm cluster (Debian 12's slurmctld, slurmd and
# munge; no systemd, no cgroups) with fake GPUs as gres, for the ladder's
# Slurm test. After ../shared/reference/slurm/ (measured on this kind of
# machine). Run as root.
#   cluster.sh up DIR [GPUS]   start it; prints "export SLURM_CONF=..."
#   cluster.sh down DIR        stop it by PID (never by name), remove DIR
set -euo pipefail
cmd=$1 D=$2 NGPU=${3:-4}
export SLURM_CONF=$D/etc/slurm.conf

down() {
    local ids f pid pids="" i
    ids=$(squeue -h -o %A 2>/dev/null || true)
    if [ -n "$ids" ]; then scancel $ids || true; sleep 1; fi
    for f in "$D/slurmd.pid" "$D/slurmctld.pid" "$D/munged.pid"; do
        [ -f "$f" ] || continue
        pid=$(cat "$f"); rm -f "$f"
        kill -0 "$pid" 2>/dev/null && kill "$pid" && pids="$pids $pid"
    done
    for pid in $pids; do
        for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    if [ -f "$D/created-run-munge" ]; then rmdir /run/munge 2>/dev/null || true; fi
    rm -rf "$D"
}

up() {
    local host mem i
    host=$(hostname -s)
    mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
    mkdir -p "$D"/etc "$D"/state "$D"/spool "$D"/log "$D"/fakegpu
    if [ ! -s /etc/munge/munge.key ]; then
        install -d -o munge -g munge -m 0700 /etc/munge
        runuser -u munge -- mungekey -c -k /etc/munge/munge.key
    fi
    if [ ! -d /run/munge ]; then
        install -d -o munge -g munge -m 0755 /run/munge
        touch "$D/created-run-munge"
    fi
    if ! munge -n </dev/null >/dev/null 2>&1; then
        runuser -u munge -- /usr/sbin/munged
        cp /run/munge/munged.pid "$D/munged.pid"
    fi
    # gres/gpu wants character devices; 195 is nvidia's major, unused here
    for ((i = 0; i < NGPU; i++)); do
        [ -c "$D/fakegpu/nvidia$i" ] || mknod "$D/fakegpu/nvidia$i" c 195 "$i"
    done
    printf 'AutoDetect=off\nNodeName=%s Name=gpu File=%s/fakegpu/nvidia[0-%d]\n' \
        "$host" "$D" $((NGPU - 1)) >"$D/etc/gres.conf"
    cat >"$D/etc/slurm.conf" <<CONF
ClusterName=graveyardtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
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
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=$mem Gres=gpu:$NGPU State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    slurmctld -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF"
    for i in $(seq 300); do
        sinfo -h -o %T 2>/dev/null | grep -qx idle && break
        sleep 0.1
    done
    sinfo -h -o %T | grep -qx idle || { echo "slurm: the node did not come up; see $D/log" >&2; return 1; }
    echo "export SLURM_CONF=$SLURM_CONF"
}

case $cmd in
up) up ;;
down) down ;;
*) echo "usage: cluster.sh up|down DIR [GPUS]" >&2; exit 2 ;;
esac
