#!/usr/bin/env bash
# W5 for the Python loops only, paired within rounds: the measurement behind chapter 9's
# "Native transports" (bench/measured/python-transports.*).
#
#   bash bench/python-transports.sh            (ROUNDS=5 W5_CONNS=50 W5_SECS=2 by default)
#
# Each round runs, in turn, the echo server of bench/python/echo_server.py (a Protocol
# server, then a streams one) on asyncio, uvloop, rloop, scratchloop with asyncio's Python
# transports (SCRATCHLOOP_TRANSPORTS=asyncio) and scratchloop with stage 5's, each driven
# by `loadgen` for W5_SECS after W5_WARMUP, the server pinned to core 0 and loadgen to core
# 1 where there are two; the server's CPU time per message is what the page compares.
# Needs a venv ($VENV, default target/bench-pt/venv) with uvloop, rloop and scratchloop
# installed, and a release `loadgen`. Bounded: about ROUNDS x 10 x (W5_SECS + 2) seconds.
# Writes one JSON object a line to $OUT (default target/bench-pt/python-transports.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-target/bench-pt/venv}
OUT=${OUT:-target/bench-pt/python-transports.jsonl}
ROUNDS=${ROUNDS:-5}
W5_CONNS=${W5_CONNS:-50}
W5_SECS=${W5_SECS:-2}
W5_WARMUP=${W5_WARMUP:-0.5}
# shellcheck source=params.env
source bench/params.env
PY=$VENV/bin/python
LOADGEN=target/release/loadgen
PIN_SERVER=()
PIN_CLIENT=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    PIN_SERVER=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
fi
systems=(asyncio uvloop rloop scratchloop-asyncio-transports scratchloop)
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
for round in $(seq "$ROUNDS"); do
    for api in protocol streams; do
        for system in "${systems[@]}"; do
            loop=${system%-asyncio-transports}
            transports=native
            [ "$loop" != "$system" ] && transports=asyncio
            SCRATCHLOOP_TRANSPORTS=$transports "${PIN_SERVER[@]}" "$PY" bench/python/echo_server.py \
                --loop "$loop" --api "$api" --addr 127.0.0.1:0 --max-secs 120 2>"$log" &
            server_pid=$!
            addr=""
            for _ in $(seq 100); do
                addr=$(sed -n 's/^listening on \([^ ]*\)$/\1/p' "$log")
                [ -n "$addr" ] && break
                sleep 0.1
            done
            if [ -z "$addr" ]; then
                echo "  $system $api: the server did not start: $(head -c 300 "$log")" >&2
                stop
                continue
            fi
            if out=$(timeout 60 "${PIN_CLIENT[@]}" "$LOADGEN" --addr "$addr" --conns "$W5_CONNS" \
                --secs "$W5_SECS" --warmup "$W5_WARMUP" --size "$W5_SIZE" --server-pid "$server_pid"); then
                printf '{"round":%s,"system":"%s","api":"%s","conns":%s,"result":%s}\n' \
                    "$round" "$system" "$api" "$W5_CONNS" "$out" >>"$OUT"
                echo "  round $round $api $system: $(sed -n 's/.*"server_cpu_us_per_msg":\([0-9.]*\).*/\1/p' <<<"$out") us CPU/msg" >&2
            else
                echo "  $system $api: loadgen failed" >&2
            fi
            stop
        done
    done
done
