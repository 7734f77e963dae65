#!/usr/bin/env bash
# The benchmarks: every system on every workload it can do, in several rounds,
# and one page of tables (docs/src/benchmarks.md).
#
#   bash bench/run.sh                  the full run: about 7 minutes on 2 cores
#   BENCH_QUICK=1 bash bench/run.sh    everything once at reduced sizes, under a minute, to
#                                      check the script; writes target/bench/benchmarks.md
#   just bench / just bench-quick      the same
#
# After a full run it counts (bench/counts.sh, a few minutes; BENCH_COUNTS=0: not): user-space
# instructions and system calls per operation, which do not move with the machine's load,
# into bench/measured/counts.jsonl and the tables the page includes (counts.md).
#
# Systems: the floor (crates/bench), tokio (current_thread), monoio (W5, W6: its io_uring
# driver, beside stage 6), every stage that has a
# `bench-stageN` binary (W1-W4) or an echo server (W5, W6: the one in its `bench-stageN`
# binary if it has one, as stage 5 does, else its `echo_server` example), and CPython's
# asyncio, uvloop and scratchloop (bench/python; uvloop is pip-installed into
# target/bench/venv, scratchloop, stage 5 under asyncio, built there with maturin). A
# system that does not build or install is skipped with a note, so a new stage appears by
# itself once its pieces exist.
#
# Sizes: bench/params.env; an environment variable of the same name overrides a line.
# Rounds: each round runs W1-W4 for every system (one process per system and workload),
# then W5 at every connection count, then W6; the report takes medians over rounds, and
# ratios to the floor (and to tokio) *within* each round before taking their median, since
# this machine drifts by tens of percent between runs.
#
# Builds go to $CARGO_TARGET_DIR (default target/); copies of the binaries and the results
# to target/bench.
#
# Processes: every server runs under `timeout` (it cannot outlive this script by more than
# a few minutes even if the script is killed), is pinned to core 0 while the client or the
# in-process benchmark runs on core 1 (when `taskset` and two cores exist), and is stopped
# by its PID. Only 127.0.0.1 is used.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/listening.sh
if [ "$(uname -s)" != Linux ]; then
    # Stop with one clear sentence rather than a missing-file error halfway through a run.
    echo "bench/run.sh reads servers' CPU time, memory and child PIDs from Linux's /proc: it runs on Linux only" >&2
    exit 1
fi
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in bench/python
started_at=$(date +%s)
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

OUT=target/bench
BIN=$OUT/bin
mkdir -p "$BIN"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
    command_line="BENCH_QUICK=1 bash bench/run.sh"
    REPORT=${BENCH_OUT:-$OUT/benchmarks.md}
    export W1_CALLBACKS=${W1_CALLBACKS:-100000} W2_STEPS=${W2_STEPS:-100000}
    export W3_TIMERS=${W3_TIMERS:-20000} W4_ITEMS=${W4_ITEMS:-100000}
    export W5_CONNS=${W5_CONNS:-50,200} W5_SECS=${W5_SECS:-1} W5_WARMUP=${W5_WARMUP:-0.5}
    export W6_CONNS=${W6_CONNS:-1000} ROUNDS=${ROUNDS:-1} W5_ROUNDS=${W5_ROUNDS:-1}
    export W6_ROUNDS=${W6_ROUNDS:-1} REPEAT=${REPEAT:-1}
else
    command_line="bash bench/run.sh"
    REPORT=${BENCH_OUT:-docs/src/benchmarks.md}
fi
# bench/params.env, except what the environment already sets.
while IFS= read -r line; do
    case "$line" in '' | '#'*) continue ;; esac
    key=${line%%=*}
    if [ -z "${!key+x}" ]; then export "$key=${line#*=}"; fi
done <bench/params.env

say() { printf '%s\n' "$*" >&2; }
step() { printf '\n== %s (%ds)\n' "$*" $(($(date +%s) - started_at)) >&2; }

if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    PIN_SERVER=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
else
    PIN_SERVER=()
    PIN_CLIENT=()
    say "note: no taskset or one core: client and server are not pinned"
fi

