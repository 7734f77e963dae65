#!/usr/bin/env bash
# Counts, not times, of what an echo server does per message (the book's "Beyond one core",
# "Why a message costs more"): system calls of each kind, how many `epoll_wait`s and how
# many events each returned, and, under callgrind, the server's own instructions and
# first-level cache misses. Counts move far less than times when other work shares the
# machine, and instruction counts not at all.
#
#   bash bench/loop-counts.sh                  every configuration below, ROUNDS times
#   CALLGRIND=1 bash bench/loop-counts.sh      the same under callgrind (instructions)
#   STAGE5=path/to/echo_server bash bench/loop-counts.sh     another build of stage 5's server
#
# Each configuration: the server pinned to core 0 (SERVER_CPUS), one `loadgen` on core 1
# (CLIENT_CPU), 64-byte messages in lockstep, or with a pause between a reply and the next
# message (a light load); after WARMUP seconds, `perf stat` counts the server's system calls
# for SECS seconds, then `perf record` takes every `epoll_wait`'s return value for SECS
# seconds. Messages are counted as the server's `sendto` calls (one per echoed message,
# each of 64 bytes). Under callgrind the server is some 50 times slower and always the
# bottleneck: its instructions per message are its own work, with no time in them; the
# counters are zeroed after the warm-up and dumped 2 x SECS later, so that opening the
# connections is not counted.
#
# Every server runs under `timeout` on 127.0.0.1 and is stopped by its PID; every load is
# bounded in connections and time. Needs perf (with the kernel's syscall tracepoints) or,
# for CALLGRIND=1, valgrind. Results: target/loop-counts/counts.jsonl and a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/listening.sh
say() { printf '%s\n' "$*" >&2; }
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-1}
WARMUP=${WARMUP:-2}
SERVER_CPUS=${SERVER_CPUS:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
CALLGRIND=${CALLGRIND:-0}
OUT=${OUT:-target/loop-counts}
mkdir -p "$OUT"
RESULTS=$OUT/counts.jsonl
: >"$RESULTS"
# server connections pause_ms [loops]: each one a configuration. The servers: stage5 (its
# echo_server example with --plain, the server of "Beyond one core"), bench-stage5 (the
# Benchmarks page's W5 server), tokio-ct and tokio-mt (TOKIO_WORKER_THREADS=loops).
CONFIGS=${CONFIGS:-"stage5 100 0 1
tokio-ct 100 0 1
stage5 1000 0 1
tokio-ct 1000 0 1
stage5 1000 0 2
tokio-mt 1000 0 2
stage5 100 1 1
tokio-ct 100 1 1"}

EVENTS=raw_syscalls:sys_enter,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl
EVENTS=$EVENTS,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendto,syscalls:sys_enter_futex
EVENTS=$EVENTS,context-switches
if [ "$CALLGRIND" = 1 ]; then
    command -v valgrind >/dev/null || { say "CALLGRIND=1 needs valgrind"; exit 1; }
elif ! perf stat -e "$EVENTS" -- true >/dev/null 2>&1; then
    say "bench/loop-counts.sh needs perf, allowed to count the kernel's syscall tracepoints"
    exit 1
fi

say "== build (release)"
cargo build -q --release -p loadgen -p bench --bins
cargo build -q --release -p stage5 --example echo_server
T=${CARGO_TARGET_DIR:-target}
STAGE5=${STAGE5:-$T/release/examples/echo_server}
say "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), Linux $(uname -r);" \
    "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

TIMEOUT_PID=""
SERVER_PID=""
stop_server() {
    if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; fi
    if [ -n "$TIMEOUT_PID" ]; then wait "$TIMEOUT_PID" 2>/dev/null || true; fi
    TIMEOUT_PID="" SERVER_PID=""
}
trap stop_server EXIT

one() { # ROUND SERVER CONNS PAUSE LOOPS
    local round=$1 server=$2 conns=$3 pause=$4 loops=$5 command=() addr="" line wrap=() gen
    case $server in
    stage5) command=("$STAGE5" --plain --addr 127.0.0.1:0 --loops "$loops") ;;
    bench-stage5) command=("$T/release/bench-stage5" serve --addr 127.0.0.1:0 --max-secs 300) ;;
    tokio-ct) command=("$T/release/bench-tokio" serve --addr 127.0.0.1:0 --max-secs 300) ;;
    tokio-mt) command=("$T/release/bench-tokio-mt" serve --addr 127.0.0.1:0 --max-secs 300) ;;
    esac
    if [ "$CALLGRIND" = 1 ]; then
        rm -f "$OUT"/callgrind.out*
        wrap=(valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$OUT/callgrind.out")
    fi
    : >"$OUT/server.err"
    TOKIO_WORKER_THREADS=$loops timeout 300 taskset -c "$SERVER_CPUS" "${wrap[@]}" "${command[@]}" \
        >"$OUT/server.out" 2>"$OUT/server.err" &
    TIMEOUT_PID=$!
    addr=$(listening_on "$OUT/server.err" 300) || true
    SERVER_PID=$(awk '{print $1}' "/proc/$TIMEOUT_PID/task/$TIMEOUT_PID/children" 2>/dev/null || true)
    if [ -z "$addr" ] || [ -z "$SERVER_PID" ]; then
        say "server did not start: $(cat "$OUT/server.err")"
        exit 1
    fi
    timeout 120 taskset -c "$CLIENT_CPU" "$T/release/loadgen" --addr "$addr" --conns "$conns" \
        --size 64 --pause "$pause" --warmup "$WARMUP" --secs "$((2 * SECS + 1))" \
        >"$OUT/loadgen.json" &
    gen=$!
    if [ "$CALLGRIND" = 1 ]; then
        # Count the window only: zero the counters after the warm-up (connections opened,
        # tasks started), dump them 2 × SECS later (callgrind.out.1).
        sleep "$WARMUP"
        callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
        sleep "$((2 * SECS))"
        callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
        wait "$gen"
    else
        sleep "$WARMUP"
        perf stat -x, -o "$OUT/stat.csv" -e "$EVENTS" -p "$SERVER_PID" -- sleep "$SECS"
        perf record -q -o "$OUT/waits.data" -e syscalls:sys_exit_epoll_wait -p "$SERVER_PID" \
            -- sleep "$SECS" 2>/dev/null
        perf script -i "$OUT/waits.data" -F trace 2>/dev/null >"$OUT/waits.txt"
        wait "$gen"
    fi
    stop_server
    python3 - "$OUT" "$round" "$server" "$conns" "$pause" "$loops" "$CALLGRIND" <<'EOF' >>"$RESULTS"
import json, re, subprocess, sys
out, rnd, server, conns, pause, loops, callgrind = sys.argv[1:]
row = {"round": int(rnd), "server": server, "conns": int(conns), "pause_ms": int(pause),
       "n": int(loops)}
row["loadgen"] = {k: json.load(open(f"{out}/loadgen.json"))[k]
                  for k in ("msgs_per_sec", "p50_us", "p99_us")}
if callgrind == "1":
    text = subprocess.run(["callgrind_annotate", "--tree=caller", "--threshold=100",
                           f"{out}/callgrind.out.1"], capture_output=True, text=True).stdout
    events = re.search(r"^Events shown:\s+(.*)$", text, re.M).group(1).split()
    totals = re.search(r"^(.*)PROGRAM TOTALS", text, re.M).group(1).split()
    totals = [0 if t == "." else int(t.replace(",", "")) for t in totals if t[0] != "("]
    totals = dict(zip(events, totals))
    def calls(pattern):  # the calls into the function the block's `*` line names
        n = 0
        for block in text.split("\n\n"):
            lines = block.strip().split("\n")
            star = [l for l in lines if "*  " in l]
            if star and re.search(pattern, star[0]):
                n += sum(int(m.group(1).replace(",", "")) for l in lines
                         for m in [re.search(r"< .*\(([\d,]+)x\)", l)] if m)
        return n
    msgs = calls(r"linux/send\.c:send ")
    row["messages"] = msgs
    if msgs == 0:  # the server echoed nothing in the window: nothing to divide by
        print(json.dumps({**row, "error": "no message in the window"}))
        sys.exit(0)
    for name, pattern in (("epoll_wait", r"epoll_wait\.c:epoll_wait "),
                          ("epoll_ctl", r":epoll_ctl "), ("malloc", r"malloc\.c:malloc ")):
        row[name + "_per_msg"] = round(calls(pattern) / msgs, 4)
    for event in ("Ir", "Dr", "Dw", "D1mr", "D1mw"):
        row[event + "_per_msg"] = round(totals[event] / msgs, 1)
else:
    counts = {}
    for line in open(f"{out}/stat.csv"):
        parts = line.strip().split(",")
        if len(parts) > 2 and parts[0].isdigit():
            counts[parts[2].split(":")[-1]] = int(parts[0])
    msgs = counts.get("sys_enter_sendto", 0)
    row["messages"] = msgs
    if msgs == 0:  # the server echoed nothing in the window: nothing to divide by
        print(json.dumps({**row, "error": "no message in the window"}))
        sys.exit(0)
    for name, key in (("syscalls", "sys_enter"), ("epoll_wait", "sys_enter_epoll_wait"),
                      ("epoll_ctl", "sys_enter_epoll_ctl"), ("recvfrom", "sys_enter_recvfrom"),
                      ("futex", "sys_enter_futex"), ("context_switches", "context-switches")):
        row[name + "_per_msg"] = round(counts.get(key, 0) / msgs, 4)
    rets = [int(m.group(1), 16) for m in
            re.finditer(r"0x([0-9a-f]+)\s*$", open(f"{out}/waits.txt").read(), re.M)]
    events = sum(rets)
    row["epoll_waits"] = len(rets)
    row["events_per_wait"] = round(events / max(1, len(rets)), 1)
    # What an event sees: the size of the batch it came in, averaged over events.
    row["batch_per_event"] = round(sum(r * r for r in rets) / max(1, events), 1)
    row["empty_waits"] = sum(1 for r in rets if r == 0)
print(json.dumps(row))
EOF
    tail -1 "$RESULTS" >&2
}

