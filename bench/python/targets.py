"""The benchmarks page's last tables: each stage that was set goals, against its own.

Stage 5 was set targets against the floor and tokio; stage 6, the proactor, goals against
stage 5 and tokio at 1,000 connections. A stage's goals stay its own: a later stage gets a
table of its own, with the goals its work was set, added to `TARGETS`.
"""

import statistics

# Each stage's goals, the rows of its table in order: (workload, what is measured, metric,
# reference, limit). A workload "W5 C=N" is the echo at N connections. The stage's figure
# is a ratio to the reference system's, taken within each round; with no reference (W6),
# the limit is in the metric's own unit, bytes.
TARGETS = {
    "stage5": (
        "The targets set for stage 5.",
        [
            ("W1", "ns per callback", "wall_ns_per_op", "floor", 2),
            ("W2", "ns per step", "wall_ns_per_op", "floor+epoll", 1.1),
            ("W3", "CPU", "cpu_ms", "floor", 1.2),
            ("W4", "ns per item", "wall_ns_per_op", "tokio", 1),
            ("W5 C=50", "server CPU per message", "server_cpu_us_per_msg", "tokio", 1.0),
            ("W5 C=50", "p99", "p99_us", "tokio", 1.0),
            ("W5 C=1000", "server CPU per message", "server_cpu_us_per_msg", "tokio", 1.0),
            ("W5 C=1000", "p99", "p99_us", "tokio", 1.0),
            ("W6", "bytes per idle connection", "rss_per_conn_bytes", None, 512),
        ],
    ),
    "stage6": (
        "The goals set for stage 6, the proactor, at 1,000 connections. Its third goal, "
        "fewer than one `io_uring_enter` per message, is a count of system calls, which "
        "this run does not make: `bash bench/proactor.sh` makes it (see "
        "[Stage 6: completion, counted](#stage-6-completion-counted)).",
        [
            ("W5 C=1000", "server CPU per message", "server_cpu_us_per_msg", "stage5", 0.85),
            ("W5 C=1000", "server CPU per message", "server_cpu_us_per_msg", "tokio", 1.0),
        ],
    ),
}


def series_of(inproc, echo, hold, workload, system, metric):
    """One system's series of a metric in a workload; None if the run has none."""
    if workload.startswith("W5 C="):
        return echo.get((int(workload[len("W5 C="):]), system, metric))
    if workload == "W6":
        return hold.get((system, metric))
    return inproc.get((workload, system, metric))


def figure(mine, theirs, relative):
    """The stage's figure, rounded as the table shows it (so that a figure shown at its
    limit is met) and as text: its median of same-round ratios to the reference's
    (`relative`), or its own median (bytes); None where the run has none."""
    if relative:
        ratios = mine.ratio(theirs) if mine else []
        value = round(statistics.median(ratios), 2) if ratios else None
        return value, f"{value:.2f}×" if ratios else None
    value = mine.median() if mine else None
    value = round(value) if value is not None else None
    return value, f"{value:,} B" if value is not None else None


def targets_tables(inproc, echo, hold, out):
    """A table for every stage in `TARGETS` that the run measured, against its own goals."""
    measured = {key[1] for key in list(inproc) + list(echo)} | {key[0] for key in hold}
    for stage, (note, goals) in TARGETS.items():
        if stage not in measured:
            continue
        out.append(f"### {stage} against its targets\n")
        out.append(f"{note}\n")
        out.append("| target | limit | measured (median of same-round ratios) | |")
        out.append("| --- | ---: | ---: | --- |")
        for workload, what, metric, reference, limit in goals:
            mine = series_of(inproc, echo, hold, workload, stage, metric)
            theirs = reference and series_of(inproc, echo, hold, workload, reference, metric)
            value, shown = figure(mine, theirs, reference is not None)
            name = f"{workload} {what}" + (f" / {reference}" if reference else "")
            limit_text = f"≤ {limit}" + ("×" if reference else " B")
            if value is None:
                out.append(f"| {name} | {limit_text} | not measured | |")
            else:
                verdict = "met" if value <= limit else "not met"
                out.append(f"| {name} | {limit_text} | {shown} | {verdict} |")
        out.append("")
