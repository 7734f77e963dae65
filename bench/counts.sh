#!/usr/bin/env bash
# Counts, not times: the user-space instructions (valgrind's callgrind) and the system calls
# (strace -c -f) of W1, W2 and the W5 echo, for stage 5, tokio and the floor, and of stage
# 5's echo server on one and two loops. A count does not move when other work shares the
# machine, so these figures compare systems where seconds on a shared machine cannot.
#
#   bash bench/counts.sh            all of it, a few minutes on 2 cores; writes
#                                   bench/measured/counts.jsonl and bench/measured/counts.md
#   ONLY=W1 bash bench/counts.sh    only the rows of W1 (or W2, W5, loops, order), to
#                                   target/counts/ instead (ROWS=... picks rows one by one)
#   bash bench/run.sh               runs this after a full run (BENCH_COUNTS=0: not)
#
# Each row is counted twice, over N1 and over N2 operations, and reported as the marginal
# count, (count(N2) - count(N1)) / (N2 - N1): start-up, connecting, shutting down and
# anything else done once cancel out, and what is left is the cost of one more operation.
#
# - W1, W2: the benchmark harness's own workload functions (`bench-SYSTEM W1`), with the CPU
#   clock off (BENCH_CPU_CLOCK=off: valgrind stops the process at rustix's lookup of the
#   vDSO), callgrind collecting inside the row's function only (`--toggle-collect`; the
#   floor's W2 binary runs both of its rows in one process).
# - W5: the benchmarks' echo servers (`bench-SYSTEM serve`; stage 5's example
#   `echo_server --plain --loops N` for the loop rows, and tokio's multi-thread runtime with
#   N workers), driven by bench/python/lockstep.py: C connections, 64-byte messages in
#   lockstep, a fixed number on each connection, then closed; the server is stopped by its
#   PID (SIGTERM) once it has closed them all, and callgrind or strace writes its totals.
#   Under callgrind the server runs tens of times slower than natively, so it finds more
#   events per select than it would at full speed: its count per message is the work at
#   that batch size, which is the loaded case.
#
# Every process runs under `timeout`, on 127.0.0.1 only, and is stopped by its PID.
# Needs valgrind, strace and python3. BIN_DIR=DIR: take prebuilt release binaries
# (bench-floor, bench-tokio, bench-tokio-mt, bench-stage5, echo_server) from DIR, not cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/listening.sh
say() { printf '%s\n' "$*" >&2; }
for tool in valgrind strace python3; do
    command -v "$tool" >/dev/null || { say "bench/counts.sh needs $tool"; exit 1; }
