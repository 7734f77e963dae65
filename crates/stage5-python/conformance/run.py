"""Run CPython's asyncio tests on ScratchLoop and print the conformance table.

Book chapter 9, "The conformance table". Run by `scripts/asyncio-conformance.sh`, with
the venv's Python, where `scratchloop` is installed:

- the IsolatedAsyncioTestCase suites (`test_queues`, `test_locks`, `test_timeouts`,
  `test_taskgroups`, `test_waitfor`) one process per suite, with our policy installed;
- `test_streams`, `test_subprocess` (its watchers' tests, many loops in one process), and
  `test_events`' classes beyond the mixins (`HandleTests`, `PolicyTests`, the
  get_event_loop tests...: `cpython_tests.EVENTS_REST`), the same way (their tests make
  their loops with the policy's `new_event_loop`), so state one test leaves shows in the
  next;
- `EventLoopTestsMixin`, `BaseSockTestsMixin`, `SubprocessTestsMixin`, and the selector
  tests of `test_server`, `test_buffered_proto`, `test_sendfile` and `test_sslproto`,
  composed with our loop, one process per suite (each test makes and closes its own loop,
  so what one leaves shows in the next), several suites at once; `--one-each` runs them
  one process per test.

Every process has a timeout (a hang is a result, `hung`, not a stuck run), runs in a
session of its own and is killed by its process group's id when its time is up; the whole
run has a time budget, after which the tests not started are reported hung too. Prints one
line per suite, `SUITE: P passed, F failed, S skipped, H hung of N`, then every test that did
not pass with a one-line reason; exits 1 if a test fails or hangs that is not in
`expected-failures.txt` (one `TEST_ID  reason` a line) and fails again when run once more
alone (`rerun`).
"""

import argparse
import concurrent.futures
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "cpython_tests.py")
MODULE_SUITES = ["test_queues", "test_locks", "test_timeouts", "test_taskgroups", "test_waitfor",
                 "test_streams", "test_events_rest", "test_subprocess"]
COMPOSED = {"events": "EventLoopTestsMixin", "sock": "BaseSockTestsMixin",
            "subprocess": "SubprocessTestsMixin", "server": "test_server",
            "buffered": "test_buffered_proto", "sendfile": "test_sendfile",
            "tls": "test_sslproto"}
SKIPPED = 3  # the worker's exit code when this Python cannot run the tests
RERUN_AT_MOST = 10  # unexpected failures run once more alone; more than this is no flake


class Budget:
    """The run's deadline: a process started after it is not started at all."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        return self.end - time.monotonic()


def worker(args, timeout):
    """Run the worker with `args`; (exit code or None if killed, stdout)."""
    proc = subprocess.Popen(
        [sys.executable, WORKER, *args], cwd=HERE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # its own session: the worker and its children
        out, _ = proc.communicate()
        return None, out


def results(out):
    """{test id: (outcome, reason)} from a worker's RESULT lines."""
    found = {}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            parts = line.split(" ", 3)
            found[parts[1]] = (parts[2], parts[3] if len(parts) > 3 else "")
    return found


def listed(what):
    code, out = worker(["list", what], 60)
    if code == SKIPPED:
        print(out.strip())
        sys.exit(0)
    if code != 0:
        sys.exit(f"cannot list the tests of {what}")
    return out.split()


def run_module_suite(name, timeout, budget, mode="suite"):
    """One process for the suite; a hang names the test that was running."""
    ids = listed(name)
    if budget.left() <= 0:
        return ids, {i: ("hung", "not started: the run's time budget was spent") for i in ids}
    code, out = worker([mode, name], min(timeout, budget.left()))
    found = results(out)
    if code is not None and "LOOPS 0" in out.splitlines():
        return ids, {i: ("fail", "the suite ran on another loop than ours") for i in ids}
    missing = [i for i in ids if i not in found]
    for n, test_id in enumerate(missing):
        why = "hung: killed after the suite's timeout" if code is None else "did not report"
        found[test_id] = ("hung", why) if n == 0 else ("hung", "not run: an earlier test hung")
    return ids, found


