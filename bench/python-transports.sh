#!/usr/bin/env bash
# W5 for the Python loops only, paired within rounds: the measurement behind chapter 9's
# "Native transports" (bench/measured/python-transports.*).
#
#   bash bench/python-transports.sh            (ROUNDS=5 CONNS=50 SECS=2 WARMUP=0.5 by default)
#
# Each round runs, in turn, the echo server of bench/python/echo_server.py (a Protocol
# server, then a streams one) on asyncio, uvloop, rloop, scratchloop with asyncio's Python
# transports (SCRATCHLOOP_TRANSPORTS=asyncio) and scratchloop with stage 5's, each driven
# by `loadgen` for SECS after WARMUP, the server pinned to core 0 and loadgen to core
# 1 where there are two; the server's CPU time per message is what the page compares.
# Needs a venv ($VENV, default target/bench-pt/venv) with uvloop, rloop and scratchloop
# installed, and a release `loadgen`. SYSTEMS (a list, by those names) runs fewer. Bounded: about ROUNDS x 10 x (SECS + 2) seconds.
# Writes one JSON object a line to $OUT (default target/bench-pt/python-transports.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-target/bench-pt/venv}
OUT=${OUT:-target/bench-pt/python-transports.jsonl}
# The message size of W5; the counts below are this script's own.
W5_SIZE=$(sed -n 's/^W5_SIZE=//p' bench/params.env)
ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-50}
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
for round in $(seq "$ROUNDS"); do
    for api in protocol streams; do
        for system in "${systems[@]}"; do
            loop=${system%-asyncio-transports}
            transports=native
            [ "$loop" != "$system" ] && transports=asyncio
            # Emptied here, not by the child's redirection: the child may run after the
            # loop below has read the last server's address.
            : >"$log"
            SCRATCHLOOP_TRANSPORTS=$transports "${PIN_SERVER[@]}" "$PY" bench/python/echo_server.py \
                --loop "$loop" --api "$api" --addr 127.0.0.1:0 --max-secs 120 2>>"$log" &
            server_pid=$!
            addr=""
            for _ in $(seq 100); do
                # Complete lines only (`read` fails on a last line with no newline yet): a
                # line caught halfway names a port that is not the server's.
                while IFS= read -r line; do
                    if [[ $line =~ ^listening\ on\ ([^ ]+) ]]; then addr=${BASH_REMATCH[1]}; fi
                done <"$log"
                [ -n "$addr" ] && break
                sleep 0.1
            done
            if [ -z "$addr" ]; then
                echo "  $system $api: the server did not start: $(head -c 300 "$log")" >&2
                stop
                continue
            fi
            if out=$(timeout 60 "${PIN_CLIENT[@]}" "$LOADGEN" --addr "$addr" --conns "$CONNS" \
                --secs "$SECS" --warmup "$WARMUP" --size "$W5_SIZE" --server-pid "$server_pid"); then
                printf '{"round":%s,"system":"%s","api":"%s","conns":%s,"result":%s}\n' \
                    "$round" "$system" "$api" "$CONNS" "$out" >>"$OUT"
                echo "  round $round $api $system: $(sed -n 's/.*"server_cpu_us_per_msg":\([0-9.]*\).*/\1/p' <<<"$out") us CPU/msg" >&2
            else
                echo "  $system $api: loadgen failed; the server said: $(tail -c 600 "$log")" >&2
            fi
            stop
        done
    done
done