done
started=$(date +%s)
ONLY=${ONLY:-}
if [ -n "$ONLY" ]; then OUT=${OUT:-target/counts}; else OUT=${OUT:-bench/measured}; fi
WORK=target/counts
mkdir -p "$OUT" "$WORK"
# Operations per row: in-process N1 and N2; echo messages per connection at C=50 and C=1000.
INPROC_N=${INPROC_N:-"20000 120000"}
PER_50=${PER_50:-"20 220"}
PER_1000=${PER_1000:-"3 23"}
ORDER_PER=${ORDER_PER:-5} # messages per connection in the traced runs
# Rounds of the echo, loop and order rows: how many events one select finds, and so the
# instructions per message, varies from run to run; the in-process rows do not vary (the
# same count to the instruction) and run once.
ROUNDS=${ROUNDS:-3}
# KIND SYSTEM WHAT: in-process rows (WHAT: the workload), echo rows (WHAT: connections);
# `order` rows run stage 5's echo_server with `--trace` (`--api sock` or `streams`) and
# count, from the trace, the selects and handles between a task's wake-up and its step.
# `stage5-loops:N` is stage 5's echo_server example on N loops, `tokio-mt:N` tokio's
# multi-thread runtime with N workers.
ROWS=${ROWS:-"inproc floor W1
inproc tokio W1
inproc stage5 W1
inproc floor W2
inproc floor+epoll W2
inproc tokio W2
inproc stage5 W2
echo floor 50
echo tokio 50
echo stage5 50
echo floor 1000
echo tokio 1000
echo stage5 1000
loops stage5-loops:1 1000
loops stage5-loops:2 1000
loops tokio-mt:2 1000
order sock 1000
order streams 1000"}

if [ -n "${BIN_DIR:-}" ]; then
    B=$BIN_DIR
    for bin in bench-floor bench-tokio bench-tokio-mt bench-stage5 echo_server; do
        [ -x "$B/$bin" ] || { say "BIN_DIR=$B has no $bin"; exit 1; }
    done
else
    say "== build (release)"
    cargo build -q --release -p bench --bins
    cargo build -q --release -p stage5 --example echo_server
    B=$WORK/bin
    mkdir -p "$B"
    T=${CARGO_TARGET_DIR:-target}/release
    cp "$T"/bench-floor "$T"/bench-tokio "$T"/bench-tokio-mt "$T"/bench-stage5 "$B/"
    cp "$T"/examples/echo_server "$B/"
fi

PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# The counts of one run: `ir` (callgrind's total) or `syscalls` (strace's calls by name).
callgrind_total() {
    local total
    total=$(sed -n 's/^\(totals\|summary\): *\([0-9]*\).*/\2/p' "$1" 2>/dev/null | head -1)
    [ -n "$total" ] || { say "callgrind wrote no total ($1)"; exit 1; }
    echo "$total"
}
strace_calls() { # strace -c's table as a JSON object {name: calls}
    python3 -c '
import json, sys
calls, inside = {}, False
for line in open(sys.argv[1]):
    f = line.split()
    if line.startswith("------"):
        if inside: break
        inside = True
    elif inside and len(f) >= 5:
        calls[f[-1]] = int(f[3])
print(json.dumps(calls, sort_keys=True))' "$1"
}

inproc() { # TOOL SYSTEM WORKLOAD N: prints the count
    local tool=$1 system=$2 workload=$3 n=$4 bin fn file=$WORK/run.out
    bin=$B/bench-${system%+epoll}
    fn=bench::systems::${system%+epoll}::$(tr 'W' 'w' <<<"$workload")
    [ "$system" = floor+epoll ] && fn=$fn\_epoll
    local env=(BENCH_CPU_CLOCK=off REPEAT=1 W1_CALLBACKS="$n" W2_STEPS="$n")
    rm -f "$file"
    if [ "$tool" = callgrind ]; then
        env "${env[@]}" timeout 300 valgrind -q --tool=callgrind --callgrind-out-file="$file" \
            --toggle-collect="$fn" "$bin" "$workload" >/dev/null
        callgrind_total "$file"
    else
        env "${env[@]}" timeout 300 strace -f -c -o "$file" "$bin" "$workload" >/dev/null
        strace_calls "$file"
    fi
}

# Stage 5's instructions of the last callgrind run by what they do (the `where` table);
# null for the other systems.
groups() {
    if [ "$1" = stage5 ]; then
        python3 bench/counts_report.py groups "$WORK/run.out"
    else
        echo null
    fi
}

fds() { find "/proc/$1/fd" -mindepth 1 2>/dev/null | wc -l; }

# One echo run, tried once more after a pause if the server or the client failed (another
# program's load on a shared machine can slow a server under valgrind past the wait).
echo_try() {
    echo_run "$@" && return
    say "  $2 C=$3: failed; once more in 5 s"
    sleep 5
    echo_run "$@"
}

echo_run() { # TOOL SERVER CONNS PER: prints the count
    local tool=$1 server=$2 conns=$3 per=$4 file=$WORK/run.out cmd wrap tpid pid addr="" line
    case $server in
    stage5-loops:*) cmd=("$B/echo_server" --plain --addr 127.0.0.1:0 --loops "${server#*:}") ;;
    sock | streams) cmd=("$B/echo_server" --plain --addr 127.0.0.1:0 --api "$server" --trace) ;;
    tokio-mt:*) cmd=("$B/bench-tokio-mt" serve --addr 127.0.0.1:0 --max-secs 300) ;;
    *) cmd=("$B/bench-$server" serve --addr 127.0.0.1:0 --max-secs 300) ;;
    esac
    local stdout=/dev/null
    case $tool in
    callgrind) wrap=(valgrind -q --tool=callgrind --callgrind-out-file="$file") ;;
    strace) wrap=(strace -f -c -o "$file") ;;
    trace) wrap=() stdout=$file ;; # the loop's trace is on its standard output
    esac
    rm -f "$file"
    : >"$WORK/server.err"
    local workers=1
    case $server in *:*) workers=${server#*:} ;; esac
    TOKIO_WORKER_THREADS=$workers timeout 300 "${wrap[@]}" "${cmd[@]}" \
        >"$stdout" 2>"$WORK/server.err" &
    tpid=$!
    PIDS=("$tpid")
    addr=$(listening_on "$WORK/server.err" 600) || true
    # The server's PID: valgrind runs it in its own process (timeout's child); strace as
    # its child.
    pid=$(awk '{print $1}' "/proc/$tpid/task/$tpid/children" 2>/dev/null || true)
    if [ "$tool" = strace ] && [ -n "$pid" ]; then
        pid=$(awk '{print $1}' "/proc/$pid/task/$pid/children" 2>/dev/null || true)
    fi
    if [ -z "$addr" ] || [ -z "$pid" ]; then
        say "$server: the server did not start within 60 s: $(head -c 300 "$WORK/server.err")"
        kill "$tpid" 2>/dev/null || true # timeout passes it on to what it runs
        wait "$tpid" 2>/dev/null || true
        return 1
    fi
    local before
    before=$(fds "$pid")
    if ! timeout 300 python3 bench/python/lockstep.py --addr "$addr" --conns "$conns" \
        --per "$per" >"$WORK/client.json"; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$tpid" 2>/dev/null || true
        return 1
    fi
    # Stop it once it has closed every connection the client closed: its descriptors are
    # back to what they were, or have not changed for a second (a thread started after
    # `listening on` may hold one more); at most 60 s.
    local now last=-1 same=0
    for _ in $(seq 300); do
        now=$(fds "$pid")
        [ "$now" -le "$before" ] && break
        if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0; fi
        [ "$same" -ge 5 ] && break
        last=$now
        sleep 0.2
    done
    kill -TERM "$pid"
    wait "$tpid" || true # ended by SIGTERM: its exit status says only that
    PIDS=()
    case $tool in
    callgrind) callgrind_total "$file" ;;
    strace) strace_calls "$file" ;;
    trace) python3 bench/counts_report.py trace "$file" ;;
    esac
}

