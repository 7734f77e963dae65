"""CPython's asyncio tests on ScratchLoop: the worker, which runs tests in this process.

Book chapter 9, "The conformance table". The tests are the installed `test.test_asyncio`
package of Python 3.11 (asyncio's own test suite, never copied here), composed with our
loop as CPython composes them with its loops (`test_events.py` builds `EPollEventLoopTests`
from `UnixEventLoopTestsMixin` and `test_utils.TestCase`):

    python cpython_tests.py list events|sock|subprocess     the test ids, one a line (or a MODULE's)
    python cpython_tests.py composed events|...  run all of those in this process
    python cpython_tests.py one TEST_ID          run one test of those
    python cpython_tests.py suite MODULE         run an IsolatedAsyncioTestCase module
                                                 (test_queues...) with our policy installed

Each test's outcome is one line, `RESULT <id> <pass|fail|skip> <reason>`, printed as soon as
the test ends, so the runner (`run.py`) knows which test hung if the process must be killed.
The last line counts the ScratchLoops made: a suite that ran on another loop is caught.
"""

import sys
import unittest

import scratchloop

if sys.version_info[:2] != (3, 11):
    print(f"SKIP: these are Python 3.11's tests; this is {sys.version.split()[0]}")
    sys.exit(3)
try:
    from test.test_asyncio import test_buffered_proto, test_events, test_sendfile, test_server
    from test.test_asyncio import test_sock_lowlevel, test_sslproto, utils as test_utils
except ImportError as missing:
    print(f"SKIP: this Python has no test.test_asyncio package ({missing})")
    sys.exit(3)

LOOPS_MADE = 0


class CountedLoop(scratchloop.ScratchLoop):
    """ScratchLoop, counted: the last line says how many the tests made."""

    def __init__(self):
        global LOOPS_MADE
        LOOPS_MADE += 1
        super().__init__()


class ScratchEventLoopTests(test_events.UnixEventLoopTestsMixin, test_utils.TestCase):
    """`EventLoopTestsMixin` (through its Unix mixin, which adds a child watcher) on ours."""

    def create_event_loop(self):
        return CountedLoop()


class ScratchSockTests(test_sock_lowlevel.BaseSockTestsMixin, test_utils.TestCase):
    """`test_sock_lowlevel`'s `BaseSockTestsMixin` on ours."""

    def create_event_loop(self):
        return CountedLoop()


class ScratchSubprocessTests(test_events.UnixEventLoopTestsMixin,
                             test_events.SubprocessTestsMixin, test_utils.TestCase):
    """`SubprocessTestsMixin` on ours, composed as `EPollEventLoopTests` composes it (the
    event loop tests it brings along are `ScratchEventLoopTests`' and are not run twice)."""

    def create_event_loop(self):
        return CountedLoop()


class ScratchStartServerTests(test_server.SelectorStartServerTests):
    """`test_server`'s start_server tests (TCP and Unix) on ours."""

    def new_loop(self):
        return CountedLoop()


class ScratchBufferedProtocolTests(test_buffered_proto.BufferedProtocolSelectorTests):
    """`test_buffered_proto`: a `BufferedProtocol` over our transport."""

    def new_loop(self):
        return CountedLoop()


class ScratchSendfileTests(test_sendfile.SendfileTestsBase, test_utils.TestCase):
    """`test_sendfile`: `loop.sendfile` and `sock_sendfile`, on ours (the native transport
    sends a file through `write`, asyncio's fallback)."""

    def create_event_loop(self):
        return CountedLoop()


class ScratchStartTLSTests(test_sslproto.SelectorStartTLSTests):
    """`test_sslproto`'s TLS tests: `start_tls` swaps asyncio's `SSLProtocol` (a
    `BufferedProtocol`) onto our native transport; `create_connection(ssl=...)` stays on
    asyncio's transport."""

    def new_loop(self):
        return CountedLoop()


COMPOSED = {"events": ScratchEventLoopTests, "sock": ScratchSockTests,
            "subprocess": ScratchSubprocessTests, "server": ScratchStartServerTests,
            "buffered": ScratchBufferedProtocolTests, "sendfile": ScratchSendfileTests,
            "tls": ScratchStartTLSTests}


