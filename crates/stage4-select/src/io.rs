//! Socket operations that wait instead of polling (book chapter 4, "accept, recv, send";
//! Beazley's talk, `Scheduler.recv`/`send`/`accept`).
//!
//! The talk's `recv` is three lines: `read_wait(sock, self.current)`, `self.current = None`,
//! `await switch()`, then `sock.recv(...)`. The task files itself under the socket, steps
//! out of `current`, and is made ready again by the loop when the selector reports the
//! socket. Ours do the same through [`WaitIo::wait`], with two changes:
//!
//! - the wait is registered *before* the task steps out of `current`, so that a refused wait
//!   (a bad fd, a second waiter) is an error returned to a task that is still running,
//!   not a task parked forever;
//! - readiness is a hint, not a promise: after waking, the operation may still answer
//!   `WouldBlock` (another reader got there first, a spurious wake-up), and then the task
//!   simply waits again.
//!
//! And one addition: the talk's `send` ignores partial writes (`sock.send` may take only
//! part of the data). [`WaitIo::sendall`] loops until every byte is written.
//!
//! What changed from stage 3: the same names as stage 2's polling `io` functions, now
//! methods of any scheduler that can wait ([`WaitIo`]; the talk's are its scheduler's),
//! and no `sleep` anywhere.
//!
//! They are written against a trait, [`WaitIo`]: stage 1's [`Schedule`] plus the talk's
//! `read_wait` and `write_wait`. Stage 4's [`Scheduler`] implements it; so does stage 5's
//! event loop, and then these very functions run there unchanged (chapter 5, "The old code
//! still runs"). A caller brings the trait into scope (`use stage4::WaitIo`) to call them.

use std::cell::Cell;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::rc::Rc;

use stage1::Schedule;
use stage2::runtime::{self, Suspended};
use stage2::switch;

use crate::scheduler::Scheduler;
use crate::selector::Interest;

// ANCHOR: wait_io
/// A callback scheduler that can also wait for sockets: the talk's `read_wait` and
/// `write_wait`. Everything else in this module is written against it.
// `async fn` in a public trait cannot promise `Send` futures; nothing here is ever sent to
// another thread (every scheduler in the book runs on one), so that is no loss.
#[allow(async_fn_in_trait)]
pub trait WaitIo: Schedule {
    /// Run `callback` once `source` is readable. One wait per socket and direction: a
    /// second is refused with `AlreadyExists`.
    fn read_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Self) + 'static,
    ) -> io::Result<()>;

    /// Run `callback` once `source` is writable. One wait per socket and direction.
    fn write_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Self) + 'static,
    ) -> io::Result<()>;
    // ANCHOR_END: wait_io

    // ANCHOR: wait
    /// Suspend the running task until `source` is ready for `interest`.
    async fn wait(&self, source: &impl AsRawFd, interest: Interest) -> io::Result<()> {
        // Register first, with an empty slot for the task; only once that worked does the
        // task step out of `current` into the slot.
        let slot: Rc<Cell<Option<Suspended>>> = Rc::default();
        let wake = slot.clone();
        let callback = move |_: &Self| {
            if let Some(task) = wake.take() {
                task.resume();
            }
        };
        match interest {
            Interest::Read => self.read_wait(source, callback)?,
            Interest::Write => self.write_wait(source, callback)?,
        }
        slot.set(Some(runtime::suspend())); // sched.current = None
        switch().await;
        Ok(())
    }
    // ANCHOR_END: wait

    // ANCHOR: recv
    /// Wait until `sock` is readable, then receive into `buf`: `Ok(0)` at end of stream.
    async fn recv(&self, sock: &mut TcpStream, buf: &mut [u8]) -> io::Result<usize> {
        let fd = sock.as_raw_fd();
        retry(self, &fd, Interest::Read, || sock.read(buf)).await
    }
    // ANCHOR_END: recv

    /// Wait until `sock` is writable, then send as much of `data` as it takes.
    async fn send(&self, sock: &mut TcpStream, data: &[u8]) -> io::Result<usize> {
        let fd = sock.as_raw_fd();
        retry(self, &fd, Interest::Write, || sock.write(data)).await
    }

    // ANCHOR: sendall
    /// Send all of `data`: `send` may take only part of it (a full socket buffer), and the
    /// talk's server would silently drop the rest.
    async fn sendall(&self, sock: &mut TcpStream, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            match self.send(sock, data).await? {
                0 => return Err(ErrorKind::WriteZero.into()),
                n => data = &data[n..],
            }
        }
        Ok(())
    }
    // ANCHOR_END: sendall

    /// Wait until `listener` has a connection, accept it, and make it non-blocking.
    async fn accept(&self, listener: &TcpListener) -> io::Result<(TcpStream, SocketAddr)> {
        let (stream, peer) = retry(self, listener, Interest::Read, || listener.accept()).await?;
        stream.set_nonblocking(true)?;
        Ok((stream, peer))
    }
}

impl WaitIo for Scheduler {
    fn read_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Self) + 'static,
    ) -> io::Result<()> {
        Scheduler::read_wait(self, source, callback)
    }

    fn write_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Self) + 'static,
    ) -> io::Result<()> {
        Scheduler::write_wait(self, source, callback)
    }
}

// ANCHOR: retry
/// Retry `op` until it does not answer `WouldBlock`, waiting for `interest` in between.
async fn retry<S: WaitIo, T>(
    s: &S,
    source: &impl AsRawFd,
    interest: Interest,
    mut op: impl FnMut() -> io::Result<T>,
) -> io::Result<T> {
    loop {
        s.wait(source, interest).await?;
        match op() {
            // Not ready after all (another reader got there first, a spurious wake-up), or
            // a signal interrupted the call: wait again.
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
            // Done, or failed for real: either is the caller's answer.
            result => return result,
        }
    }
}
// ANCHOR_END: retry
