"""The tables of bench/measured/python-transports.md, from the JSON lines of
bench/python-transports.sh, one line of bench/python/crossing.py, a profile's shares
(python-profile.json, whose `method` says how it was taken), and optionally the profiles
of bench/python-profile.sh (python-profile-loops.jsonl).

    python3 bench/python/transports_report.py RUN.jsonl CROSSING.json PROFILE.json OUT.md \
        [LOOPS-PROFILE.jsonl] [--buffered=BUFFERED.jsonl] [--check]

BUFFERED.jsonl is a run of bench/python-transports.sh with APIS=buffered LOOPS=0: W5 with
a BufferedProtocol server, a table of its own (another run than RUN.jsonl's).

Medians over rounds, with the range in brackets; `--check` fails (exit 1) if OUT.md is not
exactly what it would write. Chapter 9 quotes its cells in marks
(`<!--fig python-transports:TABLE:ROW:COLUMN-->`).
"""

import json
import statistics
import sys

SYSTEMS = [
    ("asyncio", "asyncio"),
    ("uvloop", "uvloop"),
    ("rloop", "rloop"),
    ("scratchloop-asyncio-transports", "scratchloop with asyncio's transports"),
    ("scratchloop", "scratchloop with stage 5's transports"),
]
CROSSING = [
    ("python_function", "an empty Python function"),
    ("native_is_closing", "is_closing() on stage 5's transport"),
    ("asyncio_is_closing", "is_closing() on asyncio's transport"),
    ("native_write_empty", "write(b'') on stage 5's transport"),
    ("asyncio_write_empty", "write(b'') on asyncio's transport"),
]


def fmt(value):
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def cell(values):
    if not values:
        return "—"
    if len(values) == 1:
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"


PROFILE = [
    ("kernel", "the kernel"),
    ("interpreter", "the interpreter"),
    ("rust", "scratchloop's Rust"),
    ("other", "libc and the rest"),
]


LOOPS = ["asyncio", "uvloop", "rloop", "scratchloop"]
# (column, its records' kind, the workload (None: W6), the value of one record's result)
WORKLOADS = [
    ("W1 ns per callback", "inproc", "W1", lambda r: r["wall_ns_per_op"]),
    ("W2 ns per step", "inproc", "W2", lambda r: r["wall_ns_per_op"]),
    ("W3 CPU ms", "inproc", "W3", lambda r: r["cpu_ns"] / 1e6),
    ("W6 KiB per connection", "hold", None, lambda r: r["rss_per_conn_bytes"] / 1024),
]
# W6's descriptors per held connection in the server (not a goal: what the memory holds).
FDS = ("W6 descriptors per connection", "hold", None,
       lambda r: (r["server_fds_held"] - r["server_fds_before"]) / r["conns"])
LOOPS_PROFILE = [
    ("kernel", "the kernel"),
    ("interpreter", "the interpreter"),
    ("gil", "the GIL"),
    ("copies", "copies (memcpy)"),
    ("collector", "the cyclic collector"),
    ("rust", "scratchloop's Rust"),
    ("other", "the rest"),
]


def kind(record):
    return record.get("kind", "echo")  # the first runs' lines had W5 only, and no kind


def values(records, column):
    """{loop: {round: value}} for one column of the loops' table."""
    _, want, workload, value = column
    found = {}
    for r in records:
        if kind(r) == want and (workload is None or r["result"].get("workload") == workload):
            found.setdefault(r["system"], {})[r["round"]] = value(r["result"])
    return found


def goals(records, conns):
    """Each goal's row: scratchloop's median, the better of uvloop's and rloop's, and the
    median over rounds of scratchloop's over the better one's in the same round."""
    rows = []
    for c in conns:
        for api, name in (("protocol", "Protocol"), ("streams", "streams")):
            per = {}
            for r in records:
                if kind(r) == "echo" and r["api"] == api and r["conns"] == c:
                    per.setdefault(r["system"], {})[r["round"]] = r["result"]["server_cpu_us_per_msg"]
            rows.append((f"W5 C={c} {name} (µs CPU per message)", per))
    for column in WORKLOADS:
        per = values(records, column)
        if column[2] == "W2":
            # The goal is uvloop's, which polls once per step as asyncio does: rloop's
            # figure skips the polls (the W2 polls table).
            per.pop("rloop", None)
            rows.append(("W2 ns per step (against uvloop)", per))
        else:
            rows.append((column[0], per))
    out = []
    for name, per in rows:
        ours, uv, rl = (per.get(k, {}) for k in ("scratchloop", "uvloop", "rloop"))
        rounds = sorted(set(ours) & (set(uv) | set(rl)))
        if not rounds:
            continue
        better = [min(v for v in (uv.get(i), rl.get(i)) if v is not None) for i in rounds]
        ratios = [ours[i] / b for i, b in zip(rounds, better)]
        ratio = statistics.median(ratios)
        out.append((name, statistics.median(ours[i] for i in rounds),
                    statistics.median(better), ratio, "yes" if ratio <= 1 else "no"))
    return out


