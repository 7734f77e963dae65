#!/usr/bin/env bash
# The measurements of the book's "Beyond one core" (docs/src/beyond-one-core.md): stage 5's
# echo server on N event loops (`echo_server --plain --loops N`) beside tokio's
# current_thread runtime and its multi-thread runtime with N worker threads, driven by K
# load generators (`loadgen`), each on a core of its own.
#
#   bash bench/loops.sh                      this machine, with the defaults below
#   QUICK=1 bash bench/loops.sh              one short round: proves that the script works
#   LOOPS="1 2 4 8" CONNS="100 1000" ROUNDS=5 bash bench/loops.sh
#
# Settings (environment variables); the defaults, on a machine of P cores:
#   LOOPS        the N to measure        1, 2, 4 ... up to the server's cores (at least 1 2)
#   CONNS        the connection counts   100 1000
#   SERVERS      which servers           stage5 tokio-ct tokio-mt (tokio-ct at N = 1 only)
#   SERVER_CPUS  the server's cores      the first half (P < 4: core 0); N loops or workers
#                                        run on the first N of them, or on all of them if
#                                        there are fewer (then they share cores)
#   CLIENT_CPUS  the generators' cores   the second half (P < 4: cores 1 to P-1)
#   K            load generators         one per client core (8 on 16 cores, 1 on 2); the
#                                        connections are split between them, their results
#                                        summed (latencies: the worst generator's)
#   ROUNDS       rounds                  5; every configuration once per round, same order
#   SECS, WARMUP seconds measured, and of warm-up, per run       4 and 1
#   COUNTS=1     also count the server's system calls over the window (perf stat on the
#                kernel's syscall tracepoints; needs perf and the permission to use it)
#   RUN          the run's number in the results (to merge several runs into one file)  1
#   OUT          where the results go    target/loops (results.jsonl, report.md, loops.svg)
#   BIN_DIR      take prebuilt release binaries from this folder instead of building them
#                (for a machine with no cargo): loadgen, bench-tokio, bench-tokio-mt and
#                stage 5's example echo_server; COMMIT names the commit they were built at
#
# On a lent machine with no cargo, from binaries built here:
#
#   cargo build --release -p loadgen -p bench --bins
#   cargo build --release -p stage5 --example echo_server
#   mkdir -p bench-bin && cp target/release/{loadgen,bench-tokio,bench-tokio-mt} \
#       target/release/examples/echo_server bench-bin/
#   BIN_DIR=bench-bin COMMIT=$(git rev-parse --short HEAD) ROUNDS=3 SECS=3 OUT=DIR \
#       bash bench/loops.sh          (16 cores: LOOPS 1 2 4 8, 18 runs a round, 5 minutes)
#
# Each run: the server starts, pinned with taskset, listening on 127.0.0.1 only, under
# `timeout`; the K generators start together, each pinned to its own core; the server's CPU
# time (user + system, /proc/PID/stat) is read over one window that lies inside every
# generator's measured window (from WARMUP + 0.5 s after they start to SECS - 1 s later),
# user and system time apart, with the context switches of all its threads;
# then the server is stopped by its own PID (SIGTERM: stage 5 shuts down gracefully and
# says how many connections each loop accepted). Every generator is bounded in time and in
# connections. One JSON object per run goes to OUT/results.jsonl, with the field names of
# bench/measured/loops-16-cores.jsonl; the tables (medians, ranges over rounds, same-round
# ratios, the model beside the measurements) to stdout and OUT/report.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/listening.sh
say() { printf '%s\n' "$*" >&2; }
if [ "$(uname -s)" != Linux ] || ! command -v taskset >/dev/null || [ "$(nproc)" -lt 2 ]; then
    # The pinning and the /proc readings are the measurement: without them, stop.
    say "bench/loops.sh needs Linux, taskset and at least 2 cores"
    exit 1
fi

