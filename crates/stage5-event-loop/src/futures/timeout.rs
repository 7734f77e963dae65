//! `timeout`: asyncio's `wait_for` for any Rust future, one that borrows included (book
//! chapter 7, "Socket operations"; asyncio's `tasks.wait_for`, and Python 3.11's
//! `asyncio.timeout()`, which times out an `await` without wrapping it in a task).
//!
//! `wait_for` (`combinators.rs`) waits for a [`Future`](crate::Future): something with done
//! callbacks, which a task or a timer completes. Most Rust futures are not that: a `sleep`,
//! an `async` block, a socket operation that borrows its socket (`lp.sock_recv(&sock,
//! 1024)`). asyncio wraps a coroutine in a task first (`ensure_future`); a Rust future that
//! borrows cannot become a task, which must own everything it runs.
//!
//! So `timeout(lp, secs, future)` races the future against a [`sleep`] with [`first_of`],
//! in the task that awaits it: no task, and nothing allocated but the timer. When the time
//! is up, the future is dropped, which is how a Rust future is cancelled (chapter 6): a
//! waiting `sock_recv` takes its waiter and its registration with it, a `sleep` its timer.
//! The error is the crate's [`Error::Timeout`], asyncio's `TimeoutError`. A shared future
//! (a `Future<T>`, a `Task<T>`) is only let go of, not cancelled: `wait_for` cancels it.
//!
//! A tie goes to the deadline: its timer is made before the future is first polled, and it
//! is looked at first. A one-second sleep under a one-second timeout times out, as
//! `asyncio.wait_for(asyncio.sleep(1), 1)` does in CPython 3.11; a future that another
//! timer completes in the same iteration as the deadline times out too, as under
//! `asyncio.timeout()` (`wait_for` would return its result: it looks at the future first).
//!
//! What changed since stage 4: stage 4 had no way to give up on a wait.

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::futures::first_of::{First, first_of};
use crate::futures::sleep::sleep;

