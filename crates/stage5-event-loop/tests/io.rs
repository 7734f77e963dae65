//! Readers, writers, the self-pipe and threads (book chapter 7). The tests that check
//! what a CPython test checks carry its name (Lib/test/test_asyncio/test_selector_events.py
//! and test_events.py); CPython's versions run on mocks, ours on real sockets on the
//! loop's real selector.

// The tests keep CPython's names.
#![allow(non_snake_case)]

use std::cell::{Cell, RefCell};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use stage5::{Error, EventLoop, RealClock, VirtualClock};

fn vloop() -> EventLoop {
    EventLoop::with_clock(VirtualClock::new())
}

/// A connected pair of non-blocking Unix sockets.
fn pair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

fn counter() -> (Rc<Cell<u32>>, impl FnMut(&EventLoop) + 'static) {
    let count = Rc::new(Cell::new(0));
    let c = count.clone();
    (count, move |_: &EventLoop| c.set(c.get() + 1))
}

#[test]
fn test_add_reader_existing() {
    let lp = vloop();
    let (a, _b) = pair();
    let (first_calls, first) = counter();
    let (second_calls, second) = counter();
    let old = lp.add_reader(a.as_raw_fd(), first).unwrap();
    let new = lp.add_reader(a.as_raw_fd(), second).unwrap();
    assert!(old.cancelled(), "the replaced reader's handle is cancelled");
    assert!(!new.cancelled());
    assert!(lp.has_reader(a.as_raw_fd()));
    (&_b).write_all(b"x").unwrap();
    lp.call_later(1.0, |_| {}).unwrap();
    lp.run_once().unwrap();
    assert_eq!((first_calls.get(), second_calls.get()), (0, 1));
    assert!(lp.remove_reader(a.as_raw_fd()));
    assert!(new.cancelled());
    assert!(!lp.remove_reader(a.as_raw_fd()), "nothing left to remove");
}

#[test]
fn test_add_writer_existing() {
    let lp = vloop();
    let (a, _b) = pair();
    let (first_calls, first) = counter();
    let (second_calls, second) = counter();
    let old = lp.add_writer(a.as_raw_fd(), first).unwrap();
    let (reader_calls, reader) = counter();
    lp.add_reader(a.as_raw_fd(), reader).unwrap();
    lp.add_writer(a.as_raw_fd(), second).unwrap();
    assert!(old.cancelled());
    lp.run_once().unwrap(); // a fresh socket is writable
    assert_eq!((first_calls.get(), second_calls.get()), (0, 1));
    assert_eq!(
        reader_calls.get(),
        0,
        "not readable: the reader is not called"
    );
    assert!(lp.remove_writer(a.as_raw_fd()));
    assert!(!lp.remove_writer(a.as_raw_fd()));
    assert!(lp.has_reader(a.as_raw_fd()), "the reader stays");
}

#[test]
fn test_process_events_read_cancelled() {
    let lp = vloop();
    let (a, b) = pair();
    let (calls, reader) = counter();
    let handle = lp.add_reader(a.as_raw_fd(), reader).unwrap();
    (&b).write_all(b"x").unwrap();
    handle.cancel();
    lp.call_later(1.0, |_| {}).unwrap();
    lp.run_once().unwrap();
    assert_eq!(calls.get(), 0, "a cancelled reader is not run");
    assert!(!lp.has_reader(a.as_raw_fd()), "process_events removed it");
}

#[test]
fn test_process_events_write_cancelled() {
    let lp = vloop();
    let (a, _b) = pair();
    let (calls, writer) = counter();
    let handle = lp.add_writer(a.as_raw_fd(), writer).unwrap();
    handle.cancel();
    lp.run_once().unwrap();
    assert_eq!(calls.get(), 0);
    assert!(!lp.has_writer(a.as_raw_fd()));
}

#[test]
fn a_bad_or_closed_fd_is_an_error_not_a_panic() {
    let lp = vloop();
    assert!(matches!(lp.add_reader(-1, |_| {}), Err(Error::Io(_))));
    // A number closed a moment ago; another test's thread may take it again meanwhile, and
    // then the writer is accepted for that thread's socket: try a fresh number.
    let error = (0..20)
        .find_map(|_| {
            let closed = {
                let (a, _b) = pair();
                a.as_raw_fd()
            };
            match lp.add_writer(closed, |_| {}) {
                Err(error) => Some((closed, error)),
                Ok(_) => {
                    lp.remove_writer(closed);
                    None
                }
            }
        })
        .expect("a closed number stays closed long enough once in 20 tries");
    let (closed, error) = error;
    assert!(error.to_string().contains("Bad file descriptor"), "{error}");
    assert!(!lp.remove_reader(closed));
    lp.close().unwrap();
    assert!(matches!(lp.add_reader(0, |_| {}), Err(Error::Closed)));
}

