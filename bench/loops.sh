#!/usr/bin/env bash
# The measurements of the book's "Beyond one core" (docs/src/beyond-one-core.md): stage 5's
# echo server with one and two event loops (`--loops N`), and tokio's current_thread and
# multi-thread runtimes beside it.
#
#   bash bench/loops.sh        about 8 minutes on 2 cores; Markdown tables on stdout,
#                              every raw result in target/loops/results.jsonl
#
# 1. Spread: SPREAD_RUNS times, a stage 5 server with --loops 2 (then 4) is sent
#    SPREAD_CONNS connections (loadgen --hold), stopped with SIGTERM, and says how many
#    connections each loop accepted.
# 2. Echo: loadgen drives each configuration below with C connections (CONNS) sending
#    64-byte messages back to back, WARMUP + SECS seconds, ROUNDS rounds; the table has
#    the best round and, in brackets, the median (on a shared machine interference only
#    ever makes a run slower, as bench/params.env says of REPEAT). "server CPU" and
#    "client CPU" are per echoed message, from /proc.
#
#    configuration              server on    loadgen on
#    stage5 --loops 1           core 0       core 1
#    stage5 --loops 2           core 0       core 1      (two loops on one core)
#    stage5 --loops 2           cores 0,1    core 1      (two cores, one shared)
#    tokio current_thread       core 0       core 1
#    tokio multi-thread, 2      core 0       core 1
#    tokio multi-thread, 2      cores 0,1    core 1
#
# Every server runs under `timeout`, is stopped by its PID, and listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -s)" != Linux ] || ! command -v taskset >/dev/null || [ "$(nproc)" -lt 2 ]; then
    # The pinning and the /proc readings are the measurement: without them, stop.
    echo "bench/loops.sh needs Linux, taskset and at least 2 cores" >&2
    exit 1
fi
SPREAD_RUNS=${SPREAD_RUNS:-5}
SPREAD_CONNS=${SPREAD_CONNS:-1000}
CONNS=${CONNS:-50,1000}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
WARMUP=${WARMUP:-1}
OUT=target/loops
BIN=$OUT/bin
mkdir -p "$BIN"
RESULTS=$OUT/results.jsonl
: >"$RESULTS"
say() { printf '%s\n' "$*" >&2; }

say "== build (release)"
cargo build -q --release -p loadgen -p bench --bins
cargo build -q --release -p stage5 --example echo_server
T=${CARGO_TARGET_DIR:-target}
cp "$T/release/loadgen" "$T/release/bench-tokio" "$T/release/bench-tokio-mt" "$BIN/"
cp "$T/release/examples/echo_server" "$BIN/stage5-echo_server"
say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

TIMEOUT_PID=""
SERVER_PID=""
ADDR=""
stop_server() { # SIGTERM to the server (through `timeout`, which passes it on); wait
    if [ -n "$TIMEOUT_PID" ]; then
        kill "$TIMEOUT_PID" 2>/dev/null || true
        wait "$TIMEOUT_PID" 2>/dev/null || true
    fi
    TIMEOUT_PID=""
}
trap stop_server EXIT

start_server() { # CPUS COMMAND...; sets TIMEOUT_PID, SERVER_PID, ADDR
    local cpus=$1 line
    shift
    : >"$OUT/server.out" # made now: read below before the server may have opened it
    : >"$OUT/server.err"
    timeout 600 taskset -c "$cpus" "$@" >"$OUT/server.out" 2>"$OUT/server.err" &
    TIMEOUT_PID=$!
    ADDR=""
    for _ in $(seq 100); do
        while IFS= read -r line; do
            if [[ $line =~ ^listening\ on\ ([^ ]+) ]]; then ADDR=${BASH_REMATCH[1]}; fi
        done <"$OUT/server.err"
        [ -n "$ADDR" ] && break
        sleep 0.1
    done
    SERVER_PID=$(awk '{print $1}' "/proc/$TIMEOUT_PID/task/$TIMEOUT_PID/children")
    [ -n "$ADDR" ] && [ -n "$SERVER_PID" ] || { say "server did not start: $(cat "$OUT/server.err")"; exit 1; }
    sleep 0.2
}

