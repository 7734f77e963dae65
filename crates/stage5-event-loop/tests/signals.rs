//! Signal handlers on the loop (book chapter 7, "Signals"). A test binary of its own: the
//! signals raised here are delivered to the whole process.

#![allow(non_snake_case)]

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::cell::Cell;
use std::rc::Rc;

use signal_hook::consts::{SIGALRM, SIGINT, SIGKILL, SIGSEGV, SIGSTOP, SIGTERM, SIGUSR1, SIGUSR2};
use stage5::{Error, EventLoop, RealClock, VirtualClock, hold_signal};

// ANCHOR: while_selecting
#[test]
fn test_signal_handling_while_selecting() {
    let lp = EventLoop::with_clock(RealClock::new());
    let loop_thread = std::thread::current().id();
    let ran = Rc::new(Cell::new(0));
    let r = ran.clone();
    lp.add_signal_handler(SIGUSR1, move |lp| {
        assert_eq!(
            std::thread::current().id(),
            loop_thread,
            "on the loop's thread"
        );
        r.set(r.get() + 1);
        lp.stop();
    })
    .unwrap();
    // The signal comes from another thread once the loop has run its first callbacks, just
    // before it blocks in select (the 10 s bound below is its timeout); if it comes before
    // the loop blocks, the byte is in the pipe and that select returns at once: the same
    // outcome. The OS-level handler runs on that thread, and only writes to the self-pipe.
    let (blocking_tx, blocking_rx) = std::sync::mpsc::channel::<()>();
    let sender = std::thread::spawn(move || {
        blocking_rx.recv().unwrap();
        signal_hook::low_level::raise(SIGUSR1).unwrap();
    });
    lp.call_soon(move |_| blocking_tx.send(()).unwrap())
        .unwrap();
    let bound = lp.call_later(10.0, EventLoop::stop).unwrap(); // never hang
    let before = lp.selector_stats().selects;
    lp.run_forever().unwrap();
    bound.cancel();
    // The loop blocked while it waited: a loop that spun would have selected many times.
    let selects = lp.selector_stats().selects - before;
    assert!(selects <= 5, "it did block: {selects} selects");
    assert_eq!(ran.get(), 1);
    sender.join().unwrap();
    assert!(lp.remove_signal_handler(SIGUSR1).unwrap());
    assert!(!lp.remove_signal_handler(SIGUSR1).unwrap());
}
// ANCHOR_END: while_selecting

#[test]
fn uncatchable_and_invalid_signals_are_clear_errors() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    for sig in [SIGKILL, SIGSTOP, SIGSEGV] {
        let error = lp.add_signal_handler(sig, |_| {}).unwrap_err();
        assert!(matches!(error, Error::UncatchableSignal(s) if s == sig));
        assert_eq!(error.to_string(), format!("sig {sig} cannot be caught"));
    }
    for sig in [0, -3, 1000] {
        let error = lp.add_signal_handler(sig, |_| {}).unwrap_err();
        assert_eq!(error.to_string(), format!("invalid signal number {sig}"));
    }
    lp.close().unwrap();
    assert!(matches!(
        lp.add_signal_handler(SIGUSR2, |_| {}),
        Err(Error::Closed)
    ));
}

#[test]
fn a_replaced_handler_is_cancelled_and_the_new_one_runs() {
    let lp = EventLoop::with_clock(RealClock::new());
    let old = lp
        .add_signal_handler(SIGUSR2, |_| panic!("replaced"))
        .unwrap();
    let ran = Rc::new(Cell::new(false));
    let r = ran.clone();
    lp.add_signal_handler(SIGUSR2, move |lp| {
        r.set(true);
        lp.stop();
    })
    .unwrap();
    assert!(old.cancelled());
    signal_hook::low_level::raise(SIGUSR2).unwrap();
    lp.call_later(10.0, EventLoop::stop).unwrap(); // never hang
    lp.run_forever().unwrap();
    assert!(ran.get());
    lp.close().unwrap(); // removes the handler (and the next SIGUSR2 would end us)
}

