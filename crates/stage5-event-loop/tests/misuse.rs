//! What a careless caller does to the loop, and what it answers (book, "How it fails").
//! Each test is a row of that page: it hung, aborted, lost work or escaped before the fix.

use std::cell::{Cell, RefCell};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use stage5::{Error, EventLoop, ExceptionContext, Level, RealClock, VirtualClock, sleep};

fn vloop() -> EventLoop {
    EventLoop::with_clock(VirtualClock::new())
}

/// The messages the loop's exception handler receives.
fn collect_exceptions(lp: &EventLoop) -> Rc<RefCell<Vec<String>>> {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    lp.set_exception_handler(Some(Rc::new(move |_, context: &ExceptionContext| {
        let task = context.task.as_deref().unwrap_or("-");
        s.borrow_mut().push(format!("{} {task}", context.message))
    })));
    seen
}

// ANCHOR: fd_reuse
/// A socket closed after its wait ended, and a new one that gets the same number in the
/// same iteration: `sock_recv` on the new one completes (it used to wait for ever, the
/// loop believing the number still registered).
#[test]
fn sock_recv_on_a_reused_descriptor_number_completes() {
    for _attempt in 0..20 {
        let lp = vloop();
        let (a, a_peer) = UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let fd = a.as_raw_fd();
        lp.call_later(1.0, move |_| (&a_peer).write_all_now(b"1"))
            .unwrap();
        let l = lp.clone();
        let got = lp
            .create_task(async move {
                let first = l.sock_recv(&a, 10).await.unwrap(); // it waits: registered
                drop(a); // closed: the kernel forgets the registration at once
                let (b, b_peer) = UnixStream::pair().unwrap();
                if b.as_raw_fd() != fd {
                    return Ok(None); // another test's thread took the number: try again
                }
                b.set_nonblocking(true).unwrap();
                l.call_later(1.0, move |_| (&b_peer).write_all_now(b"2"))
                    .unwrap();
                let second = l.sock_recv(&b, 10).await.unwrap();
                Ok(Some((first, second)))
            })
            .unwrap();
        // If the second read never completes, stop at 5 s rather than hang.
        lp.call_later(5.0, |lp| lp.stop()).unwrap();
        match lp.run_until_complete(&got) {
            Ok(Some((first, second))) => {
                assert_eq!((first, second), (b"1".to_vec(), b"2".to_vec()));
                return;
            }
            Ok(None) => continue,
            Err(error) => panic!("sock_recv on the reused number never completed: {error}"),
        }
    }
    panic!("never got the same descriptor number back");
}
// ANCHOR_END: fd_reuse

/// A chain of `n` callbacks, one per iteration: a loop that never sleeps meanwhile.
fn busy(lp: &EventLoop, n: u32) {
    if n > 0 {
        lp.call_soon(move |lp| busy(lp, n - 1)).unwrap();
    }
}

/// The reused number once more, with the new socket's data there before `sock_recv` asks
/// (so it never comes as an edge) and `run_forever` held `sleepless` by a chain of
/// callbacks, or not: how many iterations the second `sock_recv` took, if the number came
/// back (`None` after 20 tries where another thread took it).
fn recv_on_a_reused_number(lp: &EventLoop, sleepless: bool) -> Option<u64> {
    for _attempt in 0..20 {
        let (a, a_peer) = UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let fd = a.as_raw_fd();
        lp.call_later(0.01, move |_| (&a_peer).write_all_now(b"1"))
            .unwrap();
        let l = lp.clone();
        let got = lp
            .create_task(async move {
                l.sock_recv(&a, 10).await.unwrap(); // it waits (registered); a short read
                drop(a);
                let (b, b_peer) = UnixStream::pair().unwrap();
                if b.as_raw_fd() != fd {
                    return Ok(None);
                }
                b.set_nonblocking(true).unwrap();
                (&b_peer).write_all_now(b"2");
                if sleepless {
                    busy(&l, 1000);
                }
                let start = l.iteration();
                let second = l.sock_recv(&b, 10).await.unwrap();
                assert_eq!(second, b"2");
                Ok(Some(l.iteration() - start))
            })
            .unwrap();
        // If the second read never completes, stop at 5 s rather than hang.
        let stop = lp.call_later(5.0, |lp| lp.stop()).unwrap();
        match lp.run_until_complete(&got) {
            Ok(Some(took)) => return Some(took),
            Ok(None) => stop.cancel(),
            Err(error) => panic!("sock_recv on the reused number never completed: {error}"),
        }
    }
    None
}

/// A wait on a kept registration costs no system call, and is checked only later: while
/// the loop never sleeps, after a few selects. Long before 1,000 iterations.
#[test]
fn sock_recv_on_a_reused_number_completes_while_the_loop_never_sleeps() {
    let took = recv_on_a_reused_number(&vloop(), true).expect("the number came back");
    assert!(took < 100, "the wait took {took} iterations");
}

