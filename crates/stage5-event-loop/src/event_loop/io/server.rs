//! A listening server (book chapter 7, "Out of file descriptors";
//! asyncio's `selector_events.py`: `_start_serving`, `_accept_connection`).
//!
//! [`EventLoop::start_serving`] is asyncio's `_start_serving`: a reader on the listening
//! socket that accepts up to `backlog` connections each time it runs. When `accept` fails
//! because the process or the system is out of file descriptors (or memory), asyncio
//! reports it through the exception handler, stops accepting for [`ACCEPT_RETRY_DELAY`]
//! (one second), and tries again; existing connections go on. If watching the listener
//! again fails, that is reported too, and the server stops serving (`is_serving()` is
//! false): a server never stops accepting silently. [`Server::close`] closes the listening
//! socket, as asyncio's does: a client that connects afterwards is refused at once, rather
//! than left in the kernel's queue, unserved, until the process exits and resets it.
//!
//! What changed since stage 4: stage 4's `accept` accepted one connection per wait and its
//! echo server slept a second on its own after running out of descriptors; here a
//! listener drains up to a backlog per readiness event, and the pause is the loop's.

use std::cell::{Cell, RefCell};
use std::io::{self, ErrorKind};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;

use stage4::Interest;

use crate::errors::Error;
use crate::event_loop::{EventLoop, ExceptionContext, Handle, TimerHandle};

/// How long a server stops accepting after running out of file descriptors (asyncio's
/// `constants.ACCEPT_RETRY_DELAY`), in seconds.
pub const ACCEPT_RETRY_DELAY: f64 = 1.0;

/// A listening socket the loop accepts connections on (asyncio's `Server`).
#[derive(Clone)]
pub struct Server {
    inner: Rc<ServerInner>,
}

type OnConnection = Box<dyn FnMut(&EventLoop, TcpStream, SocketAddr)>;

struct ServerInner {
    listener: RefCell<Option<TcpListener>>, // `None` once closed
    backlog: usize,
    on_connection: RefCell<OnConnection>,
    serving: Cell<bool>,
    retry: RefCell<Option<TimerHandle>>, // the pause after EMFILE
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
    ) -> Result<Server, Error> {
        listener.set_nonblocking(true)?;
        let server = Server {
            inner: Rc::new(ServerInner {
                listener: RefCell::new(Some(listener)),
                backlog: backlog.max(1),
                on_connection: RefCell::new(Box::new(on_connection)),
                serving: Cell::new(true),
                retry: RefCell::new(None),
            }),
        };
        if let Some(fd) = server.fd() {
            server.watch(self, fd)?; // (open: it was made just above)
        }
        Ok(server)
    }
}

impl Server {
    /// Accept on `fd`, the listener's number, whenever it is readable.
    fn watch(&self, lp: &EventLoop, fd: RawFd) -> Result<Handle, Error> {
        let weak = Rc::downgrade(&self.inner);
        lp.add_reader(fd, move |lp| {
            if let Some(inner) = weak.upgrade() {
                Server { inner }.accept_connection(lp);
            }
        })
    }