# ---------------------------------------------------------------------------------------
step "build (release)"
RELEASE=${CARGO_TARGET_DIR:-target}/release
cargo build -q --release -p loadgen -p bench --bins
cp "$RELEASE/loadgen" "$BIN/loadgen"
inproc=(floor tokio)
echo_systems=(floor tokio)
for system in floor tokio; do cp "$RELEASE/bench-$system" "$BIN/"; done
# True if SYSTEM's bench binary has an echo server (`bench-SYSTEM --list` says `serve:`).
serves() { [ -x "$BIN/bench-$1" ] && "$BIN/bench-$1" --list | grep -q '^serve:'; }
# monoio, a completion-based runtime on io_uring, beside stage 6: its echo server only (W5,
# W6). Where io_uring is refused its server does not start, and says why in the results.
cp "$RELEASE/bench-monoio" "$BIN/"
echo_systems+=(monoio)
seen=" "
for dir in crates/stage*-*/; do
    stage=$(basename "$dir" | cut -d- -f1)
    # stage5-event-loop and stage5-python are one stage: measure it once.
    case $seen in *" $stage "*) continue ;; esac
    seen="$seen$stage "
    if [ -x "$RELEASE/bench-$stage" ]; then
        cp "$RELEASE/bench-$stage" "$BIN/"
        inproc+=("$stage")
    else
        say "$stage: no bench-$stage binary (crates/bench/src/systems/$stage.rs): W1-W4 skipped"
    fi
    if serves "$stage"; then
        echo_systems+=("$stage") # its echo server is in the harness (`bench-$stage serve`)
        # Its other servers (stage 5's Protocol and streams: `bench-$stage serve --api NAME`).
        for api in $("$BIN/bench-$stage" --list | sed -n 's/^serve --api \([a-z]*\):.*/\1/p'); do
            echo_systems+=("$stage-$api")
        done
    elif [ ! -f "$dir/examples/echo_server.rs" ]; then
        say "$stage: no echo_server example: W5, W6 skipped"
    # One package at a time, copied out at once: every stage's example is called
    # echo_server, and they share target/release/examples/echo_server.
    elif cargo build -q --release -p "$stage" --example echo_server; then
        cp "$RELEASE/examples/echo_server" "$BIN/$stage-echo_server"
        echo_systems+=("$stage")
    else
        say "$stage: echo_server does not build: W5, W6 skipped"
    fi
done

step "python: asyncio, and uvloop in $OUT/venv"
PY=python3
if [ -x "$OUT/venv/bin/python" ] || python3 -m venv "$OUT/venv" >/dev/null; then
    PY=$OUT/venv/bin/python
fi
inproc+=(asyncio)
echo_systems+=(asyncio asyncio-streams) # its Protocol server, and its streams one
if "$PY" -c 'import uvloop' 2>/dev/null ||
    timeout 300 "$PY" -m pip install -q --disable-pip-version-check \
        "$(grep '^uvloop' bench/python/requirements.txt)" >&2; then
    inproc+=(uvloop)
    echo_systems+=(uvloop uvloop-streams)
else
    say "uvloop could not be installed: skipped"
fi
# rloop (a Rust asyncio loop on PyPI), from the same requirements; a run goes on without it.
if "$PY" -c 'import rloop' 2>/dev/null ||
    timeout 300 "$PY" -m pip install -q --disable-pip-version-check \
        "$(grep '^rloop' bench/python/requirements.txt)" >&2; then
    inproc+=(rloop)
    echo_systems+=(rloop rloop-streams)
else
    say "rloop could not be installed: skipped"
fi
# scratchloop: asyncio's Python layers on stage 5's Rust core (crates/stage5-python), the
# same Python code as the asyncio rows; built with maturin, pip-installed in the same venv.
if timeout 600 bash -c '
    set -e
    "$1/bin/maturin" --version >/dev/null 2>&1 || "$1/bin/pip" install -q --disable-pip-version-check "maturin>=1.5,<2"
    rm -rf "$2/wheels"
    "$1/bin/maturin" build -q --release -m crates/stage5-python/Cargo.toml -i "$1/bin/python" -o "$2/wheels"
    "$1/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$2"/wheels/scratchloop-*.whl
    ' _ "$OUT/venv" "$OUT" >&2 && "$PY" -c 'import scratchloop' 2>/dev/null; then
    inproc+=(scratchloop)
    echo_systems+=(scratchloop scratchloop-streams)
else
    say "scratchloop could not be built: skipped"
fi
say "in-process: ${inproc[*]}"
say "echo:       ${echo_systems[*]}"

