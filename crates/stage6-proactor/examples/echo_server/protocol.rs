//! `--api protocol`: a `Protocol` per connection on the proactor's transport (book chapter
//! 10, "Transports on the proactor"; asyncio's `create_server` with a protocol class, on a
//! `ProactorEventLoop`, which makes each connection a `_ProactorSocketTransport`).
//!
//! `data_received` writes the answer back. When the transport's write buffer goes over its
//! high-water mark (a client that does not read), `pause_writing` stops the transport's
//! receives, so the server holds a bounded amount for it; `resume_writing` starts them
//! again.

use std::cell::{Cell, RefCell};

use scaffold::net::Reply;
use stage6::{Error, Protocol, Transport, say};

// ANCHOR: protocol
/// The echo, as a protocol.
pub struct EchoProtocol {
    transport: RefCell<Option<Transport>>, // set by `connection_made`
    reply: Reply,
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
        let transport = self.transport.borrow().clone();
        let Some(transport) = transport.filter(|_| !self.stopping.get()) else {
            return; // shutting down: what the client still sends is dropped
        };
        match self.reply {
            Reply::Plain => transport.write(data),
            Reply::Got => {
                let mut out = Vec::with_capacity(data.len() + 4);
                self.reply.write(data, &mut out);
                transport.write(&out);
            }
        }
    }

    fn pause_writing(&self) {
        self.with_transport(Transport::pause_reading);
    }

    fn resume_writing(&self) {
        self.with_transport(Transport::resume_reading);
    }

    fn connection_lost(&self, error: Option<Error>) {
        if let Some(error) = error {
            scaffold::trace!("connection error: {error}");
        }
        say!("Connection closed");
        let transport = self.transport.borrow_mut().take(); // it holds us: the cycle ends
        drop(transport);
        (self.closed)();
    }
}
// ANCHOR_END: protocol

impl EchoProtocol {
    /// A protocol answering with `reply`; `closed` runs when the connection is lost.
    pub fn new(reply: Reply, closed: impl Fn() + 'static) -> EchoProtocol {
        EchoProtocol {
            transport: RefCell::new(None),
            reply,
            stopping: Cell::new(false),
            closed: Box::new(closed),
        }
    }

    fn with_transport(&self, f: impl FnOnce(&Transport)) {
        let transport = self.transport.borrow().clone();
        if let Some(transport) = transport {
            f(&transport);
        }
    }

    /// The shutdown: echo nothing more, half-close once the answers owed are out, and
    /// close when the client closes its side.
    pub fn stop(&self) {
        self.stopping.set(true);
        self.with_transport(Transport::write_eof);
    }

    /// Cut the connection now.
    pub fn abort(&self) {
        self.with_transport(Transport::abort);
    }
}