/// On the real clock, with nothing else to wait for: the wait is checked before the loop
/// sleeps, instead of sleeping until the 5 s stop.
#[test]
fn sock_recv_on_a_reused_number_completes_before_the_loop_sleeps() {
    let lp = EventLoop::with_clock(RealClock::new());
    let took = recv_on_a_reused_number(&lp, false).expect("the number came back");
    assert!(took < 5, "the wait took {took} iterations");
}

/// Write all of `data` at once to a socket with room for it (a test helper).
trait WriteNow {
    fn write_all_now(self, data: &[u8]);
}

impl WriteNow for &UnixStream {
    fn write_all_now(mut self, data: &[u8]) {
        std::io::Write::write_all(&mut self, data).unwrap();
    }
}

#[test]
fn a_descriptor_number_the_process_cannot_have_is_an_error() {
    let lp = vloop();
    for fd in [i32::MAX, 999_999, -1] {
        let error = lp.add_reader(fd, |_| {}).unwrap_err();
        assert!(matches!(error, Error::Io(_)), "{error}");
        assert!(lp.add_writer(fd, |_| {}).is_err());
        assert!(!lp.has_reader(fd));
    }
}

#[test]
fn a_panicking_logger_is_caught_and_the_loop_goes_on() {
    let lp = vloop();
    lp.set_logger(|_, _: Level, _: &str| panic!("the logger itself fails"));
    let ran = Rc::new(Cell::new(false));
    let r = ran.clone();
    lp.call_soon(|_| panic!("a callback fails")).unwrap();
    lp.call_soon(move |lp| {
        r.set(true);
        lp.stop();
    })
    .unwrap();
    lp.run_forever().unwrap();
    assert!(ran.get(), "the callback after the failing one ran");
}

// ANCHOR: threadsafe_close
/// A `call_soon_threadsafe` that returned `Ok` runs, even when the loop closes before it
/// could look at its queue; after the close, calls are refused.
#[test]
fn an_accepted_threadsafe_call_runs_even_if_the_loop_closes_first() {
    let lp = vloop();
    let remote = lp.threadsafe();
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    let accepted = std::thread::spawn(move || {
        let call = remote.call_soon_threadsafe(move |_| r.store(true, Ordering::SeqCst));
        call.is_ok()
    });
    assert!(accepted.join().unwrap());
    lp.close().unwrap();
    assert!(ran.load(Ordering::SeqCst));
    let refused = lp.threadsafe().call_soon_threadsafe(|_| {});
    assert!(matches!(refused, Err(Error::Closed)));
}
// ANCHOR_END: threadsafe_close

#[test]
fn closing_with_pending_tasks_reports_each_of_them() {
    let lp = vloop();
    let seen = collect_exceptions(&lp);
    let l = lp.clone();
    let sleeper = lp
        .create_task(async move { sleep(&l, 10.0).await })
        .unwrap();
    lp.create_task(async { Ok(()) }).unwrap();
    lp.run_once().unwrap();
    lp.close().unwrap();
    assert_eq!(
        *seen.borrow(),
        [format!(
            "Task was destroyed but it is pending! <Task t{} pending>",
            sleeper.id()
        )]
    );
}

/// On the virtual clock, a loop with nothing to do but a `ThreadsafeLoop` held by another
/// thread waits for that thread, for real, instead of declaring it will never wake.
#[test]
fn a_virtual_loop_waits_for_a_thread_that_may_still_call() {
    let lp = vloop();
    let remote = lp.threadsafe();
    // The worker calls once the loop has run its first callback, when it has nothing left
    // to do but wait for the other thread (if the call comes first, the byte waits in the pipe).
    let (waiting_tx, waiting_rx) = std::sync::mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
        waiting_rx.recv().unwrap();
        remote.call_soon_threadsafe(|lp| lp.stop()).unwrap();
    });
    lp.call_soon(move |_| waiting_tx.send(()).unwrap()).unwrap();
    // Never hang: a timer would not do (the virtual clock would jump to it), so a watchdog
    // thread stops the loop if it is still running after 10 s of real time.
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let timed_out = Arc::new(AtomicBool::new(false));
    let (t, to_stop) = (timed_out.clone(), lp.threadsafe());
    let watchdog = std::thread::spawn(move || {
        if done_rx.recv_timeout(Duration::from_secs(10)).is_err() {
            t.store(true, Ordering::Relaxed);
            // Err only if the loop is closed, and then it is not running either.
            let _ = to_stop.call_soon_threadsafe(|lp| lp.stop());
        }
    });
    lp.run_forever().unwrap();
    let _ = done_tx.send(()); // Err: the watchdog timed out and is gone; asserted below
    watchdog.join().unwrap();
    worker.join().unwrap();
    assert!(
        !timed_out.load(Ordering::Relaxed),
        "the worker's call woke the loop"
    );
    // Its `ThreadsafeLoop` is gone with its thread: nothing can wake the loop any more.
    assert!(matches!(lp.run_forever(), Err(Error::NothingToWaitFor)));
}
