"""scratchloop's own tests: bad input gets a clear Python exception, never a Rust panic or a
hang; handles are stage 5's; the GIL is released while the loop waits.

Book chapter 9. Run by `scripts/asyncio-conformance.sh` (`python own_tests.py`); prints
`own tests: P passed, F failed of N` and exits 1 if one fails. Counts and orders only,
never durations.
"""

import asyncio
import gc
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import unittest
import warnings
import weakref

import scratchloop
from scratchloop import _core


class BadInput(unittest.TestCase):
    def setUp(self):
        self.loop = scratchloop.ScratchLoop()

    def tearDown(self):
        self.loop.close()

    def test_times_that_are_no_times(self):
        with self.assertRaises(ValueError):
            self.loop.call_at(float("nan"), print)
        with self.assertRaises(ValueError):
            self.loop.call_later(float("nan"), print)
        with self.assertRaises(TypeError):
            self.loop.call_later(None, print)
        with self.assertRaises(TypeError):
            self.loop.call_at("soon", print)
        self.assertEqual(self.loop.call_later(float("inf"), print).when(), float("inf"))

    def test_callbacks_that_cannot_be_called(self):
        for method in (self.loop.call_soon, lambda cb: self.loop.call_later(1, cb)):
            with self.assertRaises(TypeError):
                method(42)

    def test_descriptors_that_are_no_descriptors(self):
        with self.assertRaises(ValueError):
            self.loop.add_reader(-1, print)
        with self.assertRaises(ValueError):
            self.loop.add_writer(object(), print)
        with self.assertRaises(OSError):
            self.loop.add_reader(987654, print)
        with self.assertRaises(OverflowError):
            self.loop.add_reader(2**40, print)

    def test_removing_what_cannot_be_there_is_false(self):
        # asyncio's selector looks the number up and finds nothing: False, whatever its size.
        for fd in (2**31, 2**40, 987654):
            self.assertFalse(self.loop.remove_reader(fd))
            self.assertFalse(self.loop.remove_writer(fd))

    def test_signals_that_are_no_signals(self):
        with self.assertRaises(TypeError):
            self.loop.add_signal_handler("boom", print)
        with self.assertRaises(ValueError):
            self.loop.add_signal_handler(0, print)

    def test_another_thread_gets_a_runtime_error_not_a_panic(self):
        handle = self.loop.call_soon(print)
        timer = self.loop.call_later(10, print)
        caught = []

        def other():
            for use in (lambda: self.loop.call_soon(print), handle.cancel, timer.when,
                        lambda: repr(timer)):
                try:
                    use()
                except RuntimeError:
                    caught.append("RuntimeError")

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        self.assertEqual(caught, ["RuntimeError"] * 4)
        self.assertFalse(handle.cancelled())

    def test_a_closed_loop_refuses_politely(self):
        self.loop.close()
        for use in (lambda: self.loop.call_soon(print), lambda: self.loop.call_later(1, print),
                    lambda: self.loop.call_soon_threadsafe(print), self.loop.run_forever):
            with self.assertRaises(RuntimeError):
                use()

    def test_the_core_made_by_hand(self):
        with self.assertRaises(TypeError):
            _core.Core()
        with self.assertRaises(TypeError):
            _core.Core(42, 0.0)  # an int cannot be referred to weakly


