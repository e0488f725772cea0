#!/bin/bash
# Throw-away single-node Slurm cluster (munged + slurmctld + slurmd) for tests
# of the Slurm job-array backend.  Everything it creates -- munge key and
# socket, slurm.conf, state, spool, pid and log files -- lives in one
# directory, so it never touches /etc/slurm, /etc/munge or /run/munge, and two
# runs in different directories do not collide (TCP ports are picked free at
# start).  Needs root (the daemons run as root) and Debian's slurm-wlm + munge.
#
# Usage from a test (`eval "$(... start ...)"` alone would hide a failure):
#   trap 'tests/sweep/local-slurm.sh stop "$DIR"' EXIT
#   env=$(tests/sweep/local-slurm.sh start "$DIR") || exit 1
#   eval "$env"                                        # exports SLURM_CONF
#   id=$(sbatch --parsable --array=0-3 ...); squeue -h -j "$id" -o '%i %T'
#   tests/sweep/local-slurm.sh status "$DIR"           # exit 0 if it answers
#   tests/sweep/local-slurm.sh stop "$DIR"             # idempotent
#
# `start` prints exactly one line on stdout, `export SLURM_CONF=DIR/slurm.conf`;
# diagnostics go to stderr.  On failure it prints daemon log tails, stops
# whatever it started and exits non-zero.  `stop` cancels all jobs and kills
# every process of the cluster, also after a half-finished start.
#
# Accounting: Slurm 22.05 can only store accounting data through slurmdbd, so
# plain `sacct` fails here ("Slurm accounting storage is disabled", exit 1).
# Finished jobs are logged by jobcomp/filetxt to DIR/jobcomp.txt (one line per
# job / array task, with ArrayJobId, ArrayTaskId, JobState and ExitCode), which
# `sacct --completion` reads, though it reports array tasks by their internal
# job ids only.  Until MinJobAge (300 s) has passed, `squeue -t all -j ID` and
# `scontrol show job ID` also show final states.
#
# Knobs (environment): LOCAL_SLURM_SBIN / LOCAL_SLURM_BIN (daemon / client
# directories, default /usr/sbin and /usr/bin), LOCAL_SLURM_TIMEOUT (seconds
# to wait for the node to become usable, default 60).
set -euo pipefail
set +m # background jobs must not become process group leaders (see launch)

SBIN=${LOCAL_SLURM_SBIN:-/usr/sbin}
BIN=${LOCAL_SLURM_BIN:-/usr/bin}
READY_TIMEOUT=${LOCAL_SLURM_TIMEOUT:-60}
# Tests may run with a minimal PATH; the helpers below need coreutils & co.
export PATH="/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin${PATH:+:$PATH}"

# Every daemon gets this variable in its environment, so `stop` can find the
# processes of *this* cluster (and only those) without relying on pid files.
MARKER_VAR=LOCAL_SLURM_CLUSTER_DIR

