#!/usr/bin/env bash
# The Python loops side by side, paired within rounds: the measurements behind chapter 9's
# "Native transports" and "Measured" (bench/measured/python-transports.*).
#
#   bash bench/python-transports.sh   (ROUNDS=3 CONNS="50 1000" SECS=2 WARMUP=0.5 by default)
#
# Each round runs, in turn:
#   - W5: the echo server of bench/python/echo_server.py (a Protocol server, then a streams
#     one) on asyncio, uvloop, rloop, scratchloop with asyncio's Python transports
#     (SCRATCHLOOP_TRANSPORTS=asyncio) and scratchloop with stage 5's, each driven by
#     `loadgen` for SECS after WARMUP at each of CONNS connections; the server's CPU time
#     per message is what the page compares;
#   - W1, W2, W3 (bench/python/workloads.py, sizes from bench/params.env, the best of its
#     REPEAT runs) on asyncio, uvloop, rloop and scratchloop;
#   - W6 (round 1 only): the Protocol server holding W6_CONNS idle connections, its
#     resident memory per connection.
# Then, once per loop, W2 with POLL_STEPS steps under `strace -f -c`: how many times the
# loop polled (epoll_wait and its variants), the count behind "one poll per iteration".
# The server is pinned to core 0 and loadgen (and the in-process workloads) to core 1
# where there are two.
# Needs a venv ($VENV, default target/bench-pt/venv) with uvloop, rloop and scratchloop
# installed, a release `loadgen`, and strace for the poll counts (skipped without).
# SYSTEMS (a list, by those names) runs fewer. Bounded: every process has a timeout; about
# ROUNDS x (20 x (SECS + 2) + 60) seconds, plus W6's and the poll counts' minute or two.
# Writes one JSON object a line to $OUT (default target/bench-pt/python-transports.jsonl),
# each with its `kind` (echo, inproc, hold, polls).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/listening.sh
VENV=${VENV:-target/bench-pt/venv}
OUT=${OUT:-target/bench-pt/python-transports.jsonl}
# The message size of W5; the counts below are this script's own.
W5_SIZE=$(sed -n 's/^W5_SIZE=//p' bench/params.env)
ROUNDS=${ROUNDS:-3}
read -r -a conns_list <<<"${CONNS:-50 1000}"
# The servers' APIs (echo_server.py's --api: protocol, streams, buffered); LOOPS=0 runs W5
# alone (no W1-W3, W6 or poll counts).
read -r -a apis <<<"${APIS:-protocol streams}"
LOOPS=${LOOPS:-1}
W6_CONNS=${W6_CONNS:-$(sed -n "s/^W6_CONNS=//p" bench/params.env)}
W6_HOLD_SECS=${W6_HOLD_SECS:-$(sed -n "s/^W6_HOLD_SECS=//p" bench/params.env)}
POLL_STEPS=${POLL_STEPS:-100000}
SECS=${SECS:-2}
WARMUP=${WARMUP:-0.5}
PY=$VENV/bin/python
LOADGEN=target/release/loadgen
PIN_SERVER=()
PIN_CLIENT=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    PIN_SERVER=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
fi
read -r -a systems <<<"${SYSTEMS:-asyncio uvloop rloop scratchloop-asyncio-transports scratchloop}"
: >"$OUT"
log=$(mktemp)
server_pid=""
stop() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}
trap 'stop; rm -f "$log"' EXIT
# W6 holds W6_CONNS connections in loadgen and as many in the server.
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((W6_CONNS + 200)) ]; then
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fi
# start_server SYSTEM API: the echo server, its pid in server_pid and address in addr.
start_server() {
    local loop=${1%-asyncio-transports} transports=native
    [ "$loop" != "$1" ] && transports=asyncio
    # Emptied here, not by the child's redirection: the child may run after the loop
    # below has read the last server's address.
    : >"$log"
    SCRATCHLOOP_TRANSPORTS=$transports "${PIN_SERVER[@]}" "$PY" bench/python/echo_server.py \
        --loop "$loop" --api "$2" --addr 127.0.0.1:0 --max-secs 120 2>>"$log" &
    server_pid=$!
    addr=""
    addr=$(listening_on "$log" 100) && return 0
    echo "  $1 $2: the server did not start: $(head -c 300 "$log")" >&2
    stop
    return 1
}
in_process=()
for system in "${systems[@]}"; do
    [ "$system" = "${system%-asyncio-transports}" ] && in_process+=("$system")