# ---------------------------------------------------------------------------------------
say "== spread: $SPREAD_CONNS connections, $SPREAD_RUNS runs per loop count"
echo "| loops | run | connections per loop |"
echo "| --- | --- | --- |"
for loops in 2 4; do
    for run in $(seq "$SPREAD_RUNS"); do
        start_server 0,1 "$BIN/stage5-echo_server" --plain --addr 127.0.0.1:0 --loops "$loops"
        timeout 120 taskset -c 1 "$BIN/loadgen" --addr "$ADDR" --conns "$SPREAD_CONNS" \
            --hold 20 --server-pid "$SERVER_PID" >/dev/null
        stop_server
        counts=$(sed -n 's/^loop [0-9]*: clients served: \([0-9]*\)$/\1/p' "$OUT/server.out" |
            paste -sd' ' -)
        echo "| $loops | $run | $counts |"
        printf '{"kind":"spread","loops":%s,"run":%s,"per_loop":[%s]}\n' "$loops" "$run" \
            "${counts// /,}" >>"$RESULTS"
    done
done

# ---------------------------------------------------------------------------------------
configs=(
    "stage5 --loops 1|0|$BIN/stage5-echo_server --plain --addr 127.0.0.1:0 --loops 1"
    "stage5 --loops 2|0|$BIN/stage5-echo_server --plain --addr 127.0.0.1:0 --loops 2"
    "stage5 --loops 2|0,1|$BIN/stage5-echo_server --plain --addr 127.0.0.1:0 --loops 2"
    "tokio current_thread|0|$BIN/bench-tokio serve --addr 127.0.0.1:0 --max-secs 600"
    "tokio multi-thread, 2|0|$BIN/bench-tokio-mt serve --addr 127.0.0.1:0 --max-secs 600"
    "tokio multi-thread, 2|0,1|$BIN/bench-tokio-mt serve --addr 127.0.0.1:0 --max-secs 600"
)
export TOKIO_WORKER_THREADS=2
field() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" <<<"$1"; }
for round in $(seq "$ROUNDS"); do
    say "== echo, round $round/$ROUNDS"
    for conns in ${CONNS//,/ }; do
        for config in "${configs[@]}"; do
            IFS='|' read -r name cpus command <<<"$config"
            # shellcheck disable=SC2086 # the command line is split on purpose
            start_server "$cpus" $command
            out=$(timeout 120 taskset -c 1 "$BIN/loadgen" --addr "$ADDR" --conns "$conns" \
                --secs "$SECS" --warmup "$WARMUP" --size 64 --server-pid "$SERVER_PID")
            stop_server
            say "  C=$conns $name (server on $cpus): $(field "$out" msgs_per_sec) msg/s," \
                "server $(field "$out" server_cpu_us_per_msg) us/msg," \
                "client $(field "$out" client_cpu_us_per_msg) us/msg"
            printf '{"kind":"echo","round":%s,"config":"%s","cpus":"%s","result":%s}\n' \
                "$round" "$name" "$cpus" "$out" >>"$RESULTS"
        done
    done
done
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$RESULTS" <<'EOF'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["kind"] == "echo":
        key = (r["result"]["conns"], r["config"], r["cpus"])
        rows.setdefault(key, []).append(r["result"])
print()
print("| C | configuration | server on | messages/s | p99 µs | server CPU µs/msg | client CPU µs/msg |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
for (conns, config, cpus), results in rows.items():
    def cell(field, best, fmt):
        values = [x[field] for x in results]
        return f"{format(best(values), fmt)} ({format(statistics.median(values), fmt)})"
    print(f"| {conns} | {config} | core {cpus} | {cell('msgs_per_sec', max, ',.0f')} "
          f"| {cell('p99_us', min, ',.0f')} | {cell('server_cpu_us_per_msg', min, '.2f')} "
          f"| {cell('client_cpu_us_per_msg', min, '.2f')} |")
EOF