    /// The reader: accept up to `backlog` connections.
    fn accept_connection(&self, lp: &EventLoop) {
        let inner = &*self.inner;
        for _ in 0..inner.backlog {
            // The borrow ends before `on_connection` runs, which may close the server.
            let (accepted, fd) = match &*inner.listener.borrow() {
                Some(listener) if inner.serving.get() => (listener.accept(), listener.as_raw_fd()),
                _ => return, // closed meanwhile
            };
            match accepted {
                // A connection: make it non-blocking and hand it over.
                Ok((stream, peer)) => {
                    if let Err(error) = lp.new_socket(&stream) {
                        lp.call_exception_handler(&ExceptionContext {
                            message: "Error on accepted socket".into(),
                            exception: Some(error.into()),
                            ..ExceptionContext::default()
                        });
                        continue;
                    }
                    (inner.on_connection.borrow_mut())(lp, stream, peer);
                }
                // No more waiting connections: the next edge says when there are.
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    lp.would_block(fd, Interest::Read); // drained: no re-arm needed
                    return;
                }
                // A signal interrupted accept, or the client gave up before we took it:
                // neither concerns the server; accept the next one.
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::ConnectionAborted => {}
                // Out of descriptors or memory: pause (asyncio's `except OSError`).
                Err(e) if scaffold::net::out_of_resources(&e) => return self.pause(lp, e),
                // Anything else: report it, and wait for the next readiness event.
                Err(e) => {
                    lp.call_exception_handler(&ExceptionContext {
                        message: "socket.accept() failed".into(),
                        exception: Some(e.into()),
                        ..ExceptionContext::default()
                    });
                    return;
                }
            }
        }
    }

    // ANCHOR: pause
    /// Out of descriptors: report, stop accepting, and try again after
    /// [`ACCEPT_RETRY_DELAY`] (asyncio's `_accept_connection`, `except OSError`).
    fn pause(&self, lp: &EventLoop, error: io::Error) {
        lp.call_exception_handler(&ExceptionContext {
            message: "socket.accept() out of system resource".into(),
            exception: Some(error.into()),
            ..ExceptionContext::default()
        });
        if let Some(fd) = self.fd() {
            lp.remove_reader(fd); // (open: `accept_connection` just used it)
        }
        let weak = Rc::downgrade(&self.inner);
        let retry = lp.call_later(ACCEPT_RETRY_DELAY, move |lp| {
            if let Some(inner) = weak.upgrade()
                && inner.serving.get()
            {
                Server { inner }.resume(lp);
            }
        });
        // A loop that cannot schedule the retry is closed: nothing will be served anyway.
        *self.inner.retry.borrow_mut() = retry.ok();
    }

    /// After the pause: watch the listener again. If that fails, say so and stop
    /// serving, rather than look alive and accept nothing.
    fn resume(&self, lp: &EventLoop) {
        self.inner.retry.borrow_mut().take();
        let Some(fd) = self.fd() else {
            return; // closed during the pause: nothing to watch
        };
        if let Err(error) = self.watch(lp, fd) {
            self.inner.serving.set(false);
            lp.call_exception_handler(&ExceptionContext {
                message: "cannot watch the listening socket again: the server stops".into(),
                exception: Some(error),
                ..ExceptionContext::default()
            });
        }
    }
    // ANCHOR_END: pause

    /// Stop accepting (asyncio's `Server.close`): the listener's reader goes, then the
    /// listening socket is closed, so that a client that connects from now on is refused
    /// at once (connections queued but not accepted yet are reset). Connections already
    /// accepted are the program's to close.
    pub fn close(&self, lp: &EventLoop) {
        self.inner.serving.set(false);
        if let Some(listener) = self.inner.listener.borrow_mut().take() {
            // Before the socket is closed: its number may be reused at once.
            lp.remove_reader(listener.as_raw_fd());
            if let Some(retry) = self.inner.retry.borrow_mut().take() {
                retry.cancel();
            }
        }
    }

    /// True until [`Server::close`], or until the server had to stop (see [`Server`]).
    pub fn is_serving(&self) -> bool {
        self.inner.serving.get()
    }

    /// The listening socket's descriptor number; `None` once closed (the number may then
    /// be another descriptor's).
    pub fn fd(&self) -> Option<RawFd> {
        let listener = self.inner.listener.borrow();
        listener.as_ref().map(AsRawFd::as_raw_fd)
    }

    /// The address the server listens on; `None` once closed.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        let listener = self.inner.listener.borrow();
        listener.as_ref().and_then(|l| l.local_addr().ok())
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "<Server fd={} serving={}>",
            self.fd()
                .map_or_else(|| "closed".to_owned(), |fd| fd.to_string()),
            self.is_serving()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;

    #[test]
    fn a_server_that_cannot_watch_its_listener_again_stops_and_says_so() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        lp.set_exception_handler(Some(Rc::new(move |_, context| {
            s.borrow_mut().push(context.message.clone())
        })));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let server = lp.start_serving(listener, 1, |_, _, _| {}).unwrap();
        // The pause after EMFILE removed the reader; now watching again fails (here: the
        // loop is closed, which refuses every new reader).
        lp.remove_reader(server.fd().unwrap());
        lp.close().unwrap();
        server.resume(&lp);
        assert!(!server.is_serving(), "a server that accepts nobody says so");
        assert_eq!(
            *seen.borrow(),
            ["cannot watch the listening socket again: the server stops"]
        );
    }

    #[test]
    fn a_closed_server_has_no_descriptor_number() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let server = lp.start_serving(listener, 1, |_, _, _| {}).unwrap();
        assert!(server.fd().is_some() && server.local_addr().is_some());
        server.close(&lp);
        assert_eq!((server.fd(), server.local_addr()), (None, None));
        assert_eq!(format!("{server:?}"), "<Server fd=closed serving=false>");
    }
}