log() { printf 'local-slurm: %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}
usage() {
    echo "usage: $0 start|stop|status DIR" >&2
    exit 2
}

# --- processes --------------------------------------------------------------

# Zombies count as dead: they wait for init to reap them, which we cannot do.
alive() {
    local st
    [[ -n ${1:-} ]] || return 1
    # (`read`, not `$(<file)`: the latter aborts the script under set -e.)
    { read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
    st=${st##*) }
    [[ ${st:0:1} != Z ]]
}

pid_from_file() {
    local p=
    [[ -r $1 ]] && p=$(tr -dc '0-9' <"$1" 2>/dev/null || true)
    [[ -z $p ]] || echo "$p"
}

# Is $1 a live process of this cluster?  (Pid files may name recycled pids.)
ours() { alive "$1" && grep -qszxF -- "$MARKER_VAR=$DIR" "/proc/$1/environ"; }

# Pids of this cluster's daemons and job steps.  slurmstepd wipes its
# environment (to set its process title) and re-parents itself to init, so
# our steps are recognised by the slurmd log file they keep open instead.
cluster_pids() {
    # One grep/find over /proc is much faster than a loop forking per process.
    grep -lszxF -- "$MARKER_VAR=$DIR" /proc/[0-9]*/environ 2>/dev/null |
        cut -d/ -f3 | grep -vx "$$" || true
    local p
    for p in $(find /proc/[0-9]*/exe -maxdepth 0 -printf '%p %l\n' 2>/dev/null |
        awk '$2 ~ /\/slurmstepd[^\/]*$/ { split($1, a, "/"); print a[3] }'); do
        if find "/proc/$p/fd" -mindepth 1 -maxdepth 1 -printf '%l\n' 2>/dev/null |
            grep -qxF -e "$DIR/slurmd.log" -e "$DIR/slurmd.log (deleted)"; then
            echo "$p"
        fi
    done
}

# The given pids plus all their descendants (job processes below slurmstepd,
# slurmscriptd below slurmctld), one per line, without duplicates.
with_descendants() {
    [[ $# -gt 0 ]] || return 0
    ps -e -o pid=,ppid= 2>/dev/null | awk -v roots="$*" '
        { parent[$1] = $2; pids[++n] = $1 }
        END {
            k = split(roots, r, " ")
            for (i = 1; i <= k; i++) if (!(r[i] in keep)) { keep[r[i]] = 1; print r[i] }
            do {
                changed = 0
                for (i = 1; i <= n; i++) {
                    p = pids[i]
                    if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; changed = 1; print p }
                }
            } while (changed)
        }'
}

# Waits up to $1 seconds until none of the pids is alive; prints the rest.
wait_gone() {
    local deadline=$((SECONDS + $1)) p
    shift
    local -a left=("$@")
    while [[ ${#left[@]} -gt 0 ]]; do
        local -a still=()
        for p in "${left[@]}"; do alive "$p" && still+=("$p"); done
        left=("${still[@]+"${still[@]}"}")
        if [[ ${#left[@]} -eq 0 ]] || ((SECONDS >= deadline)); then break; fi
        sleep 0.1
    done
    [[ ${#left[@]} -eq 0 ]] || printf '%s\n' "${left[@]}"
}

# SIGTERM the pids, wait up to $1 seconds, then SIGKILL what is left and
# wait (briefly) until it is really gone.  slurmstepd ignores SIGTERM, so it
# gets SIGKILL right away; its job processes are in the list as well.
terminate() {
    local wait_s=$1 p
    shift
    local -a term=() left=()
    for p in "$@"; do
        alive "$p" || continue
        if [[ $(readlink "/proc/$p/exe" 2>/dev/null) == */slurmstepd* ]]; then
            kill -KILL "$p" 2>/dev/null || true
        else
            kill -TERM "$p" 2>/dev/null || true
        fi
        term+=("$p")
    done
    [[ ${#term[@]} -gt 0 ]] || return 0
    mapfile -t left < <(wait_gone "$wait_s" "${term[@]}")
    [[ ${#left[@]} -gt 0 ]] || return 0
    for p in "${left[@]}"; do
        log "pid $p ($(cat "/proc/$p/comm" 2>/dev/null)) ignored SIGTERM, sending SIGKILL"
        kill -KILL "$p" 2>/dev/null || true
    done
    mapfile -t left < <(wait_gone 3 "${left[@]}")
    [[ ${#left[@]} -eq 0 ]] || log "pids ${left[*]} survived SIGKILL"
    return 0
}

# Start a daemon in foreground mode, in its own session, with a clean
# environment.  Inherited file descriptors are closed: a daemon holding the
# caller's stdout or some other pipe open would make `$(local-slurm.sh start)`
# or a test runner wait for EOF forever.
launch() {
    local name=$1
    shift
    (
        for fd in /proc/"$BASHPID"/fd/*; do
            fd=${fd##*/}
            if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
        done
        exec env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C \
            "$MARKER_VAR=$DIR" SLURM_CONF="$DIR/slurm.conf" \
            setsid "$@" </dev/null >>"$DIR/$name.out" 2>&1
    ) &
    echo $!
}

# --- ports ------------------------------------------------------------------

port_in_use() {
    local hex
    hex=$(printf '%04X' "$1")
    # Any TCP socket with this local port, in any state.
    if cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v h="$hex" '{ split($2, a, ":"); if (a[2] == h) f = 1 } END { exit !f }'; then
        return 0
    fi
    # Also ask the kernel, in case /proc/net/tcp is not available.
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A free port below the usual ephemeral range (32768+), so that no outgoing
# connection takes it between the probe and the daemon's bind.
free_port() {
    local p i
    for ((i = 0; i < 200; i++)); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
        [[ " $* " == *" $p "* ]] && continue
        port_in_use "$p" || {
            echo "$p"
            return 0
        }
    done
    return 1
}

# --- slurm helpers ----------------------------------------------------------

# Client commands retry for several seconds when slurmctld is gone; bound them.
client() {
    local t=$1
    shift
    SLURM_CONF=$DIR/slurm.conf timeout -k 2 "$t" "$@"
}

munge_ok() {
    [[ -S $DIR/munge.sock ]] &&
        "$BIN/munge" -n -S "$DIR/munge.sock" 2>/dev/null |
        "$BIN/unmunge" -S "$DIR/munge.sock" >/dev/null 2>&1
}

# `scontrol ping` fails fast when slurmctld is down (sinfo retries ~9 s).
ctld_ok() { client 5 "$BIN/scontrol" ping 2>/dev/null | grep -q 'is UP'; }

node_usable() {
    local st
    st=$(client 5 "$BIN/sinfo" -h -o %T 2>/dev/null) || return 1
    case $st in
    idle | mixed | allocated | completing) return 0 ;;
    *) return 1 ;;
    esac
}

wait_for() { # seconds pid-to-watch what command...
    local t=$1 pid=$2 what=$3
    shift 3
    local deadline=$((SECONDS + t))
    until "$@"; do
        alive "$pid" || {
            log "$what exited during start-up"
            return 1
        }
        ((SECONDS < deadline)) || {
            log "$what not ready after ${t}s"
            return 1
        }
        sleep 0.1
    done
}

dump_logs() {
    local f
    for f in munged.out slurmctld.out slurmd.out; do
        [[ -s $DIR/$f ]] || continue
        echo "----- tail of $DIR/$f -----" >&2
        # Skip the harmless complaints about the missing PMIx library and
        # the (always absent) saved state of a fresh cluster.
        grep -vE 'pmix|MPI: Cannot create|state file|NOTE: Trying backup' "$DIR/$f" |
            tail -n 25 >&2 || true
    done
}

write_conf() {
    local host=$1 ctld_port=$2 slurmd_port=$3 cpus mem_mb
    cpus=$(nproc)
    # Must not exceed what slurmd detects or the node gets drained.  Memory is
    # not a consumable resource with CR_CPU, so a conservative value is fine.
    mem_mb=$(awk '/^MemAvailable:/ { m = int($2 / 1024 / 2) } END { print (m > 0 ? m : 1) }' /proc/meminfo)
    : >"$DIR/plugstack.conf" # keep slurm away from /etc/slurm/plugstack.conf
    cat >"$DIR/slurm.conf" <<EOF
# Generated by local-slurm.sh for a throw-away test cluster.
ClusterName=localtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge.sock
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$DIR/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/jobcomp.txt
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
# Try to start batch jobs at submission, not up to 3 s later.
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

# --- commands ---------------------------------------------------------------

cmd_stop() {
    local ctld p
    ctld=$(pid_from_file "$DIR/slurmctld.pid")
    ours "$ctld" || ctld=

    # Cancel jobs first so that slurmstepd cleans up the job processes.
    if [[ -n $ctld && -r $DIR/slurm.conf ]]; then
        local ids
        ids=$(client 5 "$BIN/squeue" -h -o %A 2>/dev/null | sort -u | tr '\n' ' ' || true)
        if [[ -n ${ids// /} ]]; then
            # shellcheck disable=SC2086 # a list of numbers
            client 5 "$BIN/scancel" $ids 2>/dev/null || true
            local deadline=$((SECONDS + 10))
            while ((SECONDS < deadline)); do
                [[ -z $(client 5 "$BIN/squeue" -h -o %A 2>/dev/null || true) ]] && break
                sleep 0.2
            done
        fi
    fi

    # Collect the whole tree before killing anything: killed parents hand
    # their children to init.
    local -a roots=() all=() scriptd=() first=()
    for p in $(pid_from_file "$DIR/slurmd.pid") "$ctld" $(pid_from_file "$DIR/munged.pid"); do
        ours "$p" && roots+=("$p")
    done
    mapfile -t -O "${#roots[@]}" roots < <(cluster_pids)
    [[ ${#roots[@]} -gt 0 ]] || {
        rm -f "$DIR"/{slurmd,slurmctld,munged}.pid
        return 0
    }
    mapfile -t all < <(with_descendants "${roots[@]}")
    # slurmctld stops its slurmscriptd child itself, and hangs on shutdown
    # when that child is killed first; leave it out of the first round.
    [[ -z $ctld ]] || mapfile -t scriptd < <(with_descendants "$ctld" | tail -n +2)
    for p in "${all[@]}"; do
        [[ " ${scriptd[*]} " == *" $p "* ]] || first+=("$p")
    done
    # All at once: the daemons shut down in parallel (each takes 1-2 s).
    terminate 10 "${first[@]}"

    # Stragglers, including anything that appeared meanwhile.
    local -a rest=()
    mapfile -t rest < <(cluster_pids)
    rest+=(${scriptd[@]+"${scriptd[@]}"})
    if [[ ${#rest[@]} -gt 0 ]]; then
        mapfile -t rest < <(with_descendants "${rest[@]}")
        terminate 2 "${rest[@]}"
    fi
    rm -f "$DIR"/{slurmd,slurmctld,munged}.pid
    return 0
}

cmd_status() {
    [[ -r $DIR/slurm.conf ]] && ctld_ok && client 10 "$BIN/sinfo" -h -o %T >/dev/null 2>&1
}

start_exit() {
    local rc=$?
    trap - EXIT
    if ((rc != 0)); then
        dump_logs
        log "start failed, stopping what was started"
        cmd_stop
    fi
    exit "$rc"
}

cmd_start() {
    [[ $(id -u) -eq 0 ]] || die "must run as root (the daemons run as root here)"
    local b
    for b in "$SBIN/munged" "$SBIN/slurmctld" "$SBIN/slurmd" "$BIN/munge" "$BIN/unmunge" \
        "$BIN/sinfo" "$BIN/scontrol" "$BIN/squeue" "$BIN/scancel"; do
        [[ -x $b ]] || die "$b not found (needs slurm-wlm and munge)"
    done
    mkdir -p "$DIR"
    DIR=$(cd "$DIR" && pwd -P)
    local host
    host=$(hostname -s 2>/dev/null || uname -n)
    host=${host%%.*}
    [[ -n $host ]] || die "cannot determine the host name"
    # Unix socket paths are limited to 107 bytes; the longest one is a job
    # step socket, DIR/spool/<node>_<jobid>.<stepid>.
    ((${#DIR} + ${#host} + 27 <= 107)) ||
        die "path too long for unix sockets, use a shorter directory: $DIR"
    if ours "$(pid_from_file "$DIR/slurmctld.pid")"; then
        die "a cluster is already running in $DIR (stop it first)"
    fi

    # From here on, any failure or interruption tears down what was started.
    trap start_exit EXIT
    trap 'exit 130' INT TERM

    # Leftovers of an earlier, failed run in the same DIR.
    cmd_stop
    rm -rf "$DIR/state" "$DIR/spool" "$DIR"/munge.* "$DIR"/munged.* \
        "$DIR"/slurmctld.* "$DIR"/slurmd.* "$DIR/jobcomp.txt"
    mkdir -p "$DIR/state" "$DIR/spool"

    # munged refuses a socket directory that is not world-executable (as
    # mktemp -d makes it); --force turns that into a warning.  In foreground
    # mode it logs to stderr, i.e. DIR/munged.out.
    mungekey --create --bits=1024 --keyfile="$DIR/munge.key" 2>/dev/null ||
        dd if=/dev/urandom of="$DIR/munge.key" bs=128 count=1 status=none
    chmod 0400 "$DIR/munge.key"
    local mpid
    mpid=$(launch munged "$SBIN/munged" --foreground --force \
        --socket="$DIR/munge.sock" --key-file="$DIR/munge.key" \
        --pid-file="$DIR/munged.pid" --log-file="$DIR/munged.log" \
        --seed-file="$DIR/munged.seed")
    wait_for 10 "$mpid" munged munge_ok

    # A concurrent run may grab a port between probe and bind; the daemons
    # then exit with "Address already in use" and we retry with new ports.
    local attempt cpid dpid ctld_port slurmd_port
    for attempt in 1 2 3; do
        ctld_port=$(free_port) || die "no free TCP port found"
        slurmd_port=$(free_port "$ctld_port") || die "no free TCP port found"
        write_conf "$host" "$ctld_port" "$slurmd_port"
        rm -f "$DIR"/slurmctld.* "$DIR"/slurmd.*
        log "slurmctld port $ctld_port, slurmd port $slurmd_port, node $host"

        # -D: foreground, so the pid is ours from the start; -i: ignore
        # unreadable state (there is none).
        cpid=$(launch slurmctld "$SBIN/slurmctld" -D -i -f "$DIR/slurm.conf")
        if ! wait_for 30 "$cpid" slurmctld ctld_ok; then
            ((attempt < 3)) && grep -qs 'Address already in use' "$DIR/slurmctld.out" &&
                terminate 5 "$cpid" && continue
            return 1
        fi
        # -N: run as this node even if the host name does not resolve.
        dpid=$(launch slurmd "$SBIN/slurmd" -D -N "$host" -f "$DIR/slurm.conf")
        if ! wait_for "$READY_TIMEOUT" "$dpid" "slurmd (node $host)" node_usable; then
            ((attempt < 3)) && grep -qs 'Address already in use' "$DIR/slurmd.out" &&
                terminate 5 "$dpid" "$cpid" && continue
            client 5 "$BIN/sinfo" -N -l >&2 || true
            return 1
        fi
        break
    done

    trap - EXIT INT TERM
    log "cluster up in $DIR"
    echo "export SLURM_CONF=$DIR/slurm.conf"
}

[[ $# -eq 2 && -n $2 ]] || usage
DIR=$2
case $1 in
start) cmd_start ;;
stop)
    # Works on a deleted DIR too (e.g. a test that wipes its work directory
    # before stopping): the daemons are still found by their marker.
    if [[ -d $DIR ]]; then
        DIR=$(cd "$DIR" && pwd -P)
    elif [[ $DIR != /* ]]; then
        DIR=$PWD/$DIR
    fi
    DIR=${DIR%/}
    cmd_stop
    ;;
status)
    [[ -d $DIR ]] || exit 1
    DIR=$(cd "$DIR" && pwd -P)
    cmd_status
    ;;
*) usage ;;
esac
