//! Socket operations as futures (book chapter 7, "Socket operations";
//! asyncio's `selector_events.py`: `sock_recv`, `sock_sendall`,
//! `sock_accept`, `sock_connect`).
//!
//! asyncio's `sock_recv(sock, n)` first tries `sock.recv(n)`; only if that would block does
//! it add a reader whose callback tries again and completes a future. The others follow
//! the same pattern: try, and wait with a reader or writer only when the socket says
//! `EWOULDBLOCK`. Ours too, in one small future, [`IoOp`], which every operation uses: the
//! waiting task's waker is the "reader" (see `io_table.rs`, `Waiter::Task`), and the
//! operation is retried when it is woken.
//!
//! The operations borrow their socket, so a socket cannot be closed while an operation
//! waits on it; dropping the waiting future (its task was cancelled or dropped) removes
//! its waiter and, if nobody else waits on the descriptor, its registration.
//!
//! One try is skipped, as tokio skips it: a read that came back shorter than asked emptied
//! the socket, so the next `sock_recv` on it waits at once instead of asking the kernel
//! for the `EWOULDBLOCK` it knows it would get. An edge since then (more data, the end of
//! the stream, an error) cancels the skip. The data asyncio's try would have found is
//! never lost: it comes with an edge, one iteration later.
//!
//! What changed since stage 4: stage 4's `recv` and `send` registered a one-shot wait on
//! every call; here waits keep the registration (`io_driver/io_table/release.rs`). The names
//! are asyncio's; stage 4's `recv`/`send`/`accept` still work on this loop too
//! (`bridge.rs`).

use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use socket2::Socket;
use stage4::Interest;

use scaffold::Event;

use crate::event_loop::EventLoop;
pub use crate::io_driver::io_table::Done;
use crate::io_driver::io_table::Release;
use crate::io_driver::selector::connect_under_way;
use crate::parts::current::current_task;

// ANCHOR: io_op
/// One socket operation: try `op`; if it would block, wait for `interest` on `fd` and try
/// again when woken. No allocation: the operation is a closure stored in place, given the
/// loop when it runs. Besides its value, `op` says what it learned about the socket
/// ([`Done`]), which the loop notes once the operation's waiter is gone.
pub struct IoOp<'a, F> {
    lp: &'a EventLoop,
    fd: RawFd,
    interest: Interest,
    waiting: bool, // our waker is installed on `fd`
    skip: bool,    // the first try is known to block (a short read emptied the socket)
    op: F,
}
// ANCHOR_END: io_op

impl<T, F> std::future::Future for IoOp<'_, F>
where
    F: FnMut(&EventLoop) -> io::Result<(T, Done)> + Unpin,
{
    type Output = io::Result<T>;

    // ANCHOR: io_op_poll
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let this = &mut *self;
        loop {
            let attempt = match std::mem::take(&mut this.skip) {
                true => Err(ErrorKind::WouldBlock.into()),
                false => (this.op)(this.lp),
            };
            match attempt {
                // A signal interrupted the system call: try again at once.
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                // Not now: wait for the descriptor, then try again.
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    // Seen with our own eyes: the next edge will tell when it is ready.
                    if let Err(error) = this.lp.inner.io.wait(this.fd, this.interest, cx.waker()) {
                        return Poll::Ready(Err(error));
                    }
                    // `loop_event!` by hand: the task's number is looked up only when
                    // someone listens.
                    if scaffold::emit::enabled()
                        && let Some(id) = current_task()
                    {
                        let (fd, interest) = (this.fd, this.interest.name());
                        this.lp.report(Event::IoWait { fd, interest, id });
                    }
                    this.waiting = true;
                    return Poll::Pending;
                }
                // Done: the operation ends, and the table hears what it learned. A
                // waiter's registration stays until the next select (the same task
                // usually waits on the same socket again at once); at the end of the
                // stream the registration goes now, waited or not (the socket is about
                // to be closed); a short read marks the socket drained.
                Ok((value, done)) => {
                    let waited = std::mem::take(&mut this.waiting);
                    this.lp.inner.io.done(this.fd, this.interest, waited, done);
                    return Poll::Ready(Ok(value));
                }
                // Failed for real (reset, refused, a bad descriptor): the operation ends
                // with the error. The socket is about to be closed: if the operation
                // waited, its registration goes now, unless another waiter still uses it.
                Err(error) => {
                    let waited = std::mem::take(&mut this.waiting);
                    this.lp
                        .inner
                        .io
                        .done(this.fd, this.interest, waited, Done::Failed);
                    return Poll::Ready(Err(error));
                }
            }
        }
    }
    // ANCHOR_END: io_op_poll
}

impl<F> Drop for IoOp<'_, F> {
    // ANCHOR: io_op_drop
    /// A future dropped while waiting (its task was cancelled) removes its waiter at once.
    fn drop(&mut self) {
        if self.waiting {
            // The waiter taken out is our own waker: nothing to cancel or wake.
            drop(self.lp.remove_waiter(self.fd, self.interest, Release::Now));
        }
    }
    // ANCHOR_END: io_op_drop
}

impl EventLoop {
    fn io_op<T, F>(&self, fd: RawFd, interest: Interest, op: F) -> IoOp<'_, F>
    where
        F: FnMut(&EventLoop) -> io::Result<(T, Done)> + Unpin,
    {
        IoOp {
            lp: self,
            fd,
            interest,
            waiting: false,
            // A read waits at once if a short read emptied `fd` (and no edge came since).
            skip: interest == Interest::Read && self.inner.io.is_drained(fd),
            op,
        }
    }