// ANCHOR: timeout
/// Wait for `future` for at most `secs` seconds: its output, or [`Error::Timeout`] once the
/// time is up, the future then dropped unfinished. A tie goes to the deadline. With `secs`
/// zero or less the future gets one poll, and the deadline one turn of the loop; a NaN
/// `secs` is [`Error::NanTime`], and the future is never polled.
pub async fn timeout<F: std::future::Future>(
    lp: &EventLoop,
    secs: f64,
    future: F,
) -> Result<F::Output, Error> {
    // The deadline first: its timer is made, and looked at, before the future.
    match first_of(sleep(lp, secs), future).await {
        First::A(Ok(())) => Err(Error::Timeout),
        First::A(Err(error)) => Err(error), // NaN: the sleep refused it
        First::B(output) => Ok(output),
    }
}
// ANCHOR_END: timeout

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Future;
    use scaffold::VirtualClock;
    use std::cell::Cell;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsRawFd;
    use std::rc::Rc;
    use std::time::Duration;

    fn vloop() -> EventLoop {
        EventLoop::with_clock(VirtualClock::new())
    }

    /// Notes in its cell when it is dropped.
    struct Guard(Rc<Cell<bool>>);

    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }

    #[test]
    fn a_future_that_ends_in_time_gives_its_output_and_cancels_the_deadline() {
        let lp = vloop();
        let l = lp.clone();
        let task = lp
            .create_task(async move { timeout(&l, 5.0, sleep(&l, 1.0)).await })
            .unwrap();
        assert!(matches!(lp.run_until_complete(&task), Ok(Ok(()))));
        assert_eq!(lp.time(), 1.0);
        // The deadline's timer was cancelled, and step 1 popped it off the heap.
        assert_eq!(lp.scheduled_len(), 0);
        assert!(matches!(lp.run_once(), Err(Error::NothingToWaitFor)));
        assert_eq!(lp.time(), 1.0, "no jump to the deadline");
    }

    #[test]
    fn when_the_time_is_up_the_future_is_dropped_and_the_error_returned() {
        let lp = vloop();
        let l = lp.clone();
        let dropped = Rc::new(Cell::new(false));
        let guard = Guard(dropped.clone());
        let task = lp
            .create_task(async move {
                let l2 = l.clone();
                let slow = async move {
                    let _guard = guard;
                    sleep(&l2, 10.0).await
                };
                timeout(&l, 2.0, slow).await
            })
            .unwrap();
        assert!(matches!(lp.run_until_complete(&task), Err(Error::Timeout)));
        assert_eq!(lp.time(), 2.0);
        assert!(dropped.get(), "the future was dropped when the time was up");
        assert_eq!(lp.scheduled_len(), 0, "and its sleep's timer went with it");
        assert!(matches!(lp.run_once(), Err(Error::NothingToWaitFor)));
        assert_eq!(lp.time(), 2.0, "no jump to the dropped sleep's time");
    }

    // CPython 3.11, on `conformance/vloop.py`'s virtual clock, for the same two ties:
    //
    //     await asyncio.wait_for(asyncio.sleep(1), 1)     # TimeoutError at 1.000
    //     f = loop.create_future(); loop.call_later(1, f.set_result, 'x')
    //     async with asyncio.timeout(1): await f          # TimeoutError at 2.000
    //
    // (`await asyncio.wait_for(f, 1)` there returns 'x': it looks at the future first.)
    #[test]
    fn a_tie_goes_to_the_deadline_as_in_cpython() {
        let lp = vloop();
        let l = lp.clone();
        let task = lp
            .create_task(async move {
                let first = timeout(&l, 1.0, sleep(&l, 1.0)).await;
                assert!(matches!(first, Err(Error::Timeout)));
                assert_eq!(l.time(), 1.0);
                // A future completed by a timer made before the deadline's, due with it.
                let f: Future<&str> = l.create_future();
                let done = f.clone();
                l.call_later(1.0, move |_| drop(done.set_result("x")))?;
                let second = timeout(&l, 1.0, f).await;
                assert!(matches!(second, Err(Error::Timeout)));
                assert_eq!(l.time(), 2.0);
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&task).unwrap();
    }

    #[test]
    fn no_time_at_all_polls_once_and_a_nan_never_polls() {
        let lp = vloop();
        let l = lp.clone();
        let polled = Rc::new(Cell::new(0));
        let p = polled.clone();
        let task = lp
            .create_task(async move {
                let ready = timeout(&l, 0.0, async { 7 }).await;
                assert_eq!(ready.unwrap(), 7);
                let never = timeout(&l, -1.0, std::future::pending::<()>()).await;
                assert!(matches!(never, Err(Error::Timeout)));
                let nan = timeout(&l, f64::NAN, async move { p.set(p.get() + 1) }).await;
                assert!(matches!(nan, Err(Error::NanTime)));
                Ok(l.time())
            })
            .unwrap();
        assert_eq!(lp.run_until_complete(&task).unwrap(), 0.0);
        assert_eq!(polled.get(), 0);
    }

    /// Block (for real, at most 10 s) until `stream` has data: the kernel may deliver late
    /// on a busy machine, and the virtual clock must not jump past the data's arrival.
    fn delivered(stream: &TcpStream) {
        stream.set_nonblocking(false).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut byte = [0; 1];
        assert_eq!(stream.peek(&mut byte).unwrap(), 1, "the data came");
        stream.set_nonblocking(true).unwrap();
    }

    #[test]
    fn a_sock_recv_from_a_silent_peer_times_out_and_the_socket_goes_on() {
        let lp = vloop();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut peer, _) = listener.accept().unwrap();
        client.set_nonblocking(true).unwrap();
        let fd = client.as_raw_fd();
        let client = Rc::new(client);
        let (l, c) = (lp.clone(), client.clone());
        let silent = lp
            .create_task(async move { Ok(timeout(&l, 3.0, l.sock_recv(&*c, 1024)).await??) })
            .unwrap();
        assert!(matches!(
            lp.run_until_complete(&silent),
            Err(Error::Timeout)
        ));
        assert_eq!(lp.time(), 3.0, "the virtual clock jumped to the deadline");
        // One iteration to start, one to jump to the deadline, one to time out, one to stop.
        assert_eq!(lp.iteration(), 4);
        assert!(!lp.has_reader(fd), "the dropped sock_recv took its waiter");
        // It had read nothing, so nothing is lost: what the peer sends now is received.
        peer.write_all(b"late").unwrap();
        delivered(&client);
        let (l, c) = (lp.clone(), client.clone());
        let late = lp
            .create_task(async move { Ok(timeout(&l, 3.0, l.sock_recv(&*c, 1024)).await??) })
            .unwrap();
        assert_eq!(lp.run_until_complete(&late).unwrap(), b"late");
        assert_eq!(lp.time(), 3.0);
    }
}