RESULTS=$OUT/results.jsonl
: >"$RESULTS"
# record KIND ROUND SYSTEM EXTRA-JSON-FIELDS RESULT-JSON-OR-EMPTY ERROR
record() {
    if [ -n "$5" ]; then
        printf '{"kind":"%s","round":%s,"system":"%s"%s,"result":%s}\n' "$1" "$2" "$3" "$4" "$5"
    else
        printf '{"kind":"%s","round":%s,"system":"%s"%s,"error":"%s"}\n' "$1" "$2" "$3" "$4" "$6"
    fi >>"$RESULTS"
}
field() { sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p" <<<"$1"; }

# ---------------------------------------------------------------------------------------
run_inproc() { # ROUND SYSTEM WORKLOAD
    local cmd out
    case "$2" in
        asyncio | uvloop | rloop | scratchloop) cmd=("$PY" bench/python/workloads.py --loop "$2" "$3") ;;
        *) cmd=("$BIN/bench-$2" "$3") ;;
    esac
    local status=0
    out=$(timeout 300 "${PIN_CLIENT[@]}" "${cmd[@]}") || status=$?
    if [ "$status" != 0 ]; then
        say "  $3 $2: FAILED (exit status $status)"
        record inproc "$1" "$2" ",\"workload\":\"$3\"" "" "exit status $status"
        return
    fi
    while IFS= read -r line; do
        local sys
        sys=$(field "$line" system)
        record inproc "$1" "$sys" ",\"workload\":\"$3\"" "$line"
        if [ "$3" = W3 ]; then
            say "$(printf '  %s %-12s %10.1f ms CPU' "$3" "$sys" "$(field "$line" cpu_ns)e-6")"
        else
            say "$(printf '  %s %-12s %10.1f ns/op' "$3" "$sys" "$(field "$line" wall_ns_per_op)")"
        fi
    done <<<"$out"
}

# ---------------------------------------------------------------------------------------
SERVER_TIMEOUT_PID=""
SERVER_PID=""
ERROR="" # why the last try_echo or try_hold failed
SERVER_ADDR=""
stop_server() {
    if [ -n "$SERVER_TIMEOUT_PID" ]; then
        kill "$SERVER_TIMEOUT_PID" 2>/dev/null || true # timeout passes it on to the server
        wait "$SERVER_TIMEOUT_PID" 2>/dev/null || true
    fi
    SERVER_TIMEOUT_PID=""
    SERVER_PID=""
}
trap stop_server EXIT

start_server() { # SYSTEM; sets SERVER_PID (the server itself) and SERVER_ADDR
    local cmd line log=$OUT/server.log
    case "$1" in
        asyncio | uvloop | rloop | scratchloop)
            cmd=("$PY" bench/python/echo_server.py --loop "$1" --addr 127.0.0.1:0 --max-secs 600)
            ;;
        asyncio-streams | uvloop-streams | rloop-streams | scratchloop-streams)
            cmd=("$PY" bench/python/echo_server.py --loop "${1%-streams}" --api streams
                --addr 127.0.0.1:0 --max-secs 600)
            ;;
        *-protocol | *-streams) # another of a stage's servers: `serve --api NAME`
            cmd=("$BIN/bench-${1%-*}" serve --api "${1##*-}" --addr 127.0.0.1:0 --max-secs 600)
            ;;
        *) if serves "$1"; then
            cmd=("$BIN/bench-$1" serve --addr 127.0.0.1:0 --max-secs 600)
        else
            cmd=("$BIN/$1-echo_server" --plain --addr 127.0.0.1:0)
        fi ;;
    esac
    # Emptied here, not by the child's redirection: the child may run after the loop below
    # has read the last server's address (a stale port: "Connection refused").
    : >"$log"
    timeout 600 "${PIN_SERVER[@]}" "${cmd[@]}" >/dev/null 2>>"$log" &
    SERVER_TIMEOUT_PID=$!
    SERVER_ADDR=""
    SERVER_ADDR=$(listening_on "$log" 100) || true
    SERVER_PID=$(cat "/proc/$SERVER_TIMEOUT_PID/task/$SERVER_TIMEOUT_PID/children" 2>/dev/null |
        awk '{print $1}')
    if [ -z "$SERVER_ADDR" ] || [ -z "$SERVER_PID" ]; then
        say "  $1: the server did not start: $(head -c 300 "$log")"
        stop_server
        return 1
    fi
    sleep 0.2 # let it settle before its memory or CPU time is read
}

is_polling() { case "$1" in stage1 | stage2 | stage3) return 0 ;; *) return 1 ;; esac; }

# A measurement that fails (a server that does not come up, a client that cannot connect:
# on a shared machine another program's load or its thousands of closing connections can
# cause either) is tried once more, after a pause; only a second failure is recorded.
try_echo() { # ROUND SYSTEM CONNS; false on failure, with ERROR set
    local out
    if ! start_server "$2"; then
        ERROR="server did not start"
        return 1
    fi
    if out=$(timeout 120 "${PIN_CLIENT[@]}" "$BIN/loadgen" --addr "$SERVER_ADDR" --conns "$3" \
        --secs "$W5_SECS" --warmup "$W5_WARMUP" --size "$W5_SIZE" --server-pid "$SERVER_PID"); then
        record echo "$1" "$2" ",\"conns\":$3" "$out"
        say "$(printf '  W5 C=%-5s %-8s %9.0f msg/s  p50 %6s us  p99 %6s us  server %7s us CPU/msg' \
            "$3" "$2" "$(field "$out" msgs_per_sec)" "$(field "$out" p50_us)" \
            "$(field "$out" p99_us)" "$(field "$out" server_cpu_us_per_msg)")"
        stop_server
        return 0
    fi
    stop_server
    ERROR="loadgen failed"
    return 1
}