    // ANCHOR: sock_recv
    /// Receive up to `nbytes` from `sock` (asyncio's `sock_recv`): an empty vector at the
    /// end of the stream. While it waits it holds no buffer: the bytes are read into the
    /// loop's scratch buffer and copied out, so an idle connection costs no buffer.
    /// To wait for at most some seconds, wrap it in [`timeout`](crate::timeout).
    pub fn sock_recv<'a, S>(
        &'a self,
        sock: &'a S,
        nbytes: usize,
    ) -> impl std::future::Future<Output = io::Result<Vec<u8>>> + 'a
    where
        S: AsRawFd,
        for<'s> &'s S: Read,
    {
        self.io_op(sock.as_raw_fd(), Interest::Read, move |lp| {
            lp.with_scratch(nbytes, |scratch| {
                let n = (&*sock).read(scratch)?;
                Ok((scratch[..n].to_vec(), Done::read(n, nbytes)))
            })
        })
    }

    /// Receive into `buf` (asyncio's `sock_recv_into`): how many bytes, 0 at the end.
    pub fn sock_recv_into<'a, S>(
        &'a self,
        sock: &'a S,
        buf: &'a mut [u8],
    ) -> impl std::future::Future<Output = io::Result<usize>> + 'a
    where
        S: AsRawFd,
        for<'s> &'s S: Read,
    {
        self.io_op(sock.as_raw_fd(), Interest::Read, move |_| {
            let n = (&*sock).read(buf)?;
            Ok((n, Done::read(n, buf.len())))
        })
    }
    // ANCHOR_END: sock_recv

    // ANCHOR: sock_sendall
    /// Send all of `data` (asyncio's `sock_sendall`): tries at once, and waits for room in
    /// the socket's buffer only when it is full. While it waits, its task reads nothing:
    /// a peer that does not read stops the echo, and the server's memory stays bounded.
    /// One operation for all of it: what is left to send is the closure's own state.
    pub fn sock_sendall<'a, S>(
        &'a self,
        sock: &'a S,
        mut data: &'a [u8],
    ) -> impl std::future::Future<Output = io::Result<()>> + 'a
    where
        S: AsRawFd,
        for<'s> &'s S: Write,
    {
        self.io_op(sock.as_raw_fd(), Interest::Write, move |_| {
            while !data.is_empty() {
                match (&*sock).write(data)? {
                    0 => return Err(ErrorKind::WriteZero.into()),
                    n => data = &data[n..],
                }
            }
            Ok(((), Done::Other))
        })
    }
    // ANCHOR_END: sock_sendall

    // ANCHOR: sock_accept
    /// Accept a connection (asyncio's `sock_accept`); the new socket is non-blocking.
    pub async fn sock_accept(&self, listener: &TcpListener) -> io::Result<(TcpStream, SocketAddr)> {
        let (stream, peer) = self
            .io_op(listener.as_raw_fd(), Interest::Read, |_| {
                Ok((listener.accept()?, Done::Other))
            })
            .await?;
        self.new_socket(&stream)?;
        Ok((stream, peer))
    }
    // ANCHOR_END: sock_accept

    /// Connect `sock` (non-blocking) to `addr` (asyncio's `sock_connect`): start the
    /// connection, wait until the socket is writable, and report the connection's error
    /// if there is one.
    pub async fn sock_connect(&self, sock: &Socket, addr: SocketAddr) -> io::Result<()> {
        sock.set_nonblocking(true)?;
        self.forget_fd(sock.as_raw_fd()); // a new socket: nothing known about its number
        match sock.connect(&addr.into()) {
            // Connected at once (loopback sometimes does).
            Ok(()) => return Ok(()),
            // Under way: wait until the socket is writable.
            Err(e) if connect_under_way(&e) => {}
            // Refused, unreachable, a bad address: the caller's error.
            Err(e) => return Err(e),
        }
        let mut started = false;
        self.io_op(sock.as_raw_fd(), Interest::Write, |_| {
            if !started {
                started = true;
                return Err(ErrorKind::WouldBlock.into()); // wait for the first edge
            }
            match sock.take_error()? {
                // The connection failed (`SO_ERROR`): that is the answer.
                Some(error) => Err(error),
                None => match sock.peer_addr() {
                    // It has a peer: connected.
                    Ok(_) => Ok(((), Done::Other)),
                    // Writable but not connected yet (a spurious wake-up): wait again.
                    Err(e) if e.kind() == ErrorKind::NotConnected => {
                        Err(ErrorKind::WouldBlock.into())
                    }
                    // Anything else about the socket is the caller's error.
                    Err(e) => Err(e),
                },
            }
        })
        .await
    }

    /// A socket that just came into being: non-blocking, and whatever the loop remembers
    /// under its number belonged to a closed one.
    pub(crate) fn new_socket(&self, stream: &TcpStream) -> io::Result<()> {
        stream.set_nonblocking(true)?;
        self.forget_fd(stream.as_raw_fd());
        Ok(())
    }
}

/// Poll a future once with a no-op context: for unit tests of `IoOp`.
#[cfg(test)]
fn poll_once<F: std::future::Future>(f: Pin<&mut F>) -> Poll<F::Output> {
    std::future::Future::poll(f, &mut Context::from_waker(std::task::Waker::noop()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;

    #[test]
    fn a_dropped_waiting_operation_removes_its_waiter_and_registration() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let before = lp.selector_stats();
        {
            let mut accept = std::pin::pin!(lp.sock_accept(&listener));
            assert!(poll_once(accept.as_mut()).is_pending());
            assert!(lp.has_reader(listener.as_raw_fd()));
        }
        assert!(!lp.has_reader(listener.as_raw_fd()));
        let after = lp.selector_stats();
        assert_eq!(after.registers - before.registers, 1);
        assert_eq!(after.deregisters - before.deregisters, 1);
    }
}
