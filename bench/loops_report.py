#!/usr/bin/env python3
"""The results of bench/loops.sh: tables, the model beside them, and the book's figure.

    python3 bench/loops_report.py table RESULTS.jsonl      Markdown tables on stdout
    python3 bench/loops_report.py model RESULTS.jsonl      the model of "Beyond one core"
                                                           beside what was measured
    python3 bench/loops_report.py figure RESULTS.jsonl OUT.svg [--check]
                                                           draw the figure (--check: fail,
                                                           writing nothing, if OUT.svg is
                                                           not exactly what it would draw)
    python3 bench/loops_report.py page RESULTS.jsonl OUT.md [--check]
                                                           the tables and the model as one
                                                           Markdown file the book includes
                                                           (--check as for the figure)
    python3 bench/loops_report.py split RESULTS.jsonl      the server's CPU per message in
                                                           user space and in the kernel,
                                                           and its context switches
    python3 bench/loops_report.py record OUT K "KEY=VALUE lines"
                                                           (bench/loops.sh) one run's line
                                                           of results.jsonl, from the K
                                                           generators' OUT/gen.I.json and
                                                           the server's OUT/server.out

RESULTS.jsonl has one object per measured run, with the fields bench/loops.sh writes (and
bench/results/loops-16-cores.jsonl has): round, server ("stage5", "tokio-ct",
"tokio-mt"), n (loops or worker threads), conns, msgs_per_sec, server_us_per_msg,
p99_us_max, per_loop (stage 5: the connections each loop accepted), and more.

Only the standard library, and nothing that depends on the machine or the Python version:
the same file always gives the same bytes, which tests/figures.rs checks against the
committed SVG.
"""

import contextlib
import datetime
import io
import json
import re
import random
import statistics
import sys
from collections import defaultdict

from generated import write_or_check

SERVERS = {"stage5": "stage 5", "tokio-ct": "tokio current_thread", "tokio-mt": "tokio multi-thread"}


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def groups(rows):
    """(conns, server, n) -> that configuration's rows, in file order."""
    out = defaultdict(list)
    for r in rows:
        out[(r["conns"], r["server"], r["n"])].append(r)
    return out


def median(values):
    return statistics.median(values)


def same_round_ratios(rows, num, den, field):
    """field(num) / field(den) for each round that measured both (same run, same round)."""
    by_round = defaultdict(dict)
    for r in rows:
        by_round[(r.get("run", 1), r["round"])][(r["conns"], r["server"], r["n"])] = r
    out = []
    for _, runs in sorted(by_round.items()):
        if num in runs and den in runs:
            out.append(runs[num][field] / runs[den][field])
    return out


def fmt_range(values, spec):
    if len(values) == 1:
        return format(values[0], spec)
    return f"{format(median(values), spec)} ({format(min(values), spec)}–{format(max(values), spec)})"


def mean_over_busiest(per_loop):
    return (sum(per_loop) / len(per_loop)) / max(per_loop)


def expected_mean_over_busiest(conns, n, draws=2000, seed=8):
    """The uniform hash's mean ÷ busiest, averaged over simulated hashings (fixed seed)."""
    rng = random.Random(seed)
    total = 0.0
    for _ in range(draws):
        counts = [0] * n
        for _ in range(conns):
            counts[rng.randrange(n)] += 1
        total += mean_over_busiest(counts)
    return total / draws


