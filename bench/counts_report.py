#!/usr/bin/env python3
"""The tables of bench/counts.sh: instructions and system calls per operation.

    python3 bench/counts_report.py page COUNTS.jsonl OUT.md [--check]
        the tables as one Markdown file the benchmarks page includes (--check: fail,
        writing nothing, if OUT.md is not exactly what it would write)
    python3 bench/counts_report.py trace TRACE
        (bench/counts.sh) from stage 5's `--trace` output, one JSON object: for every task
        step that follows a wake-up, how many selects and how many handles ran between the
        wake-up and the step
    python3 bench/counts_report.py objects CALLGRIND.OUT
        (bench/counts.sh) the instructions of a callgrind output by where they ran: the
        program's own code, the C library, or elsewhere (the dynamic loader)
    python3 bench/counts_report.py groups CALLGRIND.OUT
        (bench/counts.sh) the instructions of a callgrind output by what they do in stage
        5's loop (GROUPS: its functions, matched by name), for the `where` table
    python3 bench/counts_report.py line JSON
        (bench/counts.sh) one row's counts per operation, as it goes

COUNTS.jsonl: a first line {"kind": "run", ...} (when, at which commit, on what machine,
with which valgrind and strace), then one line per row: its workload, system, connections
(echo), the two operation counts `n`, callgrind's instructions `ir` over each, and strace's
calls by name `syscalls` over each (null where not counted). Every figure is a marginal
count, (count(n2) - count(n1)) / (n2 - n1).

Only the standard library; the same file always gives the same bytes (tests/figures.rs).
"""

import json
import re
import statistics
import subprocess
import sys
from collections import defaultdict

from generated import write_or_check

UNIT = {"W1": "callback", "W2": "step", "W5": "message"}
SYSCALLS_SHOWN = ["epoll_wait", "epoll_pwait", "epoll_ctl", "recvfrom", "read", "sendto",
                  "write", "futex"]


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def per_op(row, key):
    (n1, n2), (a, b) = row["n"], row[key]
    return (b - a) / (n2 - n1)


def per_object(row, kind):
    (n1, n2), (a, b) = row["n"], row["ir_objects"]
    return (b[kind] - a[kind]) / (n2 - n1)


def syscalls_per_op(row):
    """Calls per operation by name (those that changed), or None if not counted."""
    one, two = row["syscalls"]
    if one is None or two is None:
        return None
    (n1, n2) = row["n"]
    names = sorted(set(one) | set(two))
    out = {name: (two.get(name, 0) - one.get(name, 0)) / (n2 - n1) for name in names}
    return {k: v for k, v in out.items() if abs(v) >= 0.0005}


def count(value):
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.1f}"


def calls(value):
    return f"{value:.3f}"


def which(per):
    """The named calls of at least one per 200 operations, then the rest as `other` (less
    is start-up and shutdown that did not quite cancel out)."""
    shown = [f"{name} {calls(per[name])}" for name in SYSCALLS_SHOWN
             if abs(per.get(name, 0)) >= 0.005]
    other = sum(v for k, v in per.items() if k not in SYSCALLS_SHOWN)
    if abs(other) >= 0.005:
        shown.append(f"other {calls(other)}")
    return ", ".join(shown)


def label(row):
    return row["workload"] + (f" C={row['conns']}" if row["workload"] == "W5" else "")


def rounds(rows, kinds):
    """(label, system) -> that row's lines, one a round, in the order they first came."""
    out = {}
    for r in rows:
        if r["kind"] in kinds:
            out.setdefault((label(r), r["system"]), []).append(r)
    return out


def spread(values, fmt):
    """The median, with the range over rounds in brackets when they differ."""
    m = statistics.median(values)
    if len(values) == 1 or min(values) == max(values):
        return fmt(m)
    return f"{fmt(m)} ({fmt(min(values))}–{fmt(max(values))})"


