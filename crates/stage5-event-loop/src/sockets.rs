//! Socket operations as futures, and a listening server (book chapter 7, "Socket
//! operations" and "Out of file descriptors"; seeds 000/004, "网络 IO 回调", asyncio's
//! `selector_events.py`: `sock_recv`, `sock_sendall`, `sock_accept`, `sock_connect`,
//! `_start_serving`, `_accept_connection`).
//!
//! asyncio's `sock_recv(sock, n)` first tries `sock.recv(n)`; only if that would block does
//! it add a reader whose callback tries again and completes a future. The others follow
//! the same pattern: try, and wait with a reader or writer only when the socket says
//! `EWOULDBLOCK`. Ours too, in one small future, [`IoOp`], which every operation uses: the
//! waiting task's waker is the "reader" (see `readers.rs`, `Waiter::Task`), and the
//! operation is retried when it is woken.
//!
//! The operations borrow their socket, so a socket cannot be closed while an operation
//! waits on it; dropping the waiting future (its task was cancelled or dropped) removes
//! its waiter and, if nobody else waits on the descriptor, its registration.
//!
//! [`EventLoop::start_serving`] is asyncio's `_start_serving`: a reader on the listening
//! socket that accepts up to `backlog` connections each time it runs. When `accept` fails
//! because the process or the system is out of file descriptors (or memory), asyncio
//! reports it through the exception handler, stops accepting for
//! [`ACCEPT_RETRY_DELAY`] (one second), and tries again; existing connections go on.
//!
//! What changed since stage 4: stage 4's `recv` and `send` registered a one-shot wait on
//! every call, and `accept` accepted one connection per wait. Here waits keep the
//! registration (`readers.rs`), a listener drains up to a backlog per readiness event, and
//! running out of descriptors is survived.

use std::cell::{Cell, RefCell};
use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use socket2::Socket;
use stage4::Interest;

use crate::event_loop::{EventLoop, ExceptionContext};
use crate::handle::Handle;

/// How long a server stops accepting after running out of file descriptors (asyncio's
/// `constants.ACCEPT_RETRY_DELAY`), in seconds.
pub const ACCEPT_RETRY_DELAY: f64 = 1.0;

/// asyncio's default `backlog`: how many connections a server accepts per readiness event.
pub const DEFAULT_BACKLOG: usize = 100;

// ANCHOR: io_op
/// One socket operation: try `op`; if it would block, wait for `interest` on `fd` and try
/// again when woken. No allocation: the operation is a closure stored in place.
pub struct IoOp<'a, F> {
    lp: &'a EventLoop,
    fd: RawFd,
    interest: Interest,
    op: F,
    waiting: bool, // our waker is installed on `fd`
}

impl<T, F: FnMut() -> io::Result<T> + Unpin> std::future::Future for IoOp<'_, F> {
    type Output = io::Result<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let this = &mut *self;
        loop {
            match (this.op)() {
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    // Seen with our own eyes: the next edge will tell when it is ready.
                    this.lp.would_block(this.fd, this.interest);
                    if let Err(error) = this.lp.wait_io(this.fd, this.interest, cx.waker()) {
                        return Poll::Ready(Err(error));
                    }
                    this.waiting = true;
                    return Poll::Pending;
                }
                result => {
                    if this.waiting {
                        this.waiting = false;
                        // The same task usually waits on the same socket again at once:
                        // keep the registration until the next select. After an error the
                        // socket is about to be closed: let it go now.
                        this.lp.unwait_io(this.fd, this.interest, result.is_ok());
                    }
                    return Poll::Ready(result);
                }
            }
        }
    }
}

impl<F> Drop for IoOp<'_, F> {
    /// A future dropped while waiting (its task was cancelled) removes its waiter at once.
    fn drop(&mut self) {
        if self.waiting {
            self.lp.unwait_io(self.fd, self.interest, false);
        }
    }
}
// ANCHOR_END: io_op