for round in $(seq "$ROUNDS"); do
    while read -r server conns pause loops; do
        [ -n "$server" ] && one "$round" "$server" "$conns" "$pause" "${loops:-1}"
    done <<<"$CONFIGS"
done
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$RESULTS" "$CALLGRIND" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = ["Ir", "Dr", "D1mr", "D1mw", "malloc", "epoll_wait", "epoll_ctl"] if sys.argv[2] == "1" else \
    ["syscalls", "epoll_wait", "epoll_ctl", "recvfrom", "futex", "context_switches"]
extra = [] if sys.argv[2] == "1" else ["events_per_wait", "batch_per_event"]
groups = {}
for r in (r for r in rows if "error" not in r):
    groups.setdefault((r["server"], r["n"], r["conns"], r["pause_ms"]), []).append(r)
print("| server | N | C | pause ms | " + " | ".join(k + " /msg" for k in keys)
      + "".join(f" | {e}" for e in extra) + " |")
print("| --- | ---: | ---: | ---: |" + " ---: |" * (len(keys) + len(extra)))
def cell(vs, spec):
    m = statistics.median(vs)
    return format(m, spec) if len(vs) == 1 else f"{m:{spec}} ({min(vs):{spec}}–{max(vs):{spec}})"
for (server, n, conns, pause), rs in groups.items():
    cells = [cell([r[k + "_per_msg"] for r in rs], ".0f" if k in ("Ir", "Dr") else ".3f")
             for k in keys] + [cell([r[e] for r in rs], ".1f") for e in extra]
    print(f"| {server} | {n} | {conns} | {pause} | " + " | ".join(cells) + " |")
EOF