# The machine first: what every figure below depends on.
CORES=$(nproc)
lscpu_field() { lscpu | sed -n "s/^$1:[[:space:]]*//p" | head -1; }
MODEL=$(lscpu_field 'Model name')
KIND=machine
[ -n "$(lscpu_field 'Hypervisor vendor')" ] && KIND="virtual machine"
MACHINE="$CORES-core $(uname -m) $KIND ($MODEL), Linux $(uname -r)"
echo "# bench/loops.sh on a $MACHINE"
echo
echo '```text'
echo "nproc: $CORES"
lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA node|L[123]|Hypervisor)' || true
echo
lscpu -e=CPU,CORE,SOCKET,NODE 2>/dev/null || true
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo '```'
echo

cpu_list() { # "0-3,8 9" -> "0 1 2 3 8 9"
    local part core out=()
    for part in ${1//,/ }; do
        if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
            for ((core = BASH_REMATCH[1]; core <= BASH_REMATCH[2]; core++)); do out+=("$core"); done
        elif [[ $part =~ ^[0-9]+$ ]]; then
            out+=("$part")
        else
            say "not a core list: $1"
            exit 2
        fi
    done
    echo "${out[*]}"
}
if [ "$CORES" -ge 4 ]; then
    half=$((CORES / 2))
    read -ra SCPUS <<<"$(cpu_list "${SERVER_CPUS:-0-$((half - 1))}")"
    read -ra CCPUS <<<"$(cpu_list "${CLIENT_CPUS:-$half-$((CORES - 1))}")"
else
    read -ra SCPUS <<<"$(cpu_list "${SERVER_CPUS:-0}")"
    read -ra CCPUS <<<"$(cpu_list "${CLIENT_CPUS:-1-$((CORES - 1))}")"
fi
K=${K:-${#CCPUS[@]}}
if [ "$K" -lt 1 ] || [ "$K" -gt "${#CCPUS[@]}" ]; then
    say "K=$K: there are ${#CCPUS[@]} client cores (CLIENT_CPUS), one per generator"
    exit 2
fi
if [ -z "${LOOPS:-}" ]; then
    LOOPS="1 2"
    for ((n = 4; n <= ${#SCPUS[@]}; n *= 2)); do LOOPS="$LOOPS $n"; done
fi
CONNS=${CONNS:-100 1000}
SERVERS=${SERVERS:-stage5 tokio-ct tokio-mt}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-4}
WARMUP=${WARMUP:-1}
RUN=${RUN:-1}
COUNTS=${COUNTS:-0}
if [ -n "${QUICK:-}" ]; then
    ROUNDS=1 SECS=2 WARMUP=0.5
fi
WINDOW=$(awk -v s="$SECS" 'BEGIN { w = s - 1; if (w < 0.5) w = 0.5; print w }')
OUT=${OUT:-target/loops}
BIN=$OUT/bin
mkdir -p "$BIN"
RESULTS=$OUT/results.jsonl
: >"$RESULTS"
for c in $CONNS; do
    if [ "$c" -lt "$K" ] || [ "$c" -gt 100000 ]; then
        say "CONNS: $c connections for $K generators (at most 100,000)"
        exit 2
    fi
done

if [ -n "${BIN_DIR:-}" ]; then
    for bin in loadgen bench-tokio bench-tokio-mt echo_server; do
        [ -x "$BIN_DIR/$bin" ] || { say "BIN_DIR=$BIN_DIR has no $bin"; exit 2; }
    done
    cp "$BIN_DIR/loadgen" "$BIN_DIR/bench-tokio" "$BIN_DIR/bench-tokio-mt" "$BIN/"
    cp "$BIN_DIR/echo_server" "$BIN/stage5-echo_server"
else
    say "== build (release)"
    cargo build -q --release -p loadgen -p bench --bins
    cargo build -q --release -p stage5 --example echo_server
    T=${CARGO_TARGET_DIR:-target}
    cp "$T/release/loadgen" "$T/release/bench-tokio" "$T/release/bench-tokio-mt" "$BIN/"
    cp "$T/release/examples/echo_server" "$BIN/stage5-echo_server"
fi
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "Settings: LOOPS=\"$LOOPS\" CONNS=\"$CONNS\" SERVERS=\"$SERVERS\"" \
    "SERVER_CPUS=${SCPUS[*]} CLIENT_CPUS=${CCPUS[*]} K=$K ROUNDS=$ROUNDS SECS=$SECS" \
    "WARMUP=$WARMUP (server CPU over $WINDOW s) COUNTS=$COUNTS, at commit $COMMIT."
echo

TICKS=$(getconf CLK_TCK)
now() { date +%s.%N; }
sleep_until() { sleep "$(awk -v t="$1" -v n="$(now)" 'BEGIN { d = t - n; print (d > 0 ? d : 0) }')"; }
cpu_ticks() { # user and system time of process $1 (all its threads), in clock ticks
    sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12, $13 }'
}
switches() { # context switches of all the threads of process $1, voluntary or not
    cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'
}

TIMEOUT_PID=""
SERVER_PID=""
ADDR=""
stop_server() { # SIGTERM to the server itself, by its PID; `timeout` then ends with it
    if [ -n "$SERVER_PID" ]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
    fi
    if [ -n "$TIMEOUT_PID" ]; then
        wait "$TIMEOUT_PID" 2>/dev/null || true
    fi
    TIMEOUT_PID=""
    SERVER_PID=""
}
GEN_PIDS=()
cleanup() {
    local pid
    for pid in "${GEN_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    stop_server
}
trap cleanup EXIT

start_server() { # CPUS COMMAND...; sets TIMEOUT_PID, SERVER_PID, ADDR
    local cpus=$1 line
    shift
    : >"$OUT/server.out" # made now: read below before the server may have opened it
    : >"$OUT/server.err"
    timeout "$(awk -v w="$WARMUP" -v s="$SECS" 'BEGIN { print int(w + s + 120) }')" \
        taskset -c "$cpus" "$@" >"$OUT/server.out" 2>"$OUT/server.err" &
    TIMEOUT_PID=$!
    ADDR=""
    ADDR=$(listening_on "$OUT/server.err" 100) || true
    SERVER_PID=$(awk '{print $1}' "/proc/$TIMEOUT_PID/task/$TIMEOUT_PID/children" 2>/dev/null || true)
    if [ -z "$ADDR" ] || [ -z "$SERVER_PID" ]; then
        say "server did not start: $(cat "$OUT/server.err")"
        exit 1
    fi
    case $ADDR in
    127.0.0.1:*) ;;
    *)
        say "the server listens on $ADDR, not on 127.0.0.1"
        exit 1
        ;;
    esac
}

measure() { # ROUND SERVER N CONNS: one run, one line of results.jsonl
    local round=$1 server=$2 n=$3 conns=$4 i cpus command=() share t0 u0 s0 u1 s1 x0 x1 w0 w1 fds
    cpus=$(echo "${SCPUS[@]:0:$n}" | tr ' ' ,)
    case $server in
    stage5) command=("$BIN/stage5-echo_server" --plain --addr 127.0.0.1:0 --loops "$n") ;;
    tokio-ct) command=("$BIN/bench-tokio" serve --addr 127.0.0.1:0 --max-secs 600) ;;
    tokio-mt) command=("$BIN/bench-tokio-mt" serve --addr 127.0.0.1:0 --max-secs 600) ;;
    *)
        say "unknown server $server (stage5, tokio-ct, tokio-mt)"
        exit 2
        ;;
    esac
    export TOKIO_WORKER_THREADS=$n # read by tokio's multi-thread runtime itself
    start_server "$cpus" "${command[@]}"
    sleep 0.2
    GEN_PIDS=()
    t0=$(now)
    for ((i = 0; i < K; i++)); do
        share=$((conns / K + (i < conns % K ? 1 : 0)))
        timeout "$(awk -v w="$WARMUP" -v s="$SECS" 'BEGIN { print int(w + s + 60) }')" \
            taskset -c "${CCPUS[$i]}" "$BIN/loadgen" --addr "$ADDR" --conns "$share" \
            --secs "$SECS" --warmup "$WARMUP" --size 64 --server-pid "$SERVER_PID" \
            >"$OUT/gen.$i.json" 2>"$OUT/gen.$i.err" &
        GEN_PIDS+=($!)
    done
    # The window: after every generator's warm-up (each connected within 0.5 s of the
    # start), and over before the first one's measured window ends.
    sleep_until "$(awk -v t="$t0" -v w="$WARMUP" 'BEGIN { printf "%.3f", t + w + 0.5 }')"
    fds=$(find "/proc/$SERVER_PID/fd" -mindepth 1 2>/dev/null | wc -l)
    read -r u0 s0 <<<"$(cpu_ticks "$SERVER_PID")"
    x0=$(switches "$SERVER_PID")
    w0=$(now)
    if [ "$COUNTS" = 1 ]; then
        perf stat -x, -o "$OUT/perf.csv" -p "$SERVER_PID" -e "$PERF_EVENTS" -- sleep "$WINDOW" \
            2>/dev/null || : >"$OUT/perf.csv"
    else
        sleep "$WINDOW"
    fi
    read -r u1 s1 <<<"$(cpu_ticks "$SERVER_PID")"
    x1=$(switches "$SERVER_PID")
    w1=$(now)
    for i in "${!GEN_PIDS[@]}"; do
        if ! wait "${GEN_PIDS[$i]}"; then
            say "loadgen $i failed: $(cat "$OUT/gen.$i.err")"
            exit 1
        fi
    done
    GEN_PIDS=()
    stop_server
    python3 bench/loops_report.py record "$OUT" "$K" \
        "$(jq_args run "$RUN" round "$round" server "$server" n "$n" conns "$conns" k "$K" \
            cpu_s "$(awk -v a="$((u0 + s0))" -v b="$((u1 + s1))" -v t="$TICKS" 'BEGIN { print (b - a) / t }')" \
            user_s "$(awk -v a="$u0" -v b="$u1" -v t="$TICKS" 'BEGIN { print (b - a) / t }')" \
            switches "$((x1 - x0))" \
            window_s "$(awk -v a="$w0" -v b="$w1" 'BEGIN { printf "%.3f", b - a }')" \
            fds_at_window "$fds" server_cpus "$cpus" client_cpus "$(echo "${CCPUS[@]:0:$K}" | tr ' ' ,)" \
            machine "$MACHINE" commit "$COMMIT" counts "$COUNTS" \
            pinning "server on cores $cpus; $K load generators on cores $(echo "${CCPUS[@]:0:$K}" | tr ' ' ,)")" \
        >>"$RESULTS"
}
jq_args() { # KEY VALUE ...: one line of KEY=VALUE pairs for `record`
    local out=()
    while [ $# -gt 1 ]; do
        out+=("$1=$2")
        shift 2
    done
    printf '%s\n' "${out[@]}"
}
PERF_EVENTS=raw_syscalls:sys_enter,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl
PERF_EVENTS=$PERF_EVENTS,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendto
PERF_EVENTS=$PERF_EVENTS,syscalls:sys_enter_futex,context-switches
if [ "$COUNTS" = 1 ] && ! perf stat -e "$PERF_EVENTS" -- true >/dev/null 2>&1; then
    say "COUNTS=1: perf cannot count the syscall tracepoints here; counting nothing"
    COUNTS=0
fi

# The server holds every connection (and loadgen its share): raise the open-file limit
# to the hard limit if the largest CONNS would come near it.
max_conns=$(printf '%s\n' $CONNS | sort -n | tail -1)
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((max_conns + 200)) ]; then
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    say "open-file limit raised to $(ulimit -n)"
fi
say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
    say "== round $round/$ROUNDS"
    for conns in $CONNS; do
        for n in $LOOPS; do
            for server in $SERVERS; do
                if [ "$server" = tokio-ct ] && [ "$n" != 1 ]; then continue; fi
                measure "$round" "$server" "$n" "$conns"
            done
        done
    done
done
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

{
    echo "## Results"
    echo
    python3 bench/loops_report.py table "$RESULTS"
    echo
    echo "## Where the server's CPU goes: user space or the kernel"
    echo
    python3 bench/loops_report.py split "$RESULTS"
    echo
    echo "## The model beside them (stage 5)"
    echo
    python3 bench/loops_report.py model "$RESULTS"
} | tee "$OUT/report.md"
python3 bench/loops_report.py figure "$RESULTS" "$OUT/loops.svg"
say "raw results: $RESULTS; tables: $OUT/report.md; figure: $OUT/loops.svg"