def syscalls_cells(lines):
    """The system calls per op over rounds: the total's median (range), and the calls by
    name of the round whose total is the median."""
    per = [syscalls_per_op(r) for r in lines]
    if any(p is None for p in per):
        return ["—", "not counted (runs in floor+epoll's process)"]
    totals = [sum(p.values()) for p in per]
    mid = sorted(range(len(per)), key=lambda i: totals[i])[len(per) // 2]
    return [spread(totals, calls), which(per[mid])]


def instructions_table(rows):
    groups = rounds(rows, ("inproc", "echo"))
    ir = {key: statistics.median(per_op(r, "ir") for r in lines) for key, lines in groups.items()}
    out = ["| workload | system | unit | rounds | instructions per op | × its floor | × tokio "
           "| system calls per op | of which (median round) |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for (work, system), lines in groups.items():
        floor = ir.get((work, "floor+epoll" if work == "W2" else "floor"))
        tokio = ir.get((work, "tokio"))
        mine = ir[(work, system)]
        out.append("| " + " | ".join([
            work, system, UNIT[work[:2]], str(len(lines)),
            spread([per_op(r, "ir") for r in lines], count),
            f"{mine / floor:.2f}×" if floor else "—",
            f"{mine / tokio:.2f}×" if tokio else "—",
            *syscalls_cells(lines),
        ]) + " |")
    return out


def loops_table(rows):
    groups = rounds(rows, ("loops",))
    ir = {key: statistics.median(per_op(r, "ir") for r in lines) for key, lines in groups.items()}
    out = ["| server | loops | C | rounds | instructions per message | × one loop "
           "| in the program | in the C library | system calls per message "
           "| of which (median round) |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    names = {"stage5-loops": "stage5 echo_server", "tokio-mt": "tokio multi-thread"}
    for (work, system), lines in groups.items():
        server, n = system.split(":")
        one = ir.get((work, f"{server}:1"))
        out.append("| " + " | ".join([
            names.get(server, server), n, str(lines[0]["conns"]), str(len(lines)),
            spread([per_op(r, "ir") for r in lines], count),
            f"{ir[(work, system)] / one:.2f}×" if one else "—",
            *[spread([per_object(r, kind) for r in lines], count) if "ir_objects" in lines[0]
              else "—" for kind in ("program", "libc")],
            *syscalls_cells(lines),
        ]) + " |")
    return out


def objects(path):
    """Instructions by the object they ran in: `program`, `libc` or `other`."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", path],
                          capture_output=True, text=True, check=True).stdout
    out = {"program": 0, "libc": 0}
    total = 0
    for line in text.splitlines():
        if line.rstrip().endswith("PROGRAM TOTALS"):
            total = int(line.split()[0].replace(",", ""))
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+.*\[(.*)\]\s*$", line)
        if not m:
            continue
        obj = m.group(2).rsplit("/", 1)[-1]
        if obj.startswith("libc.so"):
            out["libc"] += int(m.group(1).replace(",", ""))
        elif ".so" not in obj:
            out["program"] += int(m.group(1).replace(",", ""))
    out["other"] = total - out["program"] - out["libc"]
    return out


# What stage 5's instructions do, by function (callgrind's names, matched in order; the
# first match wins), and the asyncio promise each group keeps: the `where` table.
GROUPS = [
    ("`call_soon` and its handle",
     r"scheduling::<impl .*EventLoop>::call_soon|as stage5::events::handle::Slot<L>>::run"
     r"|drop_in_place<core::cell::Cell<core::option::Option|Rc<T,A>::drop_slow",
     "a `Handle` per callback, which its caller can cancel, appended to the ready queue "
     "(FIFO)"),
    ("the allocator",
     r"malloc\.c|arena\.c|__rdl_|__rust_alloc|__rust_dealloc|__rust_no_alloc",
     "a new object where asyncio makes one: a `call_soon`'s `Handle` (W1, W2), the bytes "
     "`sock_recv` returns (the echo)"),
    ("running the ready queue",
     r"run_once_inner|run_handle|run_forever|take_remote_calls|errors::catch",
     "one iteration runs exactly the handles ready when it starts, in order, each one's "
     "panic caught and reported (`_run_once`, `Handle._run`)"),
    ("the select",
     r"Selector::select|IoDriver<L>::select|select_io|mio::poll|epoll_wait",
     "one select per iteration, whatever is ready"),
    ("the select's events",
     r"IoTable<L,S>::process_events|IoDriver<L>::process_events|rearm_dispatched",
     "every event of the select handed to its waiter in the same iteration"),
    ("kept registrations",
     r"io_table::|io_driver::|io_wait|io_done|is_drained",
     "no `epoll_ctl` per wait, and no wait left on a stale registration: each is checked "
     "before the loop could sleep on it"),
    ("the socket operation",
     r"IoOp<F>|std::io::error|io::Error|recv\.c|send\.c|TcpStream as std::io|memmove"
     r"|FnOnce::call_once$",
     "asyncio's order: try the `recv` or `send` at once, wait only when the socket would "
     "block; `sock_recv` copies what came into new bytes"),
    ("waking a task",
     r"wake_by_ref|raw_waker|on_this_thread|schedule_step|wake_task|Drop for stage5::event_loop"
     r"|call_soon_step|Reused<L,C>|VecDeque<T,A>::push_back|CallSlot",
     "a waker any thread may wake (`Send + Sync`), which finds its loop; the task's step "
     "queued as a `Handle` in the same FIFO ready queue, numbered as `call_soon` numbers, "
     "once however often it is woken"),
    ("a task's step",
     r"TaskCore|parts::current|LastAwait|LocalKey",
     "a step polls the coroutine, notes the future it awaits (`_fut_waiter`, which "
     "`cancel` cancels), and makes a panic the task's exception; the coroutine's own code "
     "is inlined here"),
    ("the benchmark's own code",
     r":bench::",
     "the workload, not the loop"),
]
OTHER = "everything else"


def groups(path):
    """A callgrind output's instructions (each function's own) by GROUPS, matched on
    callgrind_annotate's `file:function`."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", path],
                          capture_output=True, text=True, check=True).stdout
    out = defaultdict(int)
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*?)(?: \[.*\])?\s*$", line)
        if not m or "PROGRAM TOTALS" in line or "file:function" in line:
            continue
        name = m.group(2)
        group = next((g for g, pattern, _ in GROUPS if re.search(pattern, name)), OTHER)
        out[group] += int(m.group(1).replace(",", ""))
    return dict(out)