// ANCHOR: level_triggered
#[test]
fn a_reader_that_reads_one_byte_of_ten_is_called_ten_times() {
    let lp = vloop();
    let (a, b) = pair();
    (&b).write_all(b"0123456789").unwrap();
    let calls = Rc::new(RefCell::new(Vec::new()));
    let c = calls.clone();
    let sock = a.try_clone().unwrap();
    lp.add_reader(a.as_raw_fd(), move |lp| {
        let mut byte = [0u8; 1];
        (&sock).read_exact(&mut byte).unwrap();
        c.borrow_mut().push((lp.iteration(), byte[0]));
    })
    .unwrap();
    lp.call_later(100.0, |_| {}).unwrap(); // so that an idle iteration ends
    let before = lp.selector_stats();
    for _ in 0..11 {
        lp.run_once().unwrap();
    }
    let expected: Vec<(u64, u8)> = (0..10).map(|i| (i + 1, b'0' + i as u8)).collect();
    assert_eq!(
        *calls.borrow(),
        expected,
        "one call per iteration, ten in all"
    );
    assert_eq!(
        lp.time(),
        100.0,
        "the eleventh iteration found nothing to read"
    );
    // The price of level-triggering on an edge-triggered selector: one re-arm per call.
    let after = lp.selector_stats();
    assert_eq!(after.reregisters - before.reregisters, 10);
}
// ANCHOR_END: level_triggered

// ANCHOR: hot_path
#[test]
fn an_echo_on_one_connection_registers_once_and_re_arms_at_most_once_a_message() {
    let lp = EventLoop::with_clock(RealClock::new());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let before = lp.selector_stats();
    let l = lp.clone();
    let server = lp
        .create_task(async move {
            let (sock, _) = l.sock_accept(&listener).await.unwrap();
            let mut messages = 0;
            loop {
                let data = l.sock_recv(&sock, 1024).await.unwrap();
                if data.is_empty() {
                    return Ok(messages);
                }
                messages += 1;
                l.sock_sendall(&sock, &data).await.unwrap();
            }
        })
        .unwrap();
    // The server waits for its client before the client exists: the listener's wait is
    // registered whatever the threads' timing.
    lp.run_once().unwrap();
    let client = std::thread::spawn(move || {
        let mut stream = loadgen::client::connect(addr).unwrap();
        for n in 0..200 {
            loadgen::client::round_trip(&mut stream, b"", &loadgen::client::message(0, n, 64))
                .unwrap();
        }
    });
    assert_eq!(lp.run_until_complete(&server).unwrap(), 200);
    client.join().unwrap();
    let after = lp.selector_stats();
    let delta = |f: fn(&stage5::SelectorStats) -> u64| f(&after) - f(&before);
    // The listener and the connection: registered once each, removed once each.
    assert_eq!(delta(|s| s.registers), 2);
    assert_eq!(delta(|s| s.deregisters), 2);
    // A wait finds the registration kept from the last operation and costs no system
    // call; it is checked (one re-arm) only if the loop would otherwise sleep more than a
    // millisecond before its edge comes: at most one system call per message.
    assert!(delta(|s| s.reregisters) <= 200, "{:?}", after);
}
// ANCHOR_END: hot_path

/// `sock_recv`s on `a` after a first one that waited for `b"ab"` (written by a timer, so
/// the socket is registered), with `then` run on the peer in between: each read's bytes
/// and the iterations it took.
fn reads_after_a_wait(
    first: usize,
    then: impl FnOnce(&UnixStream) + 'static,
    sizes: &'static [usize],
) -> Vec<(Vec<u8>, u64)> {
    let lp = vloop();
    let (a, b) = pair();
    let b = Rc::new(b);
    let writer = b.clone();
    lp.call_later(1.0, move |_| (&*writer).write_all(b"ab").unwrap())
        .unwrap();
    let l = lp.clone();
    let task = lp
        .create_task(async move {
            let got = l.sock_recv(&a, first).await?;
            then(&b);
            let mut reads = vec![(got, 0)];
            for &size in sizes {
                let start = l.iteration();
                let got = l.sock_recv(&a, size).await?;
                reads.push((got, l.iteration() - start));
            }
            Ok(reads)
        })
        .unwrap();
    lp.call_later(10.0, EventLoop::stop).unwrap(); // never hang
    lp.run_until_complete(&task).unwrap()
}