class StageFiveUnderneath(unittest.TestCase):
    def test_handles_and_timers_are_stage_fives(self):
        loop = scratchloop.ScratchLoop()
        core = loop._core
        timers = [loop.call_later(100 + i, print) for i in range(4)]
        loop.call_soon(print)
        self.assertEqual((core.ready_len(), core.scheduled_len()), (1, 4))
        timers[0].cancel()
        timers[0].cancel()
        self.assertEqual(core.timer_cancelled_count(), 1)
        loop.call_soon(loop.stop)
        loop.run_forever()  # step 1 drops the cancelled timer off the heap's head
        self.assertEqual((core.ready_len(), core.scheduled_len()), (0, 3))
        loop.close()

    def test_a_mostly_cancelled_heap_is_rebuilt(self):
        # Stage 5's step 1, as asyncio's: over 100 timers, more than half cancelled.
        loop = scratchloop.ScratchLoop()
        core = loop._core
        timers = [loop.call_later(1000 + i, print) for i in range(200)]
        for timer in timers[50:]:
            timer.cancel()
        self.assertEqual((core.scheduled_len(), core.timer_cancelled_count()), (200, 150))
        loop.call_soon(loop.stop)
        loop.run_forever()
        self.assertEqual((core.scheduled_len(), core.timer_cancelled_count()), (50, 0))
        loop.close()

    def test_the_gil_is_released_while_the_loop_waits(self):
        # A thread that needs the GIL to answer: were the GIL kept during the wait, it
        # could not run, and the loop would wait until its timer (the test's result).
        loop = scratchloop.ScratchLoop()
        order = []

        async def main():
            fut = loop.create_future()

            def worker():
                order.append("thread ran")
                loop.call_soon_threadsafe(fut.set_result, "answered")

            loop.call_later(30, fut.cancel)
            threading.Thread(target=worker).start()
            order.append(await fut)

        loop.run_until_complete(main())
        loop.close()
        self.assertEqual(order, ["thread ran", "answered"])

    def test_a_base_exception_leaves_run_forever(self):
        loop = scratchloop.ScratchLoop()

        def interrupt():
            raise KeyboardInterrupt

        loop.call_soon(interrupt)
        with self.assertRaises(KeyboardInterrupt):
            loop.run_forever()
        self.assertFalse(loop.is_running())
        loop.close()

    def test_an_exception_goes_to_the_handler(self):
        loop = scratchloop.ScratchLoop()
        seen = []
        loop.set_exception_handler(lambda lp, ctx: seen.append(
            (ctx["message"].split(" at ")[0], type(ctx["exception"]).__name__)))
        loop.call_soon(lambda: 1 / 0)
        loop.call_soon(loop.stop)
        loop.run_forever()
        loop.close()
        self.assertEqual(len(seen), 1)
        self.assertTrue(seen[0][0].startswith("Exception in callback"))
        self.assertEqual(seen[0][1], "ZeroDivisionError")

    def test_debug_mode_logs_a_slow_callback_on_asyncio_s_logger(self):
        loop = scratchloop.ScratchLoop()
        loop.set_debug(True)
        loop.slow_callback_duration = 0.0  # every callback is slow: a count, not a time
        loop.call_soon(loop.stop)
        with self.assertLogs("asyncio", "WARNING") as logs:
            loop.run_forever()
        loop.close()
        self.assertEqual(len(logs.output), 1)
        self.assertIn("Executing <Handle", logs.output[0])

    def test_a_policy_and_a_runner(self):
        async def which():
            return type(asyncio.get_running_loop()).__name__

        self.assertEqual(scratchloop.run(which()), "ScratchLoop")
        asyncio.set_event_loop_policy(scratchloop.ScratchLoopPolicy())
        try:
            self.assertEqual(asyncio.run(which()), "ScratchLoop")
        finally:
            asyncio.set_event_loop_policy(None)

    def test_the_runner_s_help(self):
        for flag in ("--help", "-h"):
            run = subprocess.run([sys.executable, "-m", "scratchloop", flag],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertTrue(run.stdout.startswith("usage: python -m scratchloop"), run.stdout)
            self.assertEqual(run.stderr, "")

    def test_the_runner_refuses_what_it_cannot_run(self):
        for args, said in (([], "usage: python -m scratchloop"),
                           (["/no/such/script.py"], "can't open file '/no/such/script.py'")):
            run = subprocess.run([sys.executable, "-m", "scratchloop", *args],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn(said, run.stderr)
            self.assertNotIn("Traceback", run.stderr)

    def test_a_socket_pair_through_the_readers(self):
        loop = scratchloop.ScratchLoop()
        a, b = socket.socketpair()
        got = []

        def readable():
            got.append(a.recv(10))
            loop.remove_reader(a)
            loop.stop()

        loop.add_reader(a, readable)
        b.send(b"ping")
        loop.run_forever()
        self.assertEqual(got, [b"ping"])
        self.assertFalse(loop.remove_reader(a))
        a.close()
        b.close()
        loop.close()


def run_script(source, *, ours, timeout=60):
    """`source` as a script, on CPython's loop (`python script.py`) or on ours (`python -m
    scratchloop script.py`): its exit code, standard output and standard error."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "script.py")
        with open(path, "w") as script:
            script.write(textwrap.dedent(source))
        args = ["-m", "scratchloop", path] if ours else [path]
        run = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                             timeout=timeout, cwd=folder)
        return run.returncode, run.stdout, run.stderr.replace(path, "script.py")


FAILING_CALLBACKS = """
    import asyncio

    class Custom(BaseException):
        pass

    def divide():
        1 / 0

    def look_up(key):
        return {}[key]

    def custom():
        raise Custom("mine")

    def cancelled():
        raise asyncio.CancelledError()

    loop = asyncio.new_event_loop()
    loop.call_soon(divide)
    loop.call_later(0.001, look_up, "key")
    loop.call_soon(custom)
    loop.call_soon(cancelled)
    loop.call_later(0.01, loop.stop)
    loop.run_forever()
    print("run_forever returned")
    loop.close()
"""


def normalised(stderr):
    """What must differ between the loops' reports, made the same: asyncio's own frame
    (`events.py`, `Handle._run`, which runs the callback where stage 5's Rust does) and a
    timer's `when` (a time on each run's clock)."""
    stderr = re.sub(r'  File "[^"]*asyncio/events\.py", line \d+, in _run\n.*\n', "", stderr)
    return re.sub(r"when=[0-9.e+-]+", "when=T", stderr)


class CallbacksThatFail(unittest.TestCase):
    """asyncio's `Handle._run`: SystemExit and KeyboardInterrupt leave `run_forever`;
    every other exception, `BaseException`s included, goes to the exception handler with
    its traceback, and the loop goes on."""

    def test_a_base_exception_goes_to_the_handler_and_the_loop_goes_on(self):
        class Custom(BaseException):
            pass

        def raise_(exc):
            raise exc

        loop = scratchloop.ScratchLoop()
        seen = []
        loop.set_exception_handler(lambda lp, ctx: seen.append(type(ctx["exception"]).__name__))
        loop.call_soon(raise_, Custom())
        loop.call_soon(raise_, asyncio.CancelledError())
        loop.call_soon(seen.append, "ran on")
        loop.call_soon(loop.stop)
        loop.run_forever()  # returns: neither leaves it
        self.assertEqual(seen, ["Custom", "CancelledError", "ran on"])
        loop.call_soon(raise_, SystemExit(3))
        with self.assertRaises(SystemExit):
            loop.run_forever()
        loop.close()

    def test_the_handler_gets_the_traceback_and_the_handle(self):
        def divide():
            1 / 0

        loop = scratchloop.ScratchLoop()
        seen = []
        loop.set_exception_handler(lambda lp, ctx: seen.append(ctx))
        loop.call_soon(divide)
        loop.call_later(0.001, divide)
        loop.call_later(0.01, loop.stop)
        loop.run_forever()
        loop.close()
        self.assertEqual(len(seen), 2)
        for ctx, kind in zip(seen, ("<Handle ", "<TimerHandle when=")):
            frames = [frame.name for frame in traceback_frames(ctx["exception"])]
            self.assertEqual(frames[-1:], ["divide"])
            self.assertTrue(repr(ctx["handle"]).startswith(kind), repr(ctx["handle"]))
            self.assertIn(".divide() at ", repr(ctx["handle"]))

    def test_the_report_is_cpython_s(self):
        code, out, theirs = run_script(FAILING_CALLBACKS, ours=False)
        self.assertEqual((code, out), (0, "run_forever returned\n"), theirs)
        self.assertEqual(theirs.count("Traceback (most recent call last)"), 4, theirs)
        code, out, ours = run_script(FAILING_CALLBACKS, ours=True)
        self.assertEqual((code, out), (0, "run_forever returned\n"), ours)
        self.assertEqual(normalised(ours), normalised(theirs))


def traceback_frames(exc):
    import traceback
    return traceback.extract_tb(exc.__traceback__)


SIGINT_MID_RUN = """
    import asyncio

    async def main():
        try:
            asyncio.get_running_loop().call_soon(lambda: print("waiting", flush=True))
            await asyncio.sleep(60)
        finally:
            print("finally ran", flush=True)

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
    print("end", flush=True)
"""


class WhatALoopHolds(unittest.TestCase):
    def test_closing_a_loop_frees_its_pending_tasks(self):
        # Each loop closed with a task pending: in the ready queue (never started), in the
        # heap (sleeping) or behind a reader (a `sock_recv` nobody answers). Closing drops
        # them, and Python's collector can then free each task: asyncio says of each one
        # "Task was destroyed but it is pending!".
        alive, said = [], []

        async def sleep():
            await asyncio.sleep(3600)

        async def read(sock):
            await asyncio.get_running_loop().sock_recv(sock, 10)

        # A task never started says its coroutine "was never awaited" when it is freed.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for i in range(2000):
                loop = scratchloop.ScratchLoop()
                loop.set_exception_handler(lambda lp, ctx: said.append(ctx["message"]))
                pair = socket.socketpair()
                pair[0].setblocking(False)
                task = loop.create_task(read(pair[0]) if i % 3 == 1 else sleep())
                if i % 3:
                    loop.run_until_complete(asyncio.sleep(0))  # the task waits now
                alive.append(weakref.ref(task))
                del task
                loop.close()
                del loop
                for sock in pair:
                    sock.close()
            gc.collect()
        self.assertEqual(sum(ref() is not None for ref in alive), 0)
        self.assertEqual(said.count("Task was destroyed but it is pending!"), 2000)

    def test_sigint_during_run_until_complete_lets_the_finally_run(self):
        # As on asyncio's loop: the KeyboardInterrupt leaves run_until_complete with the
        # task pending, and the coroutine's `finally` runs when the task is freed (at the
        # interpreter's exit, for a loop nobody closed).
        outputs = []
        for ours in (False, True):
            args = ["-m", "scratchloop"] if ours else []
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "script.py")
                with open(path, "w") as script:
                    script.write(textwrap.dedent(SIGINT_MID_RUN))
                proc = subprocess.Popen([sys.executable, *args, path], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
                killer = threading.Timer(60, proc.kill)  # a child that hangs: bounded
                killer.start()
                try:
                    first = proc.stdout.readline()  # the task waits in its sleep now
                    proc.send_signal(signal.SIGINT)
                    rest, _ = proc.communicate(timeout=60)
                finally:
                    killer.cancel()
                    proc.kill()
                outputs.append((first + rest).splitlines())
        theirs, mine = outputs
        self.assertEqual(theirs, ["waiting", "KeyboardInterrupt", "end", "finally ran"])
        self.assertEqual(mine, theirs)


class OtherThreadsAndDescriptors(unittest.TestCase):
    def test_stop_from_another_thread(self):
        # asyncio's `stop` only sets a flag, from any thread; ours takes it to the loop's
        # thread, which then stops (before the fallback, 30 s on).
        loop = scratchloop.ScratchLoop()
        fell_back, errors = [], []

        def other():
            try:
                loop.stop()
            except BaseException as exc:
                errors.append(exc)

        loop.call_soon(lambda: threading.Thread(target=other).start())
        fallback = loop.call_later(30, lambda: (fell_back.append(True), loop.stop()))
        loop.run_forever()
        fallback.cancel()
        loop.close()
        self.assertEqual((errors, fell_back), ([], []))

    def test_a_reused_number_s_old_reader_never_fires_and_a_new_one_does(self):
        # The number of a socket closed with its reader still there goes to a new socket:
        # the old reader never fires for it (the kernel dropped the closed socket), and a
        # reader added for the new socket fires (asyncio's never does: its selector keeps
        # the old key and changes only its data; chapter 9's table of differences).
        loop = scratchloop.ScratchLoop()
        fired = []
        for reader in ("old reader", None, "new reader"):
            a, b = socket.socketpair()
            if reader == "old reader":
                fd = a.fileno()
                loop.add_reader(fd, fired.append, reader)
                loop.call_soon(loop.stop)
                loop.run_forever()
                a.close()
                b.close()
                continue
            new, other = (a, b) if a.fileno() == fd else (b, a)
            self.assertEqual(new.fileno(), fd)  # the number is the new socket's now
            if reader:
                loop.add_reader(fd, fired.append, reader)
            other.send(b"x")
            loop.call_later(0.05, loop.stop)
            loop.run_forever()
            if reader:
                loop.remove_reader(fd)
            a.close()
            b.close()
        loop.close()
        self.assertEqual(sorted(set(fired)), ["new reader"])

SIGNAL_AGAIN = """
    import asyncio, os, signal
    ran = []
    for round in range(3):
        loop = asyncio.new_event_loop()
        loop.add_signal_handler(signal.SIGUSR1, lambda r=round: (ran.append(r), loop.stop()))
        loop.call_soon(os.kill, os.getpid(), signal.SIGUSR1)
        loop.call_later(30, loop.stop)  # never hang
        loop.run_forever()
        loop.remove_signal_handler(signal.SIGUSR1)
        print(round, ran, signal.getsignal(signal.SIGUSR1))
        loop.close()
    loop = asyncio.new_event_loop()
    loop.add_signal_handler(signal.SIGINT, print)
    loop.remove_signal_handler(signal.SIGINT)
    loop.add_signal_handler(signal.SIGINT, print)
    loop.remove_signal_handler(signal.SIGINT)
    print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    try:
        os.kill(os.getpid(), signal.SIGINT)
        loop.run_until_complete(asyncio.sleep(30))
    except KeyboardInterrupt:
        print("KeyboardInterrupt")
    loop.close()
"""

FORK_FROM_A_RUNNING_LOOP = """
    import asyncio, concurrent.futures, multiprocessing

    def in_the_child():
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(asyncio.sleep(0, "child ran its loop"))
        finally:
            loop.close()

    async def main():
        context = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
            return await asyncio.get_running_loop().run_in_executor(pool, in_the_child)

    print(asyncio.run(main()))
"""


class SignalsAndDebug(unittest.TestCase):
    def test_a_signal_handled_removed_and_handled_again(self):
        outputs = [run_script(SIGNAL_AGAIN, ours=ours) for ours in (False, True)]
        theirs, mine = outputs
        self.assertEqual(theirs[1].splitlines()[-2:], ["True", "KeyboardInterrupt"])
        self.assertEqual(mine[:2], theirs[:2])

    def test_a_child_forked_from_a_running_loop_runs_its_own(self):
        outputs = [run_script(FORK_FROM_A_RUNNING_LOOP, ours=ours) for ours in (False, True)]
        self.assertEqual(outputs[0][:2], (0, "child ran its loop\n"))
        self.assertEqual(outputs[1][:2], outputs[0][:2])

    def test_an_os_error_from_signal_reaches_the_caller_as_it_is(self):
        import errno
        from unittest import mock

        loop = scratchloop.ScratchLoop()
        try:
            for code, raised in ((errno.EFAULT, OSError), (errno.EINVAL, RuntimeError)):
                failing = mock.Mock(side_effect=OSError(code, os.strerror(code)))
                with mock.patch("scratchloop._loop.signal.signal", failing):
                    with self.assertRaises(raised) as caught:
                        loop.add_signal_handler(signal.SIGUSR2, print)
                if raised is OSError:
                    self.assertEqual(caught.exception.errno, errno.EFAULT)
                self.assertNotIn(signal.SIGUSR2, loop._signal_handlers)
        finally:
            loop.close()

    def test_debug_mode_handles_keep_where_they_were_made(self):
        loop = scratchloop.ScratchLoop()
        try:
            self.assertIsNone(loop.call_soon(print)._source_traceback)
            loop.set_debug(True)
            for make in (lambda: loop.call_soon(print), lambda: loop.call_later(1, print),
                         lambda: loop.call_at(loop.time() + 1, print)):
                handle = make()
                # The last frame is the caller's (the lambda), not call_later's or call_at's.
                frame = handle._source_traceback[-1]
                self.assertEqual((frame.filename, frame.name), (__file__, "<lambda>"))
                handle.cancel()
        finally:
            loop.close()

    def test_scheduling_runs_no_python_frame_outside_debug_mode(self):
        # Outside debug mode call_soon, call_later and call_at are the core's own: a
        # Python-level profiler sees no call of the loop class's methods; in debug mode
        # (which keeps where handles were made) it does.
        loop = scratchloop.ScratchLoop()
        try:
            for debug, expected in ((False, []), (True, ["call_soon", "call_later", "call_at"])):
                loop.set_debug(debug)
                seen = []

                def profile(frame, event, arg):
                    if event == "call" and frame.f_code.co_filename == sys.modules["scratchloop._loop"].__file__:
                        seen.append(frame.f_code.co_name)

                sys.setprofile(profile)
                try:
                    handles = [loop.call_soon(print), loop.call_later(1, print),
                               loop.call_at(loop.time() + 1, print)]
                finally:
                    sys.setprofile(None)
                for handle in handles:
                    handle.cancel()
                called = sorted({name for name in seen if name.startswith("call_")})
                self.assertEqual(called, sorted(expected), f"debug={debug}")
            loop.set_debug(False)
            with self.assertRaisesRegex(TypeError, "delay must not be None"):
                loop.call_later(None, print)
            with self.assertRaisesRegex(TypeError, "when cannot be None"):
                loop.call_at(None, print)
        finally:
            loop.close()

        # A subclass's own call_at is called, by call_later too, as asyncio's would be.
        class Watching(scratchloop.ScratchLoop):
            def call_at(self, when, callback, *args, context=None):
                seen.append(when)
                return super().call_at(when, callback, *args, context=context)

        seen = []
        loop = Watching()
        try:
            loop.call_later(1, print).cancel()
            self.assertEqual(len(seen), 1)
        finally:
            loop.close()


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    failed = len(result.failures) + len(result.errors)
    print(f"own tests: {result.testsRun - failed} passed, {failed} failed of {result.testsRun}")
    sys.exit(1 if failed else 0)