WHERE = [("W1", None, "W1"), ("W2", None, "W2"), ("W5", 50, "echo C=50"),
         ("W5", 1000, "echo C=1000")]


def where_table(rows):
    """Stage 5's instructions per operation by group, for each workload (medians over
    rounds), with the promise each group keeps."""
    per = {}
    for work, conns, head in WHERE:
        lines = [r for r in rows if r["kind"] in ("inproc", "echo") and r["system"] == "stage5"
                 and r["workload"] == work and r.get("conns") == conns and "ir_groups" in r]
        if lines:
            per[head] = lines
    out = ["| what | " + " | ".join(per) + " | the asyncio promise it keeps |",
           "| --- | " + " | ".join("---:" for _ in per) + " | --- |"]

    def cell(lines, group):
        values = []
        for r in lines:
            (n1, n2), (a, b) = r["n"], r["ir_groups"]
            values.append((b.get(group, 0) - a.get(group, 0)) / (n2 - n1))
        return statistics.median(values)

    for group, _, promise in [*GROUPS, (OTHER, "", "start-up and shutdown that did not quite "
                                               "cancel out, the rest of the standard library")]:
        cells = [cell(lines, group) for lines in per.values()]
        if all(abs(c) < 0.5 for c in cells):
            continue
        out.append(f"| {group} | " + " | ".join(count(c) if abs(c) >= 0.5 else "—"
                                                  for c in cells) + f" | {promise} |")
    totals = [statistics.median(per_op(r, "ir") for r in lines) for lines in per.values()]
    out.append("| **all** | " + " | ".join(f"**{count(t)}**" for t in totals) + " | |")
    return out