class Policy(scratchloop.ScratchLoopPolicy):
    _loop_factory = CountedLoop


def short_id(test):
    """`ScratchEventLoopTests.test_close`, `test_queues.QueueGetTests.test_get`."""
    return test.id().removeprefix("__main__.").removeprefix("test.test_asyncio.")


# `test_events`' classes beyond the composed mixins that make their loops with the
# policy's `new_event_loop` (its other classes name asyncio's own loops).
EVENTS_REST = ["HandleTests", "TimerTests", "AbstractEventLoopTests", "PolicyTests",
               "TestPyGetEventLoop", "TestCGetEventLoop", "TestServer", "TestAbstractServer"]


def module_tests(name):
    """The tests of `test.test_asyncio.<name>`, as unittest loads them; `test_events_rest`
    is `EVENTS_REST`."""
    import importlib

    loader = unittest.TestLoader()
    if name == "test_events_rest":
        return unittest.TestSuite(
            loader.loadTestsFromTestCase(getattr(test_events, cls)) for cls in EVENTS_REST)
    module = importlib.import_module(f"test.test_asyncio.{name}")
    return loader.loadTestsFromModule(module)


def flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


def reason(err):
    """The last line of a traceback: the exception and its message."""
    lines = [line for line in err[1].strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "?"


class LineResult(unittest.TextTestResult):
    """A result that prints one RESULT line per test as it ends."""

    def line(self, test, outcome, why=""):
        print(f"RESULT {short_id(test)} {outcome} {why}".rstrip(), flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.line(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.line(test, "fail", reason(self.failures[-1]))

    def addError(self, test, err):
        super().addError(test, err)
        self.line(test, "fail", reason(self.errors[-1]))

    def addSkip(self, test, why):
        super().addSkip(test, why)
        self.line(test, "skip", why.splitlines()[0] if why else "")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.line(test, "skip", "expected failure in CPython's own run")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.line(test, "fail", "unexpected success")


def run(suite):
    runner = unittest.TextTestRunner(stream=sys.stderr, resultclass=LineResult, verbosity=0)
    runner.run(suite)
    print(f"LOOPS {LOOPS_MADE}", flush=True)


def main(argv):
    loader = unittest.TestLoader()
    if argv[:1] == ["list"] and argv[1] in COMPOSED:
        cls = COMPOSED[argv[1]]
        names = loader.getTestCaseNames(cls)
        if cls is ScratchSubprocessTests:
            names = loader.getTestCaseNames(test_events.SubprocessTestsMixin)
        for name in names:
            print(f"{cls.__name__}.{name}")
    elif argv[:1] == ["list"]:
        for test in flatten(module_tests(argv[1])):
            print(short_id(test))
    elif argv[:1] == ["composed"]:
        # All of a composed suite's tests in this one process, each with a loop of its own
        # (its setUp makes one, its tearDown closes it): what one test leaves shows in the next.
        cls = COMPOSED[argv[1]]
        names = loader.getTestCaseNames(cls)
        if cls is ScratchSubprocessTests:
            names = loader.getTestCaseNames(test_events.SubprocessTestsMixin)
        run(unittest.TestSuite(cls(name) for name in names))
    elif argv[:1] == ["one"] and argv[1].count(".") == 1:
        # A composed suite's test, `ScratchEventLoopTests.test_close`.
        cls_name, name = argv[1].split(".")
        cls = {c.__name__: c for c in COMPOSED.values()}[cls_name]
        run(unittest.TestSuite([cls(name)]))
    elif argv[:1] == ["one"]:
        # A module suite's test, `test_queues.QueueGetTests.test_get`, with our policy as
        # in `suite` (the module's own setup and teardown run around it).
        import asyncio

        asyncio.set_event_loop_policy(Policy())
        run(loader.loadTestsFromName(f"test.test_asyncio.{argv[1]}"))
    elif argv[:1] == ["suite"]:
        import asyncio

        asyncio.set_event_loop_policy(Policy())
        # The module's tearDownModule puts asyncio's default policy back, after its tests.
        run(module_tests(argv[1]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
