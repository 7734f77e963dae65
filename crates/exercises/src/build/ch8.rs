//! Build it 8.3: a transport's write buffer (book chapter 8, "Writing: try now, buffer the
//! rest" and "Flow control"; asyncio's `selector_events.py`: `_SelectorSocketTransport.write`
//! and `_write_ready`, and `transports.py`: `_maybe_pause_protocol` and
//! `_maybe_resume_protocol`). A build-it exercise: the skeleton below is given, and you
//! write [`WriteBuffer::write`] and [`WriteBuffer::write_ready`]. `tests/build_ch8.rs` has a
//! task write 1.5 MiB to a Unix socket pair whose peer reads in rounds on a timer, on stage
//! 5's loop on the virtual clock, once through your `WriteBuffer` and once through stage
//! 5's `Transport`, and compares what the protocol was told, in which order, and what the
//! peer got.
//!
//! asyncio's rules, which the test checks: `write` never waits. With nothing buffered it
//! tries the socket at once; what the socket does not take goes to the buffer, and only
//! then is a writer added (`lp.add_writer`), which sends from the buffer each time the
//! socket has room and removes itself once the buffer is empty. With bytes buffered
//! already, `write` appends behind them: sending first would reorder the stream. The
//! protocol hears `pause_writing` once when the buffer goes *over* the high-water mark,
//! and `resume_writing` once when it is back *at* the low-water mark or below.
//!
//! What changed from chapter 7: `sock_sendall` held its task until all was sent; here
//! nobody waits, the buffer holds the bytes, and the water marks say "stop".

use std::cell::{Cell, RefCell};
use std::io::{self, ErrorKind, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use stage5::{EventLoop, Protocol};

/// The writing half of a socket transport. Cloning gives another handle to the same one
/// (the writer's callback keeps one).
#[derive(Clone)]
pub struct WriteBuffer {
    inner: Rc<Inner>,
}

#[allow(dead_code)] // `write` and `write_ready`, once written, read the marks and the protocol
struct Inner {
    lp: EventLoop,
    sock: UnixStream,                  // non-blocking
    protocol: Rc<dyn Protocol>,        // told `pause_writing` and `resume_writing`
    buffer: RefCell<Vec<u8>>,          // what the socket has not taken yet, in order
    high: usize,                       // the high-water mark
    low: usize,                        // the low-water mark
    paused: Cell<bool>,                // asyncio's `_protocol_paused`
    error: RefCell<Option<io::Error>>, // set once the connection is lost
}

impl WriteBuffer {
    /// A transport writing to `sock` (made non-blocking here) on `lp`, telling `protocol`
    /// when its buffer goes over `high` and when it is back at `low`.
    pub fn new(
        lp: &EventLoop,
        sock: UnixStream,
        protocol: Rc<dyn Protocol>,
        high: usize,
        low: usize,
    ) -> io::Result<WriteBuffer> {
        assert!(low <= high, "the low-water mark is above the high one");
        sock.set_nonblocking(true)?;
        Ok(WriteBuffer {
            inner: Rc::new(Inner {
                lp: lp.clone(),
                sock,
                protocol,
                buffer: RefCell::new(Vec::new()),
                high,
                low,
                paused: Cell::new(false),
                error: RefCell::new(None),
            }),
        })
    }

    /// The socket's descriptor, for `lp.add_writer` and `lp.remove_writer`.
    pub fn fd(&self) -> RawFd {
        self.inner.sock.as_raw_fd()
    }

    /// How many bytes wait in the buffer (asyncio's `get_write_buffer_size`).
    pub fn get_write_buffer_size(&self) -> usize {
        self.inner.buffer.borrow().len()
    }

    /// The error that lost the connection, if one did.
    pub fn error(&self) -> Option<ErrorKind> {
        self.inner.error.borrow().as_ref().map(io::Error::kind)
    }

    /// One `send` on the socket: how many bytes of `data` it took, or its error;
    /// `WouldBlock` when it has no room now. A signal's interruption is retried here.
    pub fn send(&self, data: &[u8]) -> io::Result<usize> {
        loop {
            match (&self.inner.sock).write(data) {
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                sent => return sent,
            }
        }
    }

    /// The connection is lost to `error` (asyncio's `_fatal_error`): the writer goes, the
    /// buffer is dropped, and later writes are dropped too.
    pub fn fail(&self, error: io::Error) {
        self.inner.lp.remove_writer(self.fd());
        self.inner.buffer.borrow_mut().clear();
        *self.inner.error.borrow_mut() = Some(error);
    }

    /// Build it 8.3: send `data` (asyncio's `write`), never waiting.
    ///
    /// After a lost connection (`self.inner.error` is set), drop it. With nothing
    /// buffered, [`send`](WriteBuffer::send) at once: all taken, you are done; some, or
    /// `WouldBlock`, buffer the rest and add a writer with `lp.add_writer(self.fd(), ...)`
    /// whose callback calls [`write_ready`](WriteBuffer::write_ready) on a clone of `self`;
    /// another error, [`fail`](WriteBuffer::fail). With bytes buffered already, append
    /// behind them: the writer is there. Then, if the buffer is now over `high` and the
    /// protocol is not paused yet, pause it: `paused`, and `protocol.pause_writing()`. Do
    /// not hold the buffer's borrow while you call the protocol: it may look at the size.
    ///
    /// As shipped, it tries the socket once and drops what did not fit.
    pub fn write(&self, data: &[u8]) {
        match self.send(data) {
            Err(error) if error.kind() != ErrorKind::WouldBlock => self.fail(error),
            _ => {} // all of it, part of it (the rest is lost), or no room (all is lost)
        }
    }

    /// Build it 8.3: the writer (asyncio's `_write_ready`), called by the loop whenever the
    /// socket has room while it is added.
    ///
    /// Send from the buffer and take out what went. If the protocol is paused and the
    /// buffer is down to `low` or below, resume it: not `paused`, and
    /// `protocol.resume_writing()` (which may write: hold no borrow). Once the buffer is
    /// empty, the writer removes itself (`lp.remove_writer`): a socket with room stays
    /// writable, and a writer left behind would be called in every iteration. `WouldBlock`
    /// is no error: wait for the next call. Another error: [`fail`](WriteBuffer::fail).
    ///
    /// As shipped, it removes itself without sending.
    pub fn write_ready(&self) {
        self.inner.lp.remove_writer(self.fd());
    }
}