def trace(path):
    """What a woken task waits for, in loop steps, from a `--trace` output: the
    iterations (the `[N]` of each line) and the handles run between a task's wake-up
    and its step."""
    woken = {}  # task -> (iteration, handles run) when it was woken
    handles = 0
    lags, waits, wakes = {}, [], defaultdict(int)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            words = line.split()
            if len(words) < 4 or words[0] != "~" or not words[1].startswith("["):
                continue
            iteration, what = int(words[1].strip("[]")), words[2]
            if what == "run":
                handles += 1
            elif what == "wake":
                woken.setdefault(words[3], (iteration, handles))
                wakes[iteration] += 1
            elif what == "step" and words[3] in woken:
                i0, h0 = woken.pop(words[3])
                lag = str(iteration - i0)
                lags[lag] = lags.get(lag, 0) + 1
                waits.append(handles - h0 - 1)  # the handles before its own
    waits.sort()
    return {"steps": len(waits), "lag": dict(sorted(lags.items(), key=lambda kv: int(kv[0]))),
            "wait_p50": waits[len(waits) // 2] if waits else 0,
            "wait_p99": waits[len(waits) * 99 // 100] if waits else 0,
            "wait_max": waits[-1] if waits else 0,
            "wakes_per_iteration": round(sum(wakes.values()) / len(wakes), 1) if wakes else 0}


def order_table(rows):
    out = ["| server | C | rounds | woken steps | same iteration | one iteration later "
           "| handles before the step: median | 99th percentile | wake-ups per iteration |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    groups = {}
    for r in (r for r in rows if r["kind"] == "order"):
        groups.setdefault(r["system"], []).append(r)
    for system, lines in groups.items():
        ts = [r["trace"] for r in lines]
        col = lambda f: spread([f(t) for t in ts], lambda v: f"{v:,.0f}")
        out.append("| " + " | ".join([
            f"stage5 {system}", str(lines[0]["conns"]), str(len(lines)),
            col(lambda t: t["steps"]), col(lambda t: t["lag"].get("0", 0)),
            col(lambda t: sum(v for k, v in t["lag"].items() if k != "0")),
            col(lambda t: t["wait_p50"]), col(lambda t: t["wait_p99"]),
            col(lambda t: t["wakes_per_iteration"]),
        ]) + " |")
    return out


def page(rows, source):
    run = rows[0]
    body = [r for r in rows[1:] if r.get("kind") != "run"]
    ns = {}
    for r in (r for r in body if r["kind"] != "order"):
        ns.setdefault(label(r), r["n"])
    per = sorted({r["per"] for r in body if r["kind"] == "order"})
    sizes = "; ".join(f"{k}: {n[0]:,} and {n[1]:,} {UNIT[k[:2]]}s" for k, n in ns.items() if n)
    return "\n".join([
        "# counts: tables",
        "",
        f"Generated by `python3 bench/counts_report.py page {source} counts.md` from the",
        f"counts beside this file, which `bash bench/counts.sh` made on {run['date']} at commit",
        f"{run['commit']} ({run['machine']}; {run['valgrind']}, {run['strace']};",
        f"{run['rustc']}); do not edit by hand. Every figure is the difference between two",
        f"runs of the same row over different numbers of operations ({sizes}), divided by",
        "the difference in operations. The echo rows run in rounds (how many events one",
        "select finds varies, and with it the count): medians, with the range over rounds in",
        "brackets; ratios are of the medians. The in-process rows count the same to the",
        "instruction every time and run once.",
        "",
        "## instructions",
        "",
        "User-space instructions per operation (callgrind), and system calls per operation",
        "(`strace -c -f`). A W2 row's floor is `floor+epoll`, the loop that selects once per",
        "iteration.",
        "",
        "// ANCHOR: instructions",
        *instructions_table(body),
        "// ANCHOR_END: instructions",
        "",
        "## loops",
        "",
        "Stage 5's echo server (`echo_server --plain --loops N`) and tokio's multi-thread",
        "runtime (`TOKIO_WORKER_THREADS=N`) at 1,000 connections: the loops' instructions per",
        "message, all threads together, and where they ran: the program's own code (the loop,",
        "Rust's standard library) or the C library (`malloc`, the wrappers of the system",
        "calls).",
        "",
        "// ANCHOR: loops",
        *loops_table(body),
        "// ANCHOR_END: loops",
        "",
        "## order",
        "",
        "Stage 5's echo server with `--trace`, its `sock_*` tasks and its streams handlers",
        "(`--api sock`, `--api streams`), at 1,000 connections in lockstep",
        f"({' or '.join(map(str, per))} messages on each): for every task",
        "step that follows a wake-up, the selects between the wake-up and the step (none: the",
        "same iteration), and the handles that ran between them, its own not counted.",
        "",
        "// ANCHOR: order",
        *order_table(body),
        "// ANCHOR_END: order",
        "",
        "## where",
        "",
        "Stage 5's instructions per operation by what they do, from the same runs as the",
        "instructions table: each function's own instructions (inlined code counts where it",
        "was inlined), grouped by name (`GROUPS` in `bench/counts_report.py`), medians over",
        "rounds; a column's groups add up to its total only nearly, as each is a median of",
        "its own.",
        "",
        "// ANCHOR: where",
        *where_table(body),
        "// ANCHOR_END: where",
        "",
    ])


def main(argv):
    if argv[1:2] == ["objects"] and len(argv) == 3:
        print(json.dumps(objects(argv[2]), sort_keys=True))
        return
    if argv[1:2] == ["groups"] and len(argv) == 3:
        print(json.dumps(groups(argv[2]), sort_keys=True))
        return
    if argv[1:2] == ["trace"] and len(argv) == 3:
        print(json.dumps(trace(argv[2]), sort_keys=True))
        return
    if argv[1:2] == ["line"] and len(argv) == 3:
        r = json.loads(argv[2])
        if r["kind"] == "order":
            print(f"  order {r['system']}: {json.dumps(r['trace'])}")
            return
        print(f"  {label(r):9} {r['system']:18} {count(per_op(r, 'ir')):>7} instructions/op")
        return
    if len(argv) < 4 or argv[1] != "page" or argv[4:] not in ([], ["--check"]):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    text = page(load(argv[2]), argv[2].rsplit("/", 1)[-1])
    remake = f"python3 bench/counts_report.py page {argv[2]} {argv[3]}"
    sys.exit(write_or_check(argv[3], text, argv[4:] == ["--check"], argv[2], remake))


if __name__ == "__main__":
    main(sys.argv)