// ANCHOR: short_read
/// After a short read, the next `sock_recv` waits without trying (tokio's trick): what came
/// meanwhile arrives with its edge, one iteration later than asyncio's try would have
/// found it, and nothing is lost.
#[test]
fn after_a_short_read_the_next_sock_recv_waits_for_the_edge() {
    let reads = reads_after_a_wait(10, |mut b| b.write_all(b"cd").unwrap(), &[10]);
    assert_eq!(reads, [(b"ab".to_vec(), 0), (b"cd".to_vec(), 1)]);
}
// ANCHOR_END: short_read

/// A read that filled its buffer proves nothing: the next one tries at once, and finds the
/// rest in the same iteration.
#[test]
fn after_a_full_read_the_next_sock_recv_tries_at_once() {
    let reads = reads_after_a_wait(1, |_| {}, &[1]);
    assert_eq!(reads, [(b"a".to_vec(), 0), (b"b".to_vec(), 0)]);
}

/// The end of the stream after a short read is an edge too: the next read gets it.
#[test]
fn after_a_short_read_the_end_of_the_stream_still_comes() {
    let reads = reads_after_a_wait(
        10,
        |b| b.shutdown(std::net::Shutdown::Write).unwrap(),
        &[10],
    );
    assert_eq!(reads, [(b"ab".to_vec(), 0), (Vec::new(), 1)]);
}

/// `sock_recv_into` follows the same rule.
#[test]
fn after_a_short_read_into_a_buffer_the_next_one_waits_for_the_edge() {
    let lp = vloop();
    let (a, b) = pair();
    let b = Rc::new(b);
    let writer = b.clone();
    lp.call_later(1.0, move |_| (&*writer).write_all(b"ab").unwrap())
        .unwrap();
    let l = lp.clone();
    let task = lp
        .create_task(async move {
            let mut buf = [0u8; 10];
            let first = l.sock_recv_into(&a, &mut buf).await?;
            (&*b).write_all(b"cd").unwrap();
            let start = l.iteration();
            let second = l.sock_recv_into(&a, &mut buf[first..]).await?;
            Ok((buf[..first + second].to_vec(), l.iteration() - start))
        })
        .unwrap();
    lp.call_later(10.0, EventLoop::stop).unwrap(); // never hang
    assert_eq!(lp.run_until_complete(&task).unwrap(), (b"abcd".to_vec(), 1));
}

#[test]
fn a_task_dropped_while_waiting_leaves_no_registration() {
    let lp = vloop();
    let (a, _b) = pair();
    let l = lp.clone();
    let fd = a.as_raw_fd();
    let task = lp
        .create_task(async move { Ok(l.sock_recv(&a, 10).await?.len()) })
        .unwrap();
    lp.run_once().unwrap();
    assert!(lp.has_reader(fd), "the task waits to read");
    let before = lp.selector_stats();
    task.cancel();
    lp.call_later(1.0, |_| {}).unwrap();
    lp.run_once().unwrap(); // the step that ends the task drops its future
    assert!(task.cancelled());
    assert!(!lp.has_reader(fd));
    assert_eq!(lp.selector_stats().deregisters - before.deregisters, 1);
}

#[test]
fn test_call_soon_threadsafe() {
    let lp = EventLoop::with_clock(RealClock::new());
    let remote = lp.threadsafe();
    let loop_thread = std::thread::current().id();
    // The helper calls once the loop has run its first callbacks, just before it blocks in
    // select (the 10 s bound below is its timeout). If the call comes before the loop
    // blocks, the byte is in the pipe and the select returns at once: the same outcome.
    let (blocking_tx, blocking_rx) = std::sync::mpsc::channel::<()>();
    let (ran_tx, ran_rx) = std::sync::mpsc::channel();
    let helper = std::thread::spawn(move || {
        blocking_rx.recv().unwrap();
        remote
            .call_soon_threadsafe(move |lp| {
                ran_tx.send(std::thread::current().id()).unwrap();
                lp.stop();
            })
            .unwrap();
    });
    lp.call_soon(move |_| blocking_tx.send(()).unwrap())
        .unwrap();
    let timed_out = Rc::new(Cell::new(false));
    let t = timed_out.clone();
    // Never hang: a call lost, or one that does not wake the loop, ends here.
    lp.call_later(10.0, move |lp| {
        t.set(true);
        lp.stop();
    })
    .unwrap();
    let before = lp.selector_stats().selects;
    lp.run_forever().unwrap(); // blocks in select until the helper's byte arrives
    assert!(!timed_out.get(), "the call woke the loop");
    assert_eq!(
        ran_rx.try_recv(),
        Ok(loop_thread),
        "it ran, on the loop's thread"
    );
    // The loop blocked: a loop that spun while it waited would have selected many times.
    let selects = lp.selector_stats().selects - before;
    assert!(selects <= 5, "{selects} selects");
    helper.join().unwrap();
    lp.close().unwrap();
    assert!(matches!(
        lp.threadsafe().call_soon_threadsafe(|_| {}),
        Err(Error::Closed)
    ));
}

