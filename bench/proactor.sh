#!/usr/bin/env bash
# Stage 6 (asyncio's proactor on io_uring) beside stage 5, tokio and monoio at W5, bounded:
# a few minutes on 2 cores, not bench/run.sh's full run. Writes bench/measured/proactor.jsonl
# and bench/measured/proactor.md (bench/proactor_report.py), which the benchmarks page
# includes.
#
# - System calls per message: each echo server (`bench-SYSTEM serve`) under `strace -c -f`,
#   driven by bench/python/lockstep.py (C connections, 64-byte messages in lockstep, a fixed
#   number on each), at PER1 and PER2 messages per connection; the marginal count,
#   (calls(PER2) - calls(PER1)) / (messages(PER2) - messages(PER1)), is one more message's.
# - Server CPU per message at C=1000: loadgen against each server in turn, the systems'
#   order rotated each round, for ROUNDS rounds of SECS seconds (ratios within a round).
#
# - User-space instructions per message at C=1000 (stage 6 and stage 5): each server under
#   `valgrind --tool=callgrind`, lockstep at PER_GRIND's two counts, the marginal
#   instructions by function (bench/proactor_report.py callgrind).
#
#   bash bench/proactor.sh              all of it
#   OUT=target/proactor bash bench/proactor.sh   a trial run, the committed data untouched
#   STEPS=callgrind bash bench/proactor.sh       only the instruction counts, printed (for
#                                                 a change's before and after)
#
# Every process runs under `timeout`, on 127.0.0.1 only, and is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/listening.sh
say() { printf '%s\n' "$*" >&2; }
has() { [[ " $STEPS " == *" $1 "* ]]; }
SYSTEMS=${SYSTEMS:-"stage6 stage5 tokio monoio"}
ROUNDS=${ROUNDS:-6}
SECS=${SECS:-3}
PER_50=${PER_50:-"20 120"}
PER_1000=${PER_1000:-"3 33"}
PER_GRIND=${PER_GRIND:-"3 13"}
GRIND_SECS=${GRIND_SECS:-30}
GRIND_SYSTEMS=${GRIND_SYSTEMS:-"stage5 stage6"}
STEPS=${STEPS:-"syscalls cpu callgrind"}
! has syscalls || command -v strace >/dev/null || { say "bench/proactor.sh needs strace"; exit 1; }
! has callgrind || command -v valgrind >/dev/null || { say "bench/proactor.sh needs valgrind"; exit 1; }
OUT=${OUT:-bench/measured}
WORK=target/proactor
mkdir -p "$OUT" "$WORK"
# One run at a time: two would share $WORK's files and load each other's servers.
exec 9>"$WORK/lock"
flock -n 9 || { say "another bench/proactor.sh is running (holds $WORK/lock)"; exit 1; }
say "== build (release)"
bins=()
for s in $SYSTEMS $GRIND_SYSTEMS; do bins+=(--bin "bench-$s"); done
cargo build -q --release -p loadgen -p bench "${bins[@]}"
T=${CARGO_TARGET_DIR:-target}/release

TPID=""
cleanup() { [ -z "$TPID" ] || kill "$TPID" 2>/dev/null || true; }
trap cleanup EXIT

# start SYSTEM [WRAPPER...]: sets TPID (timeout's), PID (the server's) and ADDR; the
# server stops by itself after MAX_SECS.
start() {
    local system=$1 line
    shift
    : >"$WORK/server.err"
    timeout 300 "$@" "$T/bench-$system" serve --addr 127.0.0.1:0 --max-secs "${MAX_SECS:-280}" \
        >/dev/null 2>"$WORK/server.err" &
    TPID=$!
    ADDR=""
    ADDR=$(listening_on "$WORK/server.err" 300) || true  # up to 30 s: a server under valgrind starts slowly
    PID=$(awk '{print $1}' "/proc/$TPID/task/$TPID/children" 2>/dev/null || true)
    if [ "${1:-}" = strace ] && [ -n "$PID" ]; then # strace runs the server as its child
        PID=$(awk '{print $1}' "/proc/$PID/task/$PID/children" 2>/dev/null || true)
    fi
    if [ -z "$ADDR" ] || [ -z "$PID" ]; then
        say "$system: the server did not start: $(head -c 300 "$WORK/server.err")"
        stop
        return 1
    fi
}
stop() {
    [ -z "$TPID" ] || kill "$TPID" 2>/dev/null || true # timeout passes it on
    [ -z "$TPID" ] || wait "$TPID" 2>/dev/null || true # ended by a signal: says only that
    TPID=""
}