done
for round in $(seq "$ROUNDS"); do
  for CONNS in "${conns_list[@]}"; do
    for api in "${apis[@]}"; do
        for system in "${systems[@]}"; do
            start_server "$system" "$api" || continue
            if out=$(timeout 60 "${PIN_CLIENT[@]}" "$LOADGEN" --addr "$addr" --conns "$CONNS" \
                --secs "$SECS" --warmup "$WARMUP" --size "$W5_SIZE" --server-pid "$server_pid"); then
                printf '{"kind":"echo","round":%s,"system":"%s","api":"%s","conns":%s,"result":%s}\n' \
                    "$round" "$system" "$api" "$CONNS" "$out" >>"$OUT"
                echo "  round $round C=$CONNS $api $system: $(sed -n 's/.*"server_cpu_us_per_msg":\([0-9.]*\).*/\1/p' <<<"$out") us CPU/msg" >&2
            else
                echo "  $system $api: loadgen failed; the server said: $(tail -c 600 "$log")" >&2
            fi
            stop
        done
    done
  done
    [ "$LOOPS" = 1 ] || continue
    # W1-W3, each loop in turn (one process per loop: the workloads' best of REPEAT).
    for system in "${in_process[@]}"; do
        if out=$(timeout 300 "${PIN_CLIENT[@]}" "$PY" bench/python/workloads.py --loop "$system" W1 W2 W3); then
            while IFS= read -r line; do
                printf '{"kind":"inproc","round":%s,"system":"%s","result":%s}\n' \
                    "$round" "$system" "$line" >>"$OUT"
            done <<<"$out"
            echo "  round $round W1-W3 $system: $(sed -n 's/.*"workload":"\(W[0-9]\)".*"wall_ns_per_op":\([0-9.]*\).*/\1 \2/p' <<<"$out" | tr '\n' ' ')ns/op" >&2
        else
            echo "  round $round W1-W3 $system: failed" >&2
        fi
    done
    # W6, in the first round: memory per idle connection of each loop's Protocol server.
    [ "$round" = 1 ] || continue
    for system in "${in_process[@]}"; do
        start_server "$system" protocol || continue
        if out=$(timeout $((W6_HOLD_SECS + 60)) "${PIN_CLIENT[@]}" "$LOADGEN" --addr "$addr" \
            --conns "$W6_CONNS" --hold "$W6_HOLD_SECS" --server-pid "$server_pid"); then
            printf '{"kind":"hold","round":%s,"system":"%s","result":%s}\n' \
                "$round" "$system" "$out" >>"$OUT"
            echo "  W6 $system: $(sed -n 's/.*"rss_per_conn_bytes":\([0-9.]*\).*/\1/p' <<<"$out") B/conn" >&2
        else
            echo "  W6 $system: loadgen failed; the server said: $(tail -c 600 "$log")" >&2
        fi
        stop
    done
done
# W2's polls: epoll_wait (and epoll_pwait, epoll_pwait2) calls in POLL_STEPS chained steps,
# counted by strace; one run each (REPEAT=1), the count does not depend on the machine.
if [ "$LOOPS" = 1 ] && command -v strace >/dev/null; then
    for system in "${in_process[@]}"; do
        trace=$(mktemp)
        if W2_STEPS=$POLL_STEPS REPEAT=1 timeout 300 strace -f -c -o "$trace" \
            -e trace=epoll_wait,epoll_pwait,epoll_pwait2 \
            "$PY" bench/python/workloads.py --loop "$system" W2 >/dev/null; then
            polls=$(awk '$NF ~ /^epoll_(wait|pwait|pwait2)$/ {n += $4} END {print n + 0}' "$trace")
            printf '{"kind":"polls","system":"%s","steps":%s,"polls":%s}\n' \
                "$system" "$POLL_STEPS" "$polls" >>"$OUT"
            echo "  W2 polls $system: $polls in $POLL_STEPS steps" >&2
        else
            echo "  W2 polls $system: strace failed" >&2
        fi
        rm -f "$trace"
    done
fi
