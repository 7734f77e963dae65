//! `echo_server --api protocol`: the echo server as an asyncio `Protocol` (book chapter 8,
//! "Three echo servers"; asyncio's `create_server` with a protocol class, the "TCP Echo
//! Server" of asyncio's documentation, `asyncio-protocol.rst`).
//!
//! No task per connection: the transport calls `data_received` with what it read, and the
//! protocol writes it back; the transport buffers what the socket will not take. A client
//! that never reads fills that buffer past its high-water mark: `pause_writing` comes, and
//! the protocol stops reading from that client until `resume_writing`, so the server's
//! memory for it stays bounded. The graceful shutdown is `write_eof` (sent once the buffer
//! is out), then dropping what the client still sends until its end of stream, when
//! `eof_received` answers `false`: close.
//!
//! What changed from chapter 7's server: no loop awaiting `sock_recv` and `sock_sendall`;
//! the protocol is called, and returns at once.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use scaffold::net::Reply;
use stage5::{Error, Protocol, Transport, say};

use super::Bytes;

// ANCHOR: protocol
/// One connection's protocol: echo what arrives.
pub struct EchoProtocol {
    transport: RefCell<Option<Transport>>, // set by `connection_made`
    reply: Reply,
    bytes: Rc<Bytes>,
    stopping: Cell<bool>,  // the server is shutting down: echo nothing more
    closed: Box<dyn Fn()>, // tells the server the connection is gone
}

impl Protocol for EchoProtocol {
    fn connection_made(&self, transport: &Transport) {
        *self.transport.borrow_mut() = Some(transport.clone());
        if self.stopping.get() {
            self.stop(); // accepted just as the server began to shut down
        }
    }

    fn data_received(&self, data: &[u8]) {
        let transport = self.transport.borrow();
        let Some(transport) = transport.as_ref().filter(|_| !self.stopping.get()) else {
            return; // shutting down: what the client still sends is dropped
        };
        self.bytes
            .read
            .set(self.bytes.read.get() + data.len() as u64);
        let written = match self.reply {
            Reply::Plain => transport.write(data),
            Reply::Got => transport.writelines([&b"Got:"[..], data]),
        };
        // Refused only after `write_eof` (we stop echoing first) or once the loop is gone.
        if let Err(error) = written {
            return scaffold::trace!("echo refused: {error}");
        }
        self.bytes
            .echoed
            .set(self.bytes.echoed.get() + data.len() as u64);
    }

    fn eof_received(&self) -> bool {
        false // the client is done: close once its echo is out
    }

    fn pause_writing(&self) {
        // The client reads slower than it sends: stop reading from it for now.
        self.with_transport(Transport::pause_reading);
    }

    fn resume_writing(&self) {
        self.with_transport(Transport::resume_reading);
    }

    fn connection_lost(&self, exc: Option<Error>) {
        if let Some(error) = exc {
            scaffold::trace!("connection error: {error}");
        }
        say!("Connection closed");
        self.transport.borrow_mut().take(); // the transport holds us: break the cycle
        (self.closed)();
    }
}
// ANCHOR_END: protocol

impl EchoProtocol {
    /// A protocol for a new connection; `closed` is called when it is lost.
    pub fn new(reply: Reply, bytes: Rc<Bytes>, closed: impl Fn() + 'static) -> EchoProtocol {
        EchoProtocol {
            transport: RefCell::new(None),
            reply,
            bytes,
            stopping: Cell::new(false),
            closed: Box::new(closed),
        }
    }

    fn with_transport(&self, f: impl FnOnce(&Transport)) {
        if let Some(transport) = self.transport.borrow().as_ref() {
            f(transport);
        }
    }

    /// The server is shutting down: echo nothing more, half-close once the buffer is out,
    /// and drop what the client sends until it closes its side.
    pub fn stop(&self) {
        self.stopping.set(true);
        self.with_transport(|transport| {
            // The socket refused to shut its writing side: the peer is gone, close it.
            if transport.write_eof().is_err() {
                transport.abort();
            }
        });
    }

    /// Close at once, whatever is buffered (before `connection_made`: nothing to close
    /// yet, and the grace period's end or a second signal comes once).
    pub fn cut(&self) {
        self.with_transport(Transport::abort);
    }
}