impl EventLoop {
    fn io_op<T, F: FnMut() -> io::Result<T> + Unpin>(
        &self,
        fd: RawFd,
        interest: Interest,
        op: F,
    ) -> IoOp<'_, F> {
        IoOp {
            lp: self,
            fd,
            interest,
            op,
            waiting: false,
        }
    }

    // ANCHOR: sock_recv
    /// Receive up to `nbytes` from `sock` (asyncio's `sock_recv`): an empty vector at the
    /// end of the stream. While it waits it holds no buffer: the bytes are read into the
    /// loop's scratch buffer and copied out, so an idle connection costs no buffer.
    pub async fn sock_recv<S>(&self, sock: &S, nbytes: usize) -> io::Result<Vec<u8>>
    where
        S: AsRawFd,
        for<'s> &'s S: Read,
    {
        let data = self
            .io_op(sock.as_raw_fd(), Interest::Read, || {
                let mut scratch = self.inner.scratch.borrow_mut();
                if scratch.len() < nbytes {
                    scratch.resize(nbytes, 0);
                }
                let n = (&*sock).read(&mut scratch[..nbytes])?;
                Ok(scratch[..n].to_vec())
            })
            .await?;
        if data.is_empty() {
            self.end_of_stream(sock.as_raw_fd());
        }
        Ok(data)
    }

    /// Receive into `buf` (asyncio's `sock_recv_into`): how many bytes, 0 at the end.
    pub async fn sock_recv_into<S>(&self, sock: &S, buf: &mut [u8]) -> io::Result<usize>
    where
        S: AsRawFd,
        for<'s> &'s S: Read,
    {
        let n = self
            .io_op(sock.as_raw_fd(), Interest::Read, || (&*sock).read(buf))
            .await?;
        if n == 0 && !buf.is_empty() {
            self.end_of_stream(sock.as_raw_fd());
        }
        Ok(n)
    }
    // ANCHOR_END: sock_recv

    /// The peer closed its side: the socket is about to be closed, so its registration
    /// goes now rather than at the next select (a new socket may get its number first).
    fn end_of_stream(&self, fd: RawFd) {
        self.inner
            .io
            .borrow_mut()
            .release_now(&mut self.inner.selector.borrow_mut(), fd);
    }

    // ANCHOR: sock_sendall
    /// Send all of `data` (asyncio's `sock_sendall`): tries at once, and waits for room in
    /// the socket's buffer only when it is full. While it waits, its task reads nothing:
    /// a peer that does not read stops the echo, and the server's memory stays bounded.
    pub async fn sock_sendall<S>(&self, sock: &S, mut data: &[u8]) -> io::Result<()>
    where
        S: AsRawFd,
        for<'s> &'s S: Write,
    {
        while !data.is_empty() {
            let n = self
                .io_op(sock.as_raw_fd(), Interest::Write, || (&*sock).write(data))
                .await?;
            if n == 0 {
                return Err(ErrorKind::WriteZero.into());
            }
            data = &data[n..];
        }
        Ok(())
    }
    // ANCHOR_END: sock_sendall

    // ANCHOR: sock_accept
    /// Accept a connection (asyncio's `sock_accept`); the new socket is non-blocking.
    pub async fn sock_accept(&self, listener: &TcpListener) -> io::Result<(TcpStream, SocketAddr)> {
        let (stream, peer) = self
            .io_op(listener.as_raw_fd(), Interest::Read, || listener.accept())
            .await?;
        self.new_socket(&stream)?;
        Ok((stream, peer))
    }

    /// Connect `sock` (non-blocking) to `addr` (asyncio's `sock_connect`): start the
    /// connection, wait until the socket is writable, and report the connection's error
    /// if there is one.
    pub async fn sock_connect(&self, sock: &Socket, addr: SocketAddr) -> io::Result<()> {
        sock.set_nonblocking(true)?;
        self.forget_fd(sock.as_raw_fd()); // a new socket: nothing known about its number
        match sock.connect(&addr.into()) {
            Ok(()) => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        let mut started = false;
        self.io_op(sock.as_raw_fd(), Interest::Write, || {
            if !started {
                started = true;
                return Err(ErrorKind::WouldBlock.into()); // wait for the first edge
            }
            match sock.take_error()? {
                Some(error) => Err(error),
                None => match sock.peer_addr() {
                    Ok(_) => Ok(()),
                    Err(e) if e.kind() == ErrorKind::NotConnected => {
                        Err(ErrorKind::WouldBlock.into())
                    }
                    Err(e) => Err(e),
                },
            }
        })
        .await
    }
    // ANCHOR_END: sock_accept

    /// A socket that just came into being: non-blocking, and whatever the loop remembers
    /// under its number belonged to a closed one.
    fn new_socket(&self, stream: &TcpStream) -> io::Result<()> {
        stream.set_nonblocking(true)?;
        self.forget_fd(stream.as_raw_fd());
        Ok(())
    }
}

// ANCHOR: server
/// A listening socket the loop accepts connections on (asyncio's `Server`).
#[derive(Clone)]
pub struct Server {
    inner: Rc<ServerInner>,
}

type OnConnection = Box<dyn FnMut(&EventLoop, TcpStream, SocketAddr)>;

