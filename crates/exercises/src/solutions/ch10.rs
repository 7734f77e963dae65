//! Chapter 10's exercises, solved (book chapter 10, completion on io_uring; asyncio's
//! `proactor_events.py`, `sock_recv_into` and `sock_sendall`, and `windows_events.py`,
//! `_OverlappedFuture.cancel`, and `IocpProactor.close`, which polls until
//! every cancelled operation has completed). Each item below is a stub
//! that compiles and does the wrong thing; `tests/ch10.rs` says what the right thing is.
//! They run on stage 6's loop, which needs io_uring: where it is refused, the tests say so
//! and do not run. Run one with `cargo run -p exercises -- run 10.1`.
//!
//! What changed since chapter 9's exercises: the kernel, not the loop, does the reads and
//! the writes. A buffer handed to an operation is the kernel's until its completion comes
//! back, and a cancel is a request the kernel answers later.

use std::os::unix::net::UnixStream;
use std::rc::Rc;

use stage6::{Error, Op, ProactorLoop};

/// Exercise 10.1, the buffer handed back: receive what the peer sent into `buf`, send
/// exactly that back, and hand the buffer back whole (its length as given) for the next
/// round, with how many bytes came: 0 at the end of the stream. One buffer, passed to the
/// kernel and back twice, never copied: `sock_recv_into` takes it and returns it with the
/// count, `sock_sendall` takes it and returns it once all is sent.
pub async fn echo_once(
    lp: &ProactorLoop,
    sock: &Rc<UnixStream>,
    buf: Vec<u8>,
) -> Result<(usize, Vec<u8>), Error> {
    let size = buf.len();
    let (n, mut buf) = lp.sock_recv_into(sock, buf).await?;
    buf.truncate(n); // what came, and nothing after it
    let mut buf = lp.sock_sendall(sock, buf).await?;
    buf.resize(size, 0); // whole again: its capacity never went
    Ok((n, buf))
}

/// Exercise 10.2, free only when the kernel says: cancel `op`, an operation in flight on
/// `lp`, and return once the kernel has answered for it, when its buffer is free again (as
/// asyncio's `IocpProactor.close` polls until its `_cache` is empty), with how many
/// iterations of the loop that took. Nothing
/// else is in flight: `lp.in_flight()` counts what the kernel still holds. Cancelling the
/// future only *asks*: the request goes to the kernel at the loop's next `io_uring_enter`,
/// and its answer comes back as a completion. Run the loop one iteration at a time, at
/// most `limit` of them, and never let an iteration block: with a callback ready, step 3
/// waits for nothing. The kernel not answering within `limit` is an error, not a hang.
pub fn call_off<T: 'static>(lp: &ProactorLoop, op: &Op<T>, limit: usize) -> Result<usize, Error> {
    op.cancel();
    let mut iterations = 0;
    while lp.in_flight() > 0 {
        if iterations == limit {
            return Err(Error::msg(format!(
                "the kernel did not answer the cancel in {limit} iterations"
            )));
        }
        lp.call_soon(|_| {})?; // something ready: this iteration does not block
        lp.run_once()?;
        iterations += 1;
    }
    Ok(iterations)
}