# ------------------------------------------------------------------------------------------
def record(out, k, pairs):
    """One run of bench/loops.sh as a line of results.jsonl (stdout), and a line for a
    person (stderr)."""
    f = dict(line.split("=", 1) for line in pairs.splitlines() if "=" in line)
    gens = []
    for i in range(k):
        with open(f"{out}/gen.{i}.json", encoding="utf-8") as g:
            gens.append(json.load(g))
    msgs = sum(g["msgs_per_sec"] for g in gens)
    busy = float(f["cpu_s"]) / float(f["window_s"])
    n, conns = int(f["n"]), int(f["conns"])
    per_loop = {}
    if f["server"] == "stage5" and n > 1:
        with open(f"{out}/server.out", encoding="utf-8") as s:
            for line in s:
                m = re.search(r"loop (\d+): clients served: (\d+)", line)
                if m:
                    per_loop[int(m.group(1))] = int(m.group(2))
    row = {
        "round": int(f["round"]), "server": f["server"], "n": n, "conns": conns, "k": k,
        "msgs_per_sec": round(msgs, 1),
        "server_cores_busy": round(busy, 3),
        "server_us_per_msg": round(busy / max(msgs, 1e-9) * 1e6, 3),
        "client_us_per_msg": round(sum(g.get("client_cpu_ns", 0) for g in gens)
                                   / max(1, sum(g["messages"] for g in gens)) / 1000, 3),
        "p50_us_max": max(g["p50_us"] for g in gens),
        "p99_us_max": max(g["p99_us"] for g in gens),
        "per_loop": [per_loop[i] for i in sorted(per_loop)],
        "run": int(f["run"]), "pinning": f["pinning"], "machine": f["machine"],
        "server_cpus": f["server_cpus"], "client_cpus": f["client_cpus"],
        "window_s": float(f["window_s"]),
        # Connections the server held a descriptor for when the window opened: all of them
        # if it is at least `conns` (the rest are its listener(s), selector(s) and pipes).
        "all_connected": int(f["fds_at_window"]) >= conns,
        "commit": f["commit"],
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    if "user_s" in f:
        # The same window split: user space against the kernel, and the server's context
        # switches (all its threads), each per message.
        per = float(f["window_s"]) * max(msgs, 1e-9)
        row["server_user_us_per_msg"] = round(float(f["user_s"]) / per * 1e6, 3)
        row["server_sys_us_per_msg"] = round(
            (float(f["cpu_s"]) - float(f["user_s"])) / per * 1e6, 3)
        row["switches_per_msg"] = round(int(f["switches"]) / per, 4)
    if f.get("counts") == "1":
        counts = {}
        with open(f"{out}/perf.csv", encoding="utf-8") as p:
            for line in p:
                parts = line.strip().split(",")
                if len(parts) > 2 and parts[0].isdigit():
                    counts[parts[2].split(":")[-1]] = int(parts[0])
        # Messages: the server's sendto calls (one per echo, as every server here answers
        # 64 bytes with one send); perf's window is a little shorter than `window_s`.
        per_msg = counts.get("sys_enter_sendto") or msgs * row["window_s"]
        names = {"sys_enter": "syscalls", "sys_enter_epoll_wait": "epoll_wait",
                 "sys_enter_epoll_ctl": "epoll_ctl", "sys_enter_recvfrom": "recvfrom",
                 "sys_enter_sendto": "sendto", "sys_enter_futex": "futex",
                 "context-switches": "context_switches"}
        row["per_msg"] = {names[c]: round(v / per_msg, 4) for c, v in counts.items() if c in names}
    print(json.dumps(row, ensure_ascii=False))
    loops = " per loop " + " ".join(map(str, row["per_loop"])) if row["per_loop"] else ""
    print(f"  C={conns} {row['server']} N={n} (cores {row['server_cpus']}): "
          f"{msgs:,.0f} msg/s, server {row['server_us_per_msg']:.2f} us/msg "
          f"({busy:.2f} cores), client {row['client_us_per_msg']:.2f} us/msg, "
          f"p99 {row['p99_us_max']:,} us{loops}", file=sys.stderr)


# ------------------------------------------------------------------------------------------
def split(rows):
    """User-space and kernel CPU per message, and context switches, where recorded."""
    rows = [r for r in rows if "server_user_us_per_msg" in r]
    if not rows:
        print("(not recorded in these results)")
        return
    g = groups(rows)
    print("| C | server | N | runs | server CPU µs/msg | user µs/msg | kernel µs/msg "
          "| context switches per message |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key in sorted(g, key=lambda k: (k[0], list(SERVERS).index(k[1]), k[2])):
        conns, server, n = key
        rs = g[key]
        col = lambda f, spec: fmt_range([r[f] for r in rs], spec)
        print(f"| {conns} | {SERVERS[server]} | {n} | {len(rs)} | {col('server_us_per_msg', '.2f')} "
              f"| {col('server_user_us_per_msg', '.2f')} | {col('server_sys_us_per_msg', '.2f')} "
              f"| {col('switches_per_msg', '.3f')} |")


def table(rows):
    g = groups(rows)
    print("| C | server | N | runs | messages/s | server CPU µs/msg | server cores busy "
          "| client CPU µs/msg | p99 µs (worst generator) | mean ÷ busiest loop |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key in sorted(g, key=lambda k: (k[0], list(SERVERS).index(k[1]), k[2])):
        conns, server, n = key
        rs = g[key]
        col = lambda f, spec: fmt_range([r[f] for r in rs], spec)
        spread = [mean_over_busiest(r["per_loop"]) for r in rs if len(r.get("per_loop") or []) > 1]
        spread_cell = f"{statistics.mean(spread):.2f}" if spread else ""
        print(f"| {conns} | {SERVERS[server]} | {n} | {len(rs)} | {col('msgs_per_sec', ',.0f')} "
              f"| {col('server_us_per_msg', '.2f')} | {col('server_cores_busy', '.2f')} "
              f"| {col('client_us_per_msg', '.2f')} | {col('p99_us_max', ',.0f')} | {spread_cell} |")
    print()
    print("Medians, with the range over rounds in brackets. Ratios within a round "
          "(the two servers measured minutes apart on the same machine):")
    print()
    print("| C | N | stage 5 ÷ | CPU per message | p99 | messages/s |")
    print("| ---: | ---: | --- | ---: | ---: | ---: |")
    for conns in sorted({k[0] for k in g}):
        for n in sorted({k[2] for k in g if k[0] == conns}):
            for other, n_other in (("tokio-ct", 1), ("tokio-mt", n)):
                if other == "tokio-ct" and n != 1:
                    continue
                num, den = (conns, "stage5", n), (conns, other, n_other)
                cells = [same_round_ratios(rows, num, den, f)
                         for f in ("server_us_per_msg", "p99_us_max", "msgs_per_sec")]
                if cells[0]:
                    print(f"| {conns} | {n} | {SERVERS[other]} | "
                          + " | ".join(fmt_range(c, ".2f") for c in cells) + " |")


# ------------------------------------------------------------------------------------------
def model(rows):
    """The model's three predictions for stage 5 beside the measurements."""
    g = groups(rows)
    print("| C | N | server cores | N × one loop's messages/s | measured | measured ÷ predicted "
          "| CPU per message, N ÷ 1 | mean ÷ busiest, hash | mean ÷ busiest, measured |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for conns in sorted({k[0] for k in g}):
        one = g.get((conns, "stage5", 1))
        if not one:
            continue
        rate1 = median([r["msgs_per_sec"] for r in one])
        s1 = median([r["server_us_per_msg"] for r in one])
        for n in sorted({k[2] for k in g if k[0] == conns and k[1] == "stage5"}):
            if n == 1:
                continue
            rs = g[(conns, "stage5", n)]
            rate = median([r["msgs_per_sec"] for r in rs])
            s = median([r["server_us_per_msg"] for r in rs])
            spreads = [mean_over_busiest(r["per_loop"]) for r in rs if r.get("per_loop")]
            measured = (f"{statistics.mean(spreads):.2f} ({len(spreads)} "
                        f"run{'s' if len(spreads) > 1 else ''})") if spreads else ""
            hashed = expected_mean_over_busiest(conns, n)
            # The cores the loops ran on (the shared measurements say so in `pinning`).
            cores = {len(set(r["server_cpus"].split(","))) for r in rs if "server_cpus" in r}
            cores = "/".join(map(str, sorted(cores))) if cores else str(n)
            print(f"| {conns} | {n} | {cores} | {n * rate1:,.0f} | {rate:,.0f} "
                  f"| {rate / (n * rate1):.2f} | {s / s1:.2f} | {hashed:.2f} | {measured} |")
    print()
    print("The prediction is N times one loop's messages a second, on N cores: where the loops "
          "had fewer cores than N, it does not apply.")


# ------------------------------------------------------------------------------------------
STYLE = """<style>
text { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; font-size: 11px; fill: #1f2328; }
.title { font-size: 14px; font-weight: 600; }
.head { font-size: 12px; font-weight: 600; }
.small { font-size: 10.5px; }
.muted { fill: #57606a; }
.bg { fill: #ffffff; stroke: #d0d7de; }
.axis { stroke: #57606a; stroke-width: 1; fill: none; }
.grid { stroke: #d0d7de; stroke-width: 1; fill: none; }
.ideal { stroke: #8c959f; stroke-width: 1.2; fill: none; stroke-dasharray: 2 3; }
.s5 { stroke: #0969da; fill: #0969da; }
.mt { stroke: #bf3989; fill: #bf3989; }
.ct { stroke: #1a7f37; fill: #1a7f37; }
.line { stroke-width: 2; fill: none; }
.c100 { stroke-dasharray: 6 4; }
.bar { stroke-width: 1.2; fill: none; }
.open { fill: #ffffff; stroke-width: 1.5; }
@media (prefers-color-scheme: dark) {
  text { fill: #e6edf3; }
  .muted { fill: #9198a1; }
  .bg { fill: #0d1117; stroke: #3d444d; }
  .axis { stroke: #9198a1; }
  .grid { stroke: #30363d; }
  .ideal { stroke: #656c76; }
  .s5 { stroke: #4493f8; fill: #4493f8; }
  .mt { stroke: #db61a2; fill: #db61a2; }
  .ct { stroke: #3fb950; fill: #3fb950; }
  .open { fill: #0d1117; }
}
</style>"""

WIDTH, HEIGHT = 760, 400
PANEL_W, PANEL_H, TOP = 290, 230, 74
LEFTS = (78, 448)
# Each series a little to the side of its N, so that the bars do not hide each other:
# (server, the larger or the smaller connection count).
OFFSET = {("stage5", 0): -6, ("stage5", 1): -2, ("tokio-mt", 0): 2, ("tokio-mt", 1): 6,
          ("tokio-ct", 0): 10, ("tokio-ct", 1): 10}


def f1(v):
    return f"{v:.1f}"


def nice_top(value):
    """The smallest 1, 2, 4 or 5 times a power of ten of which at most five fit in a scale
    from 0 that reaches `value`: (top, step)."""
    power = 10 ** max(0, len(str(int(value))) - 2)
    while True:
        for m in (1, 2, 4, 5):
            step = m * power
            count = -(-value // step)
            if count <= 5:
                return count * step, step
        power *= 10


def figure(rows, machine):
    """Two panels against N: messages a second, and the server's CPU per message. Stage 5
    and tokio's multi-thread runtime at the (at most two) connection counts, the larger
    one solid, the smaller dashed with hollow marks; tokio's current_thread at N = 1."""
    g = groups(rows)
    xs = sorted({k[2] for k in g})
    cs = sorted({k[0] for k in g}, reverse=True)[:2]
    words = [f"{c:,} connections" for c in cs]

    def n_x(left, n, series=None):
        # N on a log2 axis when the N are powers of two, as bench/loops.sh's are: evenly.
        slot = (PANEL_W - 32) / max(1, len(xs) - 1)
        return left + 16 + xs.index(n) * slot + OFFSET.get(series, 0)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="Messages a second and server '
           f'CPU per message against N, stage 5 on N loops and tokio on N worker threads, '
           f'{" and ".join(words)}, {machine}">',
           "<title>Stage 5's loops and tokio's multi-thread runtime: messages a second and "
           f"server CPU per message against N ({machine})</title>", STYLE,
           f'<rect class="bg" x="0.5" y="0.5" width="{WIDTH - 1}" height="{HEIGHT - 1}" rx="6"/>',
           '<text class="title" x="12" y="22">N loops (stage 5) against N worker threads (tokio), '
           '64-byte echoes</text>',
           f'<text class="small muted" x="12" y="40">{machine}; medians over rounds, bars from the '
           'lowest to the highest round</text>']
    panels = (("messages a second (all generators)", "msgs_per_sec",
               lambda v: "0" if v == 0 else f"{v / 1e6:g} M"),
              ("server CPU per message (µs)", "server_us_per_msg", lambda v: f"{v:g}"))
    for left, (label, field, tick_text) in zip(LEFTS, panels):
        top_value, step = nice_top(max(r[field] for r in rows))
        y = lambda v, tv=top_value: TOP + PANEL_H - v / tv * PANEL_H
        out.append(f'<text class="head" x="{left}" y="{TOP - 10}">{label}</text>')
        v = 0
        while v <= top_value:
            out.append(f'<line class="grid" x1="{left}" y1="{f1(y(v))}" x2="{left + PANEL_W}" '
                       f'y2="{f1(y(v))}"/>')
            out.append(f'<text class="small muted" x="{left - 6}" y="{f1(y(v) + 4)}" '
                       f'text-anchor="end">{tick_text(v)}</text>')
            v += step
        out.append(f'<path class="axis" d="M{left} {TOP} V{TOP + PANEL_H} H{left + PANEL_W}"/>')
        for n in xs:
            out.append(f'<text class="small muted" x="{f1(n_x(left, n))}" y="{TOP + PANEL_H + 16}" '
                       f'text-anchor="middle">{n}</text>')
        out.append(f'<text class="small muted" x="{left + PANEL_W / 2:.1f}" '
                   f'y="{TOP + PANEL_H + 32}" text-anchor="middle">N: loops (stage 5), worker '
                   'threads (tokio)</text>')
        one = g.get((cs[0], "stage5", 1))
        if field == "msgs_per_sec" and one and len(xs) > 1:
            # The model's ceiling: N times what one loop did, at the larger connection count.
            rate1 = median([r[field] for r in one])
            pts = " ".join(f"{f1(n_x(left, n))},{f1(y(n * rate1))}" for n in xs)
            out.append(f'<polyline class="ideal" points="{pts}"/>')
            mid = xs[len(xs) // 2]
            out.append(f'<text class="small muted" x="{f1(n_x(left, mid) - 10)}" '
                       f'y="{f1(y(mid * rate1) - 10)}" text-anchor="end">N × one loop '
                       f'(stage 5, {cs[0]:,})</text>')
        for server, css in (("tokio-mt", "mt"), ("stage5", "s5")):
            for i, conns in enumerate(cs):
                ns = [n for n in xs if (conns, server, n) in g]
                if not ns:
                    continue
                meds = {n: median([r[field] for r in g[(conns, server, n)]]) for n in ns}
                dash = " c100" if i else ""
                pts = " ".join(f"{f1(n_x(left, n, (server, i)))},{f1(y(meds[n]))}" for n in ns)
                out.append(f'<polyline class="{css} line{dash}" points="{pts}"/>')
                for n in ns:
                    vals = [r[field] for r in g[(conns, server, n)]]
                    x = n_x(left, n, (server, i))
                    out.append(f'<path class="{css} bar" d="M{f1(x - 3)} {f1(y(min(vals)))} '
                               f'H{f1(x + 3)} M{f1(x)} {f1(y(min(vals)))} V{f1(y(max(vals)))} '
                               f'M{f1(x - 3)} {f1(y(max(vals)))} H{f1(x + 3)}"/>')
                    marker = "open " if i else ""
                    out.append(f'<circle class="{css} {marker}" cx="{f1(x)}" cy="{f1(y(meds[n]))}" '
                               'r="3.5"/>')
        for i, conns in enumerate(cs):
            key = (conns, "tokio-ct", 1)
            if key in g and 1 in xs:
                v = median([r[field] for r in g[key]])
                x = n_x(left, 1, ("tokio-ct", i))
                marker = "open " if i else ""
                out.append(f'<rect class="ct {marker}" x="{f1(x - 3.5)}" y="{f1(y(v) - 3.5)}" '
                           'width="7" height="7"/>')
    # The legend: a column per server, a row per connection count.
    for i, text in enumerate(words):
        ly = HEIGHT - 34 + i * 16
        marker, dash = ("open ", " c100") if i else ("", "")
        for x, css, name in ((16, "s5", "stage 5"), (236, "mt", "tokio multi-thread")):
            out.append(f'<line class="{css} line{dash}" x1="{x}" y1="{ly - 4}" x2="{x + 26}" '
                       f'y2="{ly - 4}"/>')
            out.append(f'<circle class="{css} {marker}" cx="{x + 13}" cy="{ly - 4}" r="3.5"/>')
            out.append(f'<text class="small" x="{x + 34}" y="{ly}">{name}, {text}</text>')
        out.append(f'<rect class="ct {marker}" x="528.5" y="{ly - 7.5}" width="7" height="7"/>')
        out.append(f'<text class="small" x="542" y="{ly}">tokio current_thread, '
                   f'{text.split()[0]}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def page(rows, source):
    """The tables and the model as one Markdown file, each under a heading the book's
    figure marks name (tests/figures.rs) and between anchors the book includes."""
    parts = []
    for name, what, fn in (("medians", "Every configuration: medians, with the range over rounds "
                            "in brackets.", table), ("model", "The model beside what was measured.",
                                                     model)):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            fn(rows)
        text = buf.getvalue().strip()
        if name == "medians":
            # `table` prints the medians, a sentence, then the same-round ratios.
            medians, _, ratios = text.partition("\n\n")
            _, _, ratios = ratios.partition("\n\n")
            parts += [("medians", what, medians),
                      ("ratios", "Stage 5 against tokio, medians of the same-round ratios "
                       "(the two servers measured minutes apart on the same machine), with "
                       "their range in brackets.", ratios)]
        else:
            parts.append((name, what, text))
    out = [f"# {source}: tables", "",
           f"Generated by `python3 bench/loops_report.py page {source}.jsonl {source}.md` "
           f"from the results beside this file ({machine_of(rows)}); do not edit by hand.", ""]
    for name, what, text in parts:
        out += [f"## {name}", "", what, "", f"// ANCHOR: {name}", text, f"// ANCHOR_END: {name}", ""]
    return "\n".join(out)


def machine_of(rows):
    names = {r.get("machine", "") for r in rows}
    return names.pop() if len(names) == 1 else "several machines"


def main(argv):
    if len(argv) < 3 or argv[1] not in ("table", "model", "split", "figure", "page", "record"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if argv[1] == "record":
        record(argv[2], int(argv[3]), argv[4])
        return 0
    rows = load(argv[2])
    if argv[1] == "table":
        table(rows)
    elif argv[1] == "split":
        split(rows)
    elif argv[1] == "model":
        model(rows)
    else:
        if len(argv) < 4:
            print(__doc__.strip(), file=sys.stderr)
            return 2
        machine = machine_of(rows).split(" (")[0]
        if argv[1] == "page":
            source = argv[2].rsplit("/", 1)[-1].removesuffix(".jsonl")
            svg = page(rows, source)
        else:
            svg = figure(rows, "measured on a " + machine if machine[:1].isdigit() else machine)
        remake = f"python3 bench/loops_report.py {argv[1]} {argv[2]} {argv[3]}"
        return write_or_check(argv[3], svg, "--check" in argv[4:], argv[2], remake)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