# strace_run SYSTEM CONNS PER: strace's calls by name, as JSON.
strace_run() {
    local file=$WORK/strace.out
    rm -f "$file"
    start "$1" strace -f -c -o "$file" || return 1
    timeout 120 python3 bench/python/lockstep.py --addr "$ADDR" --conns "$2" --per "$3" >/dev/null
    sleep 1 # let it close what the client closed
    kill -TERM "$PID" # strace writes its table as its child ends
    wait "$TPID" || true # ended by SIGTERM: its exit status says only that
    TPID=""
    python3 bench/proactor_report.py strace "$file"
}

# grind_run SYSTEM CONNS PER FILE: the server under callgrind, its counts written to FILE
# as it ends. It is left to stop by itself after GRIND_SECS (a clean exit, the same in
# both runs): valgrind holds a signal back while io_uring_enter waits, so a SIGTERM to
# stage 6's server would wait for that.
grind_run() {
    rm -f "$4"
    MAX_SECS=$GRIND_SECS start "$1" valgrind --tool=callgrind --callgrind-out-file="$4" || return 1
    if ! timeout "$GRIND_SECS" python3 bench/python/lockstep.py --addr "$ADDR" --conns "$2" \
        --per "$3" >/dev/null; then
        say "  $1: lockstep did not finish within GRIND_SECS=$GRIND_SECS"
        stop
        return 1
    fi
    wait "$TPID" || true # its own stop; a failure shows as an empty FILE below
    TPID=""
    [ -s "$4" ]
}

RESULTS=$WORK/proactor.jsonl
printf '{"kind":"run","date":"%s","commit":"%s","machine":"%s","strace":"%s","secs":%s}\n' \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(git rev-parse --short HEAD)" \
    "$(nproc)-core $(uname -m), $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), Linux $(uname -r)" \
    "$( (strace -V 2>/dev/null || echo none) | head -1)" "$SECS" >"$RESULTS"

if has syscalls; then
    say "== system calls per message (strace -c -f)"
    for system in $SYSTEMS; do
        for conns in 50 1000; do
            if [ "$conns" = 50 ]; then read -r p1 p2 <<<"$PER_50"; else read -r p1 p2 <<<"$PER_1000"; fi
            if sc1=$(strace_run "$system" "$conns" "$p1") && sc2=$(strace_run "$system" "$conns" "$p2"); then
                line="{\"kind\":\"syscalls\",\"system\":\"$system\",\"conns\":$conns,\"n\":[$((p1 * conns)),$((p2 * conns))],\"syscalls\":[$sc1,$sc2]}"
                echo "$line" >>"$RESULTS"
                say "$(python3 bench/proactor_report.py line "$line")"
            else
                say "  $system C=$conns: failed, not recorded"
            fi
        done
    done
fi

if has cpu; then
    say "== server CPU per message at C=1000, $ROUNDS rounds of ${SECS}s"
    read -ra order <<<"$SYSTEMS"
    for round in $(seq "$ROUNDS"); do
        for system in "${order[@]}"; do
            start "$system" || continue
            if out=$(timeout 60 "$T/loadgen" --addr "$ADDR" --conns 1000 --secs "$SECS" \
                --warmup 1 --size 64 --server-pid "$PID"); then
                line="{\"kind\":\"cpu\",\"round\":$round,\"system\":\"$system\",\"conns\":1000,\"result\":$out}"
                echo "$line" >>"$RESULTS"
                say "$(python3 bench/proactor_report.py line "$line")"
            else
                say "  $system round $round: loadgen failed, not recorded"
            fi
            stop
        done
        order=("${order[@]:1}" "${order[0]}") # rotate: no system always first or last
    done
fi

if has callgrind; then
    say "== user-space instructions per message at C=1000 (callgrind)"
    read -r p1 p2 <<<"$PER_GRIND"
    for system in $GRIND_SYSTEMS; do
        f1=$WORK/callgrind.$system.$p1 f2=$WORK/callgrind.$system.$p2
        if grind_run "$system" 1000 "$p1" "$f1" && grind_run "$system" 1000 "$p2" "$f2"; then
            line=$(python3 bench/proactor_report.py callgrind "$system" 1000 \
                $((p1 * 1000)) "$f1" $((p2 * 1000)) "$f2")
            echo "$line" >>"$RESULTS"
            say "$(python3 bench/proactor_report.py line "$line")"
        else
            say "  $system: callgrind failed, not recorded"
        fi
    done
fi

if [ "$STEPS" != "syscalls cpu callgrind" ]; then
    say "done: $RESULTS (only $STEPS: $OUT untouched)"
    exit 0
fi
[ "$OUT" = "$WORK" ] || cp "$RESULTS" "$OUT/proactor.jsonl"
python3 bench/proactor_report.py page "$OUT/proactor.jsonl" "$OUT/proactor.md"
say "done: $OUT/proactor.jsonl, $OUT/proactor.md"