run_echo() { # ROUND SYSTEM CONNS
    try_echo "$@" && return
    say "  W5 C=$3 $2: $ERROR; once more in 5 s"
    sleep 5
    try_echo "$@" && return
    say "  W5 C=$3 $2: FAILED ($ERROR)"
    record echo "$1" "$2" ",\"conns\":$3" "" "$ERROR"
}

try_hold() { # ROUND SYSTEM; false on failure, with ERROR set
    local out
    if ! start_server "$2"; then
        ERROR="server did not start"
        return 1
    fi
    if out=$(timeout $((W6_HOLD_SECS + 60)) "${PIN_CLIENT[@]}" "$BIN/loadgen" \
        --addr "$SERVER_ADDR" --conns "$W6_CONNS" --hold "$W6_HOLD_SECS" \
        --server-pid "$SERVER_PID"); then
        record hold "$1" "$2" "" "$out"
        say "$(printf '  W6 %-8s %8s KiB -> %8s KiB  %6s B/conn  all accepted: %s' "$2" \
            "$(field "$out" rss_before_kib)" "$(field "$out" rss_held_kib)" \
            "$(field "$out" rss_per_conn_bytes)" "$(field "$out" all_accepted)")"
        stop_server
        return 0
    fi
    stop_server
    ERROR="loadgen failed"
    return 1
}

run_hold() { # ROUND SYSTEM
    try_hold "$@" && return
    say "  W6 $2: $ERROR; once more in 5 s"
    sleep 5
    try_hold "$@" && return
    say "  W6 $2: FAILED ($ERROR)"
    record hold "$1" "$2" "" "" "$ERROR"
}

# W6 holds W6_CONNS connections in loadgen and as many in the server.
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((W6_CONNS + 200)) ]; then
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    say "open-file limit raised to $(ulimit -n)"
fi

# ---------------------------------------------------------------------------------------
for round in $(seq "$ROUNDS"); do
    step "round $round/$ROUNDS: W1-W4 in process"
    for workload in W1 W2 W3 W4; do
        for system in "${inproc[@]}"; do
            case "$system" in
                asyncio | uvloop | rloop | scratchloop) run_inproc "$round" "$system" "$workload" ;;
                # grep reads the whole list (not -q): a list cut short by a closed pipe
                # fails under pipefail, which hid stage 6's W2, its first line.
                *) if "$BIN/bench-$system" --list | grep "^$workload " >/dev/null; then
                    run_inproc "$round" "$system" "$workload"
                fi ;;
            esac
        done
    done
done
for round in $(seq "$W5_ROUNDS"); do
    step "round $round/$W5_ROUNDS: W5 echo, ${W5_WARMUP}s warm-up + ${W5_SECS}s"
    for conns in ${W5_CONNS//,/ }; do
        for system in "${echo_systems[@]}"; do
            if is_polling "$system" && [[ ",$W5_POLLING_CONNS," != *",$conns,"* ]]; then
                continue
            fi
            run_echo "$round" "$system" "$conns"
        done
    done
done
for round in $(seq "$W6_ROUNDS"); do
    step "round $round/$W6_ROUNDS: W6, $W6_CONNS idle connections"
    for system in "${echo_systems[@]}"; do
        run_hold "$round" "$system"
    done
done

# ---------------------------------------------------------------------------------------
elapsed=$(($(date +%s) - started_at))
step "report: $REPORT"
python3 bench/python/report.py --results "$RESULTS" --out "$REPORT" --python "$PY" \
    --command "$command_line" --seconds "$elapsed" --template docs/src/benchmarks.md \
    --load-start "$load_at_start"
# The raw results of a full run stay beside the page they made (bench/measured/README.md),
# so the run the tables and the book's quoted figures come from is a file.
if [ "$REPORT" = docs/src/benchmarks.md ]; then
    cp "$RESULTS" bench/measured/benchmarks.jsonl
    # The book quotes cells of these tables in marks (tests/figures.rs): a changed cell
    # fails that test until the quoted figures follow.
    say "the book quotes these tables: UPDATE_FIGURES=1 cargo test --test figures makes its"
    say "quoted figures follow; then reread the sentences around the ones that changed"
fi
if [ "$REPORT" = docs/src/benchmarks.md ] && [ "${BENCH_COUNTS:-1}" = 1 ]; then
    step "counts: bash bench/counts.sh"
    if command -v valgrind >/dev/null && command -v strace >/dev/null; then
        bash bench/counts.sh
    else
        say "no valgrind or strace: the counts on the page stay those of bench/measured/counts.jsonl"
    fi
fi
say "done in ${elapsed}s"