say "valgrind: $(valgrind --version); $(strace -V | head -1)"
RESULTS=$WORK/counts.jsonl
{
    printf '{"kind":"run","date":"%s","commit":"%s","machine":"%s","valgrind":"%s","strace":"%s","rustc":"%s"}\n' \
        "$(date -u '+%Y-%m-%d %H:%M UTC')" \
        "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')" \
        "$(nproc)-core $(uname -m), $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), Linux $(uname -r)" \
        "$(valgrind --version)" "$(strace -V | head -1)" "$(rustc --version 2>/dev/null || echo unknown)"
} >"$RESULTS"
for round in $(seq "$ROUNDS"); do
    say "== round $round/$ROUNDS"
    while read -r kind system what; do
        [ -n "$kind" ] || continue
        [ "$kind" = inproc ] && [ "$round" != 1 ] && continue
        case $kind in inproc) key=$what ;; echo) key=W5 ;; *) key=$kind ;; esac
        case $ONLY in '' | "${key:0:${#ONLY}}") ;; *) continue ;; esac
        if [ "$kind" = order ]; then
            summary=$(echo_try trace "$system" "$what" "$ORDER_PER")
            line="{\"kind\":\"order\",\"round\":$round,\"system\":\"$system\",\"conns\":$what,\"per\":$ORDER_PER,\"trace\":$summary}"
            echo "$line" >>"$RESULTS"
            say "$(python3 bench/counts_report.py line "$line")"
            continue
        elif [ "$kind" = inproc ]; then
            read -r n1 n2 <<<"$INPROC_N"
            ir1=$(inproc callgrind "$system" "$what" "$n1")
            gr1=$(groups "$system")
            ir2=$(inproc callgrind "$system" "$what" "$n2")
            gr2=$(groups "$system")
            sc1=null sc2=null
            # The floor's W2 binary runs both rows in one process: its system calls are
            # floor+epoll's (the bare floor's chain makes none).
            if [ "$system $what" != "floor W2" ]; then
                sc1=$(inproc strace "$system" "$what" "$n1")
                sc2=$(inproc strace "$system" "$what" "$n2")
            fi
            fields="\"workload\":\"$what\",\"system\":\"$system\",\"n\":[$n1,$n2]"
        else
            case $what in 50) per=$PER_50 ;; 1000) per=$PER_1000 ;; *) per="3 23" ;; esac
            read -r p1 p2 <<<"$per"
            ir1=$(echo_try callgrind "$system" "$what" "$p1")
            ob1=$(python3 bench/counts_report.py objects "$WORK/run.out")
            gr1=$(groups "$system")
            ir2=$(echo_try callgrind "$system" "$what" "$p2")
            ob2=$(python3 bench/counts_report.py objects "$WORK/run.out")
            gr2=$(groups "$system")
            sc1=$(echo_try strace "$system" "$what" "$p1")
            sc2=$(echo_try strace "$system" "$what" "$p2")
            fields="\"workload\":\"W5\",\"system\":\"$system\",\"conns\":$what,\"n\":[$((p1 * what)),$((p2 * what))]"
            fields="$fields,\"ir_objects\":[$ob1,$ob2]"
        fi
        [ "$gr1" = null ] || fields="$fields,\"ir_groups\":[$gr1,$gr2]"
        line="{\"kind\":\"$kind\",\"round\":$round,$fields,\"ir\":[$ir1,$ir2],\"syscalls\":[$sc1,$sc2]}"
        echo "$line" >>"$RESULTS"
        say "$(python3 bench/counts_report.py line "$line")"
    done <<<"$ROWS"
done

[ "$OUT" = "$WORK" ] || cp "$RESULTS" "$OUT/counts.jsonl"
python3 bench/counts_report.py page "$OUT/counts.jsonl" "$OUT/counts.md"
say "done in $(($(date +%s) - started))s: $OUT/counts.jsonl, $OUT/counts.md"
