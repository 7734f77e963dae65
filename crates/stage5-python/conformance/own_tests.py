"""scratchloop's own tests: bad input gets a clear Python exception, never a Rust panic or a
hang; handles are stage 5's; the GIL is released while the loop waits.

Book chapter 9. Run by `scripts/asyncio-conformance.sh` (`python own_tests.py`); prints
`own tests: P passed, F failed of N` and exits 1 if one fails. Counts and orders only,
never durations.
"""

import asyncio
import socket
import subprocess
import sys
import threading
import unittest

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
                        lambda: repr(timer), self.loop.stop):
                try:
                    use()
                except RuntimeError:
                    caught.append("RuntimeError")

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        self.assertEqual(caught, ["RuntimeError"] * 5)
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


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    failed = len(result.failures) + len(result.errors)
    print(f"own tests: {result.testsRun - failed} passed, {failed} failed of {result.testsRun}")
    sys.exit(1 if failed else 0)