def buffered_table(records):
    """W5 with a `BufferedProtocol` server, from its own run."""
    out = []
    for c in sorted({r["conns"] for r in records}):
        rounds = max(r["round"] for r in records)
        out += [
            f"### W5 BufferedProtocol: server CPU µs per message, C = {c}, "
            f"median of {rounds} rounds (range), a run of its own",
            "",
            "| loop | BufferedProtocol |",
            "| --- | --- |",
        ]
        for loop in LOOPS:
            got = [r["result"]["server_cpu_us_per_msg"] for r in records
                   if r["system"] == loop and r["conns"] == c and r["api"] == "buffered"]
            if got:
                out.append(f"| {loop} | {cell(got)} |")
        out.append("")
    return out


def page(records, crossing, profile, loops_profile=None, buffered=None):
    conns = sorted({r["conns"] for r in records if kind(r) == "echo"})
    rounds = max((r["round"] for r in records if kind(r) == "echo"), default=0)
    sources = "python-transports.jsonl, python-crossing.json, python-profile.json" + (
        ", python-profile-loops.jsonl" if loops_profile else "") + (
        ", python-buffered.jsonl" if buffered else "")
    out = [
        f"<!-- Generated by bench/python/transports_report.py from {sources}: do not edit. -->",
        "",
    ]
    for c in conns:
        out += [
            f"### W5 echo: server CPU µs per message, C = {c}, median of {rounds} rounds (range)",
            "",
            "| loop | Protocol | streams |",
            "| --- | --- | --- |",
        ]
        for key, name in SYSTEMS:
            row = [name]
            for api in ("protocol", "streams"):
                row.append(cell([r["result"]["server_cpu_us_per_msg"] for r in records
                                 if kind(r) == "echo" and r["system"] == key
                                 and r["api"] == api and r["conns"] == c]))
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    if buffered:
        out += buffered_table(buffered)
    inproc_rounds = max((r["round"] for r in records if kind(r) == "inproc"), default=0)
    if inproc_rounds:
        out += [
            f"### Loops: W1 to W3 and W6 side by side, median of {inproc_rounds} rounds (range)",
            "",
            "| loop | " + " | ".join(c[0] for c in WORKLOADS + [FDS]) + " |",
            "| --- |" + " --- |" * (len(WORKLOADS) + 1),
        ]
        columns = [values(records, c) for c in WORKLOADS + [FDS]]
        for loop in LOOPS:
            row = [loop] + [cell(list(col.get(loop, {}).values())) for col in columns]
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    polls = [r for r in records if kind(r) == "polls"]
    if polls:
        steps = polls[0]["steps"]
        out += [
            f"### W2 polls: epoll waits in {steps:,} chained steps (strace -c)",
            "",
            "| loop | polls |",
            "| --- | --- |",
        ]
        for loop in LOOPS:
            out += [f"| {loop} | {r['polls']:,} |" for r in polls if r["system"] == loop]
        out.append("")
    if inproc_rounds:
        out += [
            "### Goals: scratchloop against the better of uvloop and rloop, paired within rounds",
            "",
            "| row | scratchloop | the better | ratio | met |",
            "| --- | --- | --- | --- | --- |",
        ]
        for name, ours, better, ratio, met in goals(records, conns):
            out.append(f"| {name} | {fmt(ours)} | {fmt(better)} | {ratio:.2f} | {met} |")
        out.append("")
    out += [
        f"### Crossing: ns per call, best of {crossing['repeat']} runs of {crossing['calls']:,}",
        "",
        "| call | ns |",
        "| --- | --- |",
    ]
    for key, name in CROSSING:
        out.append(f"| {name} | {fmt(crossing[key])} |")
    out += [
        "",
        "### Profile: % of the server's CPU samples, scratchloop with stage 5's transports",
        "",
        "| where | Protocol | streams |",
        "| --- | --- | --- |",
    ]
    for key, name in PROFILE:
        out.append(f"| {name} | {fmt(profile['protocol'][key])} | {fmt(profile['streams'][key])} |")
    out.append("")
    if loops_profile:
        names = [p["name"] for p in loops_profile]
        out += [
            "### Profiles: % of cpu-clock samples, scratchloop, by where they fell",
            "",
            "| where | " + " | ".join(names) + " |",
            "| --- |" + " --- |" * len(names),
        ]
        for key, name in LOOPS_PROFILE:
            out.append(f"| {name} | " + " | ".join(fmt(p[key]) for p in loops_profile) + " |")
        out.append("")
    return "\n".join(out)


def main(argv):
    check = "--check" in argv
    buffered = None
    for a in argv:
        if a.startswith("--buffered="):
            with open(a.removeprefix("--buffered="), encoding="utf-8") as lines:
                buffered = [json.loads(line) for line in lines if line.strip()]
    args = [a for a in argv if a != "--check" and not a.startswith("--buffered=")]
    if len(args) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    loops_profile = None
    if len(args) == 5:
        with open(args[4], encoding="utf-8") as lines:
            loops_profile = [json.loads(line) for line in lines if line.strip()]
    with open(args[0], encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    with open(args[1], encoding="utf-8") as one:
        crossing = json.load(one)
    with open(args[2], encoding="utf-8") as one:
        profile = json.load(one)
    text = page(records, crossing, profile, loops_profile, buffered)
    if check:
        with open(args[3], encoding="utf-8") as committed:
            if committed.read() != text:
                print(f"{args[3]} is not what {', '.join(args[:3])} make", file=sys.stderr)
                return 1
        return 0
    with open(args[3], "w", encoding="utf-8") as out:
        out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