/// `threads` calls of `call_soon_threadsafe` from each of 4 threads while the loop runs:
/// each callback runs exactly once, and those of one thread in the order it queued them.
fn many_calls_from_four_threads(per_thread: usize) -> Duration {
    thread_local! {
        static NEXT: RefCell<[usize; 4]> = const { RefCell::new([0; 4]) };
        static WRONG: Cell<usize> = const { Cell::new(0) };
    }
    let lp = EventLoop::with_clock(RealClock::new());
    let done = Arc::new(AtomicBool::new(false));
    // Bound the run: if a callback were lost, the loop would stop here instead of hanging.
    lp.call_later(60.0, EventLoop::stop).unwrap();
    let start = Instant::now();
    let workers: Vec<_> = (0..4)
        .map(|t| {
            let remote = lp.threadsafe();
            std::thread::spawn(move || {
                for i in 0..per_thread {
                    remote
                        .call_soon_threadsafe(move |lp| {
                            let finished = NEXT.with(|next| {
                                let mut next = next.borrow_mut();
                                if next[t] != i {
                                    WRONG.with(|w| w.set(w.get() + 1));
                                }
                                next[t] = i + 1;
                                next.iter().all(|&n| n == per_thread)
                            });
                            if finished {
                                lp.stop();
                            }
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    lp.run_forever().unwrap();
    let took = start.elapsed();
    for worker in workers {
        worker.join().unwrap();
    }
    done.store(true, Ordering::Relaxed);
    NEXT.with(|next| assert_eq!(*next.borrow(), [per_thread; 4]));
    assert_eq!(WRONG.with(Cell::get), 0, "a callback ran out of order");
    lp.close().unwrap();
    took
}

#[test]
fn call_soon_threadsafe_from_four_threads() {
    // Scaled down for the debug test run; the full size is the ignored test below.
    let took = many_calls_from_four_threads(10_000);
    eprintln!("40,000 call_soon_threadsafe: {took:?}");
}

/// The full size: `cargo test --release -p stage5 --test io -- --ignored --nocapture`.
#[test]
#[ignore = "a million calls: run in release"]
fn a_million_call_soon_threadsafe_from_four_threads() {
    let took = many_calls_from_four_threads(250_000);
    eprintln!("1,000,000 call_soon_threadsafe: {took:?}");
}

#[test]
fn a_task_woken_from_another_thread_wakes_a_blocked_loop() {
    let lp = EventLoop::with_clock(RealClock::new());
    let (tx, rx) = std::sync::mpsc::channel::<std::task::Waker>();
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let task = lp
        .create_task(std::future::poll_fn(move |cx| {
            if f.load(Ordering::Acquire) {
                return std::task::Poll::Ready(Ok(7));
            }
            tx.send(cx.waker().clone()).unwrap();
            std::task::Poll::Pending
        }))
        .unwrap();
    // The task sends its waker from its first step, just before the loop blocks in select
    // (the 10 s bound below is its timeout); if the wake comes before the loop blocks, the
    // byte is in the pipe and that select returns at once: the same outcome.
    let helper = std::thread::spawn(move || {
        let waker = rx.recv().unwrap();
        flag.store(true, Ordering::Release);
        waker.wake();
    });
    // Never hang: a lost wake-up stops the loop here, and the task is not done.
    lp.call_later(10.0, EventLoop::stop).unwrap();
    let before = lp.selector_stats().selects;
    assert_eq!(lp.run_until_complete(&task).unwrap(), 7);
    // The loop blocked while it waited: a loop that spun would have selected many times.
    let selects = lp.selector_stats().selects - before;
    assert!(selects <= 5, "{selects} selects");
    helper.join().unwrap();
}

/// Data and the end of the stream that came together (one edge, before the read): the
/// short read that takes the data must not hide the end, which no later edge announces.
#[test]
fn the_end_of_the_stream_that_came_with_the_data_is_not_lost_after_a_short_read() {
    let lp = vloop();
    let (a, b) = pair();
    lp.call_later(1.0, move |_| {
        (&b).write_all(b"ab").unwrap();
        b.shutdown(std::net::Shutdown::Write).unwrap();
    })
    .unwrap();
    let l = lp.clone();
    let task = lp
        .create_task(async move {
            let first = l.sock_recv(&a, 10).await?;
            let second = l.sock_recv(&a, 10).await?;
            Ok((first, second))
        })
        .unwrap();
    lp.call_later(10.0, EventLoop::stop).unwrap(); // never hang
    let outcome = lp.run_until_complete(&task);
    assert_eq!(outcome.unwrap(), (b"ab".to_vec(), Vec::new()));
}
