#!/usr/bin/env bash
# Where scratchloop's time goes on the rows where it is behind the better of uvloop and
# rloop: a cpu-clock profile of each, its samples' shares by where they fell
# (bench/python/profile_shares.py), one JSON line each (bench/measured/python-profile-loops.jsonl).
#
#   bash bench/python-profile.sh     (needs perf, and the venv of bench/python-transports.sh)
#
# W1, W2 and W3 are profiled whole (bench/python/workloads.py, REPEAT=1, in its own
# process: the interpreter's start is in it too); W5's streams server at C=50 is profiled
# for SECS seconds while loadgen drives it. Pinned as bench/python-transports.sh pins.
# Bounded: every process has a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/listening.sh
VENV=${VENV:-target/bench-pt/venv}
OUT=${OUT:-target/bench-pt/python-profile-loops.jsonl}
SECS=${SECS:-3}
PY=$VENV/bin/python
LOADGEN=target/release/loadgen
W5_SIZE=$(sed -n 's/^W5_SIZE=//p' bench/params.env)
PIN_SERVER=()
PIN_CLIENT=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    PIN_SERVER=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
fi
: >"$OUT"
for w in W1 W2 W3; do
    REPEAT=1 timeout 600 "${PIN_SERVER[@]}" python3 bench/python/profile_shares.py "$w" -- \
        "$PY" bench/python/workloads.py --loop scratchloop "$w" >>"$OUT"
    echo "  profiled $w" >&2
done
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
for api in protocol streams; do
    "${PIN_SERVER[@]}" "$PY" bench/python/echo_server.py --loop scratchloop --api "$api" \
        --addr 127.0.0.1:0 --max-secs 120 2>"$log" &
    server_pid=$!
    addr=""
    addr=$(listening_on "$log" 100) || true
    [ -n "$addr" ] || { echo "  the $api server did not start" >&2; stop; continue; }
    timeout 60 "${PIN_CLIENT[@]}" "$LOADGEN" --addr "$addr" --conns 50 --secs $((SECS + 2)) \
        --warmup 0.5 --size "$W5_SIZE" >/dev/null &
    load=$!
    sleep 1
    python3 bench/python/profile_shares.py --attach "$server_pid" "$SECS" "W5 C=50 $api" >>"$OUT"
    wait "$load" || true
    stop
    echo "  profiled W5 $api" >&2
done