#[test]
fn sigterm_stops_the_echo_server_which_reports_its_clients() {
    let clock = RealClock::new();
    let transcript = scaffold::Transcript::capture(clock.clone(), false);
    let lp = EventLoop::with_clock(clock);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = echo_server::serve(&lp, listener, scaffold::net::Reply::Got, None).unwrap();
    for sig in [SIGINT, SIGTERM] {
        let server = server.clone();
        lp.add_signal_handler(sig, move |lp| server.shutdown(lp))
            .unwrap();
    }
    // Two clients: one has left, one is still connected when SIGTERM comes.
    let client = std::thread::spawn(move || {
        let mut gone = loadgen::client::connect(addr).unwrap();
        loadgen::client::round_trip(&mut gone, b"Got:", b"bye").unwrap();
        drop(gone);
        let mut stays = loadgen::client::connect(addr).unwrap();
        loadgen::client::round_trip(&mut stays, b"Got:", b"hello").unwrap();
        signal_hook::low_level::raise(SIGTERM).unwrap();
        // The server closes our connection: end of stream.
        let mut rest = Vec::new();
        std::io::Read::read_to_end(&mut stays, &mut rest).unwrap();
        rest
    });
    lp.call_later(30.0, EventLoop::stop).unwrap(); // never hang
    lp.run_forever().unwrap();
    lp.close().unwrap();
    assert!(client.join().unwrap().is_empty());
    let text = transcript.text();
    assert_eq!(loadgen::scenario::closed_count(&text), 2, "{text}");
    assert!(text.ends_with("| clients served: 2\n"), "{text}");
}

/// A held signal outlives the loop that handled it: after `close`, which puts the default
/// action back, `SIGALRM` (whose default ends the process) is ignored. Without the hold
/// this test binary would end here, by the signal. No other test here uses `SIGALRM`.
#[test]
fn a_held_signal_is_ignored_once_the_loop_that_handled_it_has_closed() {
    let lp = EventLoop::with_clock(RealClock::new());
    let ran = Rc::new(Cell::new(0));
    let r = ran.clone();
    lp.add_signal_handler(SIGALRM, move |lp| {
        r.set(r.get() + 1);
        lp.stop();
    })
    .unwrap();
    hold_signal(SIGALRM).unwrap();
    signal_hook::low_level::raise(SIGALRM).unwrap();
    lp.call_later(10.0, EventLoop::stop).unwrap(); // never hang
    lp.run_forever().unwrap();
    assert_eq!(ran.get(), 1, "handled while the loop handles it");
    lp.close().unwrap();
    signal_hook::low_level::raise(SIGALRM).unwrap();
    assert_eq!(ran.get(), 1, "then ignored, and we are still here");
    for sig in [SIGKILL, SIGSTOP] {
        let error = hold_signal(sig).unwrap_err();
        assert!(matches!(error, Error::UncatchableSignal(s) if s == sig));
    }
    assert!(matches!(hold_signal(0), Err(Error::InvalidSignal(0))));
}

/// asyncio lets a program handle a signal, remove the handler and handle it again (a
/// forked worker's child watcher moves SIGCHLD from one loop to another so): the second
/// handler runs, and a signal while none is there does nothing (SIGWINCH's default is to
/// ignore it, so a failure here cannot end the test binary).
#[test]
fn a_signal_handled_removed_and_handled_again_runs_the_new_handler() {
    use signal_hook::consts::SIGWINCH;
    let lp = EventLoop::with_clock(RealClock::new());
    let ran = Rc::new(Cell::new(0));
    for round in 1..=3 {
        let r = ran.clone();
        lp.add_signal_handler(SIGWINCH, move |lp| {
            r.set(r.get() + 1);
            lp.stop();
        })
        .unwrap();
        signal_hook::low_level::raise(SIGWINCH).unwrap();
        let bound = lp.call_later(10.0, EventLoop::stop).unwrap(); // never hang
        lp.run_forever().unwrap();
        bound.cancel();
        assert_eq!(ran.get(), round, "round {round}: the handler ran once");
        assert!(lp.remove_signal_handler(SIGWINCH).unwrap());
        // Nobody handles it now: the default (ignore) applies, and no handler runs.
        signal_hook::low_level::raise(SIGWINCH).unwrap();
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
        assert_eq!(ran.get(), round, "round {round}: removed, it does not run");
    }
    lp.close().unwrap();
}