struct ServerInner {
    listener: TcpListener,
    backlog: usize,
    on_connection: RefCell<OnConnection>,
    serving: Cell<bool>,
    retry: RefCell<Option<crate::handle::TimerHandle>>, // the pause after EMFILE
}

impl EventLoop {
    /// Accept connections on `listener` (made non-blocking), up to `backlog` each time it
    /// is readable, and hand each to `on_connection` (asyncio's `_start_serving` with
    /// `_accept_connection`). Running out of file descriptors pauses accepting for
    /// [`ACCEPT_RETRY_DELAY`] after reporting it to the exception handler.
    pub fn start_serving(
        &self,
        listener: TcpListener,
        backlog: usize,
        on_connection: impl FnMut(&EventLoop, TcpStream, SocketAddr) + 'static,
    ) -> Result<Server, crate::Error> {
        listener.set_nonblocking(true)?;
        let server = Server {
            inner: Rc::new(ServerInner {
                listener,
                backlog: backlog.max(1),
                on_connection: RefCell::new(Box::new(on_connection)),
                serving: Cell::new(true),
                retry: RefCell::new(None),
            }),
        };
        server.watch(self)?;
        Ok(server)
    }
}

impl Server {
    fn watch(&self, lp: &EventLoop) -> Result<Handle, crate::Error> {
        let weak = Rc::downgrade(&self.inner);
        lp.add_reader(self.inner.listener.as_raw_fd(), move |lp| {
            if let Some(inner) = weak.upgrade() {
                Server { inner }.accept_connection(lp);
            }
        })
    }

    /// The reader: accept up to `backlog` connections.
    fn accept_connection(&self, lp: &EventLoop) {
        let inner = &*self.inner;
        let fd = inner.listener.as_raw_fd();
        for _ in 0..inner.backlog {
            if !inner.serving.get() {
                return;
            }
            match inner.listener.accept() {
                Ok((stream, peer)) => {
                    if let Err(error) = lp.new_socket(&stream) {
                        lp.call_exception_handler(&ExceptionContext {
                            message: "Error on accepted socket".into(),
                            exception: Some(error.into()),
                            handle: None,
                        });
                        continue;
                    }
                    (inner.on_connection.borrow_mut())(lp, stream, peer);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    lp.would_block(fd, Interest::Read); // drained: no re-arm needed
                    return;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::ConnectionAborted => {}
                Err(e) if out_of_resources(&e) => return self.pause(lp, e),
                Err(e) => {
                    lp.call_exception_handler(&ExceptionContext {
                        message: "socket.accept() failed".into(),
                        exception: Some(e.into()),
                        handle: None,
                    });
                    return;
                }
            }
        }
    }
    // ANCHOR_END: server

    // ANCHOR: pause
    /// Out of descriptors: report, stop accepting, and try again after
    /// [`ACCEPT_RETRY_DELAY`] (asyncio's `_accept_connection`, `except OSError`).
    fn pause(&self, lp: &EventLoop, error: io::Error) {
        lp.call_exception_handler(&ExceptionContext {
            message: "socket.accept() out of system resource".into(),
            exception: Some(error.into()),
            handle: None,
        });
        lp.remove_reader(self.inner.listener.as_raw_fd());
        let weak = Rc::downgrade(&self.inner);
        let retry = lp.call_later(ACCEPT_RETRY_DELAY, move |lp| {
            if let Some(inner) = weak.upgrade()
                && inner.serving.get()
            {
                let _ = (Server { inner }).watch(lp);
            }
        });
        *self.inner.retry.borrow_mut() = retry.ok();
    }
    // ANCHOR_END: pause

    /// Stop accepting (asyncio's `Server.close`): the listener's reader goes; connections
    /// already accepted are the program's to close.
    pub fn close(&self, lp: &EventLoop) {
        if self.inner.serving.replace(false) {
            lp.remove_reader(self.inner.listener.as_raw_fd());
            if let Some(retry) = self.inner.retry.borrow_mut().take() {
                retry.cancel();
            }
        }
    }

    /// True until [`Server::close`].
    pub fn is_serving(&self) -> bool {
        self.inner.serving.get()
    }

    /// The listening socket.
    pub fn listener(&self) -> &TcpListener {
        &self.inner.listener
    }
}

/// The `accept` errors asyncio pauses on: EMFILE, ENFILE, ENOBUFS, ENOMEM.
fn out_of_resources(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "<Server fd={} serving={}>",
            self.inner.listener.as_raw_fd(),
            self.is_serving()
        )
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
    use stage1::VirtualClock;

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
