//! The protocol between a transport and the streams (book chapter 8, "Streams" and "drain";
//! asyncio's `streams.py`: `FlowControlMixin`, `StreamReaderProtocol`).
//!
//! Streams are a protocol like any other. `StreamReaderProtocol` feeds what arrives to a
//! [`StreamReader`], and, on a server, starts the program's handler as a task when the
//! connection is made, with a reader and a [`StreamWriter`]. Its flow-control half
//! (asyncio's `FlowControlMixin`) is `drain.rs`: `pause_writing`, `resume_writing` and
//! `connection_lost` go there.
//!
//! What changed from chapter 7: the program's task waited for a socket; here it waits for
//! the transport's buffer.

use std::rc::Rc;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::event_loop::weak::WeakLoop;
use crate::streams::drain::DrainState;
use crate::streams::reader::StreamReader;
use crate::streams::writer::StreamWriter;
use crate::transports::transport::{Protocol, Transport};

/// What a server runs for each connection: a task made of the reader and the writer.
pub type ClientConnected = Rc<dyn Fn(StreamReader, StreamWriter) -> ClientTask>;

/// The handler's task body.
pub type ClientTask = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>>>>;

/// asyncio's `StreamReaderProtocol` (with `FlowControlMixin`).
pub struct StreamReaderProtocol {
    lp: WeakLoop,
    reader: StreamReader,
    client_connected: Option<ClientConnected>,
    drain: Rc<DrainState>, // what `drain` and `wait_closed` wait on
}

impl StreamReaderProtocol {
    /// A protocol that feeds `reader`; on a server, `client_connected` runs for each
    /// connection.
    pub fn new(
        lp: &EventLoop,
        reader: StreamReader,
        client_connected: Option<ClientConnected>,
    ) -> Rc<StreamReaderProtocol> {
        Rc::new(StreamReaderProtocol {
            lp: lp.downgrade(),
            reader,
            client_connected,
            drain: Rc::new(DrainState::new(lp)),
        })
    }
}

impl StreamReaderProtocol {
    /// Its flow control, for a writer.
    pub(crate) fn drain(&self) -> Rc<DrainState> {
        self.drain.clone()
    }
}

// ANCHOR: del
impl Drop for StreamReaderProtocol {
    /// asyncio's `StreamReaderProtocol.__del__`: a connection lost with an error (a reset)
    /// completed `wait_closed`'s future with it, and a handler that saw the error in its
    /// own `read` never waits there. A reset is how a connection ends, not an exception
    /// nobody looked at: the future's is marked as seen, so its drop reports nothing.
    fn drop(&mut self) {
        let closed = self.drain.closed();
        if closed.done() && !closed.cancelled() {
            // Looked at only to be marked as seen: whoever awaits `wait_closed` gets it.
            drop(closed.exception());
        }
    }
}
// ANCHOR_END: del

impl Protocol for StreamReaderProtocol {
    fn connection_made(&self, transport: &Transport) {
        self.reader.set_transport(transport.clone());
        let Some(callback) = &self.client_connected else {
            return; // a client: `open_connection` makes the writer itself
        };
        let writer = StreamWriter::new(
            transport.clone(),
            self.drain.clone(),
            Some(self.reader.clone()),
        );
        if let Some(lp) = self.lp.upgrade()
            && let Err(error) = lp.create_task(callback(self.reader.clone(), writer))
        {
            // Only a closed loop refuses a task; the connection goes with it.
            transport.abort();
            drop(error);
        }
    }

    fn data_received(&self, data: &[u8]) {
        self.reader.feed_data(data);
    }

    /// The end of the stream goes to the reader; `true`: the handler may still write.
    fn eof_received(&self) -> bool {
        self.reader.feed_eof();
        true
    }

    fn connection_lost(&self, exc: Option<Error>) {
        match &exc {
            None => self.reader.feed_eof(),
            Some(error) => self.reader.set_exception(error.clone()),
        }
        self.drain.lost(exc.as_ref());
    }

    fn pause_writing(&self) {
        self.drain.pause();
    }

    fn resume_writing(&self) {
        self.drain.resume();
    }
}
