#!/usr/bin/env bash
# What an echo server costs when idle and per round trip: the measurement behind the
# "polling cost" tables of chapters 1 and 4.
#
#   bash bench/echo-cost.sh [STAGE ...]        (default: every stage that has echo_server)
#
# For each stage it builds `echo_server` in release, starts it on 127.0.0.1 (a free port),
# reads the server's CPU time and wake-ups from /proc over IDLE_SECS with no client, then
# runs `loadgen` with one connection twice for LAT_SECS each: an interactive client that
# pauses 3 ms between round trips (ping latency), and one that sends back to back
# (throughput). Then it stops the server by its PID. Prints a Markdown table. Bounded:
# about (IDLE_SECS + 2 * LAT_SECS + 3) seconds per stage.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/listening.sh
if [ "$(uname -s)" != Linux ]; then
    # Stop with one clear sentence rather than a missing-file error halfway through a run.
    echo "bench/echo-cost.sh reads the server's CPU time and wake-ups from Linux's /proc: it runs on Linux only" >&2
    exit 1
fi

IDLE_SECS=${IDLE_SECS:-5}
LAT_SECS=${LAT_SECS:-3}
stages=("$@")
if [ ${#stages[@]} -eq 0 ]; then
    for dir in crates/stage*-*/; do
        [ -f "$dir/examples/echo_server.rs" ] && stages+=("$(basename "$dir" | cut -d- -f1)")
    done
fi

bin=target/echo-cost
mkdir -p "$bin"
cargo build -q --release -p loadgen
cp target/release/loadgen "$bin/loadgen"
for stage in "${stages[@]}"; do
    # Build one package at a time and copy the binary out at once: every stage's example
    # is called echo_server, and they share target/release/examples/echo_server.
    cargo build -q --release -p "$stage" --example echo_server
    cp target/release/examples/echo_server "$bin/$stage-echo_server"
done

# CPU time in nanoseconds, from the scheduler's own accounting (finer than /proc/PID/stat's
# clock ticks, which round a few milliseconds of idle polling down to zero).
cpu_ns() { awk '{print $1}' "/proc/$1/schedstat"; }

echo "| stage | idle CPU (% of one core) | idle wake-ups/s | ping p50 | ping p99 | back-to-back round trips/s |"
echo "| --- | --- | --- | --- | --- | --- |"
for stage in "${stages[@]}"; do
    log=$(mktemp)
    "$bin/$stage-echo_server" --plain --addr 127.0.0.1:0 2>"$log" >/dev/null &
    pid=$!
    trap 'kill $pid 2>/dev/null || true' EXIT
    addr=""
    addr=$(listening_on "$log" 50) || true
    [ -n "$addr" ] || { echo "$stage: server did not start: $(cat "$log")" >&2; kill $pid; exit 1; }
    sleep 0.5
    before=$(cpu_ns $pid)
    wakes_before=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$pid/status)
    sleep "$IDLE_SECS"
    after=$(cpu_ns $pid)
    wakes_after=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$pid/status)
    ping=$("$bin/loadgen" --addr "$addr" --conns 1 --warmup 0.5 --secs "$LAT_SECS" --size 64 --pause 3)
    flood=$("$bin/loadgen" --addr "$addr" --conns 1 --warmup 0.5 --secs "$LAT_SECS" --size 64)
    kill $pid
    wait $pid 2>/dev/null || true
    trap - EXIT
    rm -f "$log"
    field() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" <<<"$1"; }
    awk -v s="$stage" -v b="$before" -v a="$after" -v i="$IDLE_SECS" \
        -v wb="$wakes_before" -v wa="$wakes_after" \
        -v p50="$(field "$ping" p50_us)" -v p99="$(field "$ping" p99_us)" \
        -v r="$(field "$flood" msgs_per_sec)" \
        'BEGIN { printf "| %s | %.2f %% | %.0f | %.2f ms | %.2f ms | %.0f |\n",
                 s, 100 * (a - b) / 1e9 / i, (wa - wb) / i, p50 / 1000, p99 / 1000, r }'
done