def run_one(test_id, timeout, budget):
    if budget.left() <= 0:
        return test_id, ("hung", "not started: the run's time budget was spent")
    code, out = worker(["one", test_id], min(timeout, max(budget.left(), 1)))
    if code is None:
        return test_id, ("hung", f"killed after {timeout:.0f} s")
    return test_id, results(out).get(test_id, ("fail", f"the process exited with {code}"))


def run_composed(what, timeout, budget, one_each):
    """A composed suite: all its tests in one process (each test makes and closes its own
    loop, so the suite's setup allows it, and state one test leaves shows in the next),
    or with `one_each` a process per test."""
    if not one_each:
        return run_module_suite(what, timeout, budget, mode="composed")
    ids = listed(what)
    found = dict(run_one(i, timeout, budget) for i in ids)
    return ids, found


def rerun(table, expected, timeout, most=RERUN_AT_MOST):
    """Run each unexpected failure or hang once more, alone in a fresh process, as CPython's
    own test runner does (`regrtest --rerun`): some of asyncio's tests assert how long a
    sleep took, and a busy machine can stretch one past its bound. A test that passes the
    second time is counted a pass and named; one that fails again stays a failure. More than
    `most` of them is no accident of load, and none is run again."""
    unexpected = [(found, i) for _, ids, found in table for i in ids
                  if found[i][0] in ("fail", "hung") and i not in expected]
    if not unexpected or len(unexpected) > most:
        return
    for found, test_id in unexpected:
        first = found[test_id][1]
        _, (outcome, why) = run_one(test_id, timeout, Budget(timeout))
        if outcome == "pass":
            print(f"  passed when run again alone: {test_id} (the first time: {first})")
            found[test_id] = ("pass", "")
        else:
            found[test_id] = (outcome, f"{why} (run again alone; the first time: {first})")


def expected_failures(path):
    expected = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            line = line.strip()
            if line and not line.startswith("#"):
                test_id, _, why = line.partition(" ")
                expected[test_id] = why.strip()
    return expected


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    parser.add_argument("--timeout", type=float, default=60, help="per test process, seconds")
    parser.add_argument("--suite-timeout", type=float, default=150, help="per suite, seconds")
    parser.add_argument("--budget", type=float, default=360, help="the whole run, seconds")
    parser.add_argument("--one-each", action="store_true",
                        help="the composed suites one process per test (to find a test that "
                             "fails only after another)")
    parser.add_argument("--expected", default=os.path.join(HERE, "expected-failures.txt"))
    opts = parser.parse_args()
    budget = Budget(opts.budget)
    table = []
    for name in MODULE_SUITES:
        table.append((name, *run_module_suite(name, opts.suite_timeout, budget)))
    # The composed suites, several at once (each in its own process).
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        composed = pool.map(
            lambda what: run_composed(what, opts.suite_timeout, budget, opts.one_each),
            COMPOSED)
        table.extend((name, *done) for name, done in zip(COMPOSED.values(), composed))
    expected = expected_failures(opts.expected)
    rerun(table, expected, opts.timeout)
    regressions = []
    for name, ids, found in table:
        outcomes = [found[i][0] for i in ids]
        counts = {k: outcomes.count(k) for k in ("pass", "fail", "skip", "hung")}
        print(f"{name}: {counts['pass']} passed, {counts['fail']} failed, "
              f"{counts['skip']} skipped, {counts['hung']} hung of {len(ids)}")
    for name, ids, found in table:
        for test_id in ids:
            outcome, why = found[test_id]
            if outcome == "pass":
                if test_id in expected:
                    print(f"  note: {test_id} passes now: remove it from the expected failures")
                continue
            mark = "expected" if test_id in expected else ""
            if outcome in ("fail", "hung") and test_id not in expected:
                regressions.append(test_id)
                mark = "UNEXPECTED"
            print(f"  {outcome:4} {test_id}: {why} {('(' + mark + ')') if mark else ''}".rstrip())
    if regressions:
        print(f"{len(regressions)} unexpected failures or hangs (marked UNEXPECTED above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
