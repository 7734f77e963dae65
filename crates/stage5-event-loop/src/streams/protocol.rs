//! The protocol between a transport and the streams (book chapter 8, "Streams" and "drain";
//! asyncio's `streams.py`: `FlowControlMixin`, `StreamReaderProtocol`).
//!
//! Streams are a protocol like any other. `StreamReaderProtocol` feeds what arrives to a
//! [`StreamReader`], and, on a server, starts the program's handler as a task when the
//! connection is made, with a reader and a [`StreamWriter`]. Its flow-control half
//! (asyncio's `FlowControlMixin`) turns `pause_writing`/`resume_writing` into something a
//! task can wait for: `drain_helper` returns at once unless writing is paused, and
//! otherwise waits on a future that `resume_writing` (or `connection_lost`) completes.
//!
//! What changed from chapter 7: the program's task waited for a socket; here it waits for
//! the transport's buffer.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::event_loop::weak::WeakLoop;
use crate::futures::future::Future;
use crate::streams::reader::StreamReader;
use crate::streams::writer::StreamWriter;
use crate::transports::{Protocol, Transport};

/// What a server runs for each connection: a task made of the reader and the writer.
pub type ClientConnected = Rc<dyn Fn(StreamReader, StreamWriter) -> ClientTask>;

/// The handler's task body.
pub type ClientTask = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>>>>;

/// asyncio's `StreamReaderProtocol` (with `FlowControlMixin`).
pub struct StreamReaderProtocol {
    me: Weak<StreamReaderProtocol>, // for the writer made in `connection_made`
    lp: WeakLoop,
    reader: StreamReader,
    client_connected: Option<ClientConnected>,
    paused: Cell<bool>,
    connection_lost: Cell<bool>,
    drain_waiters: RefCell<Vec<Future<()>>>,
    closed: Future<()>, // done when the connection is lost: `wait_closed`
}

impl StreamReaderProtocol {
    /// A protocol that feeds `reader`; on a server, `client_connected` runs for each
    /// connection.
    pub fn new(
        lp: &EventLoop,
        reader: StreamReader,
        client_connected: Option<ClientConnected>,
    ) -> Rc<StreamReaderProtocol> {
        Rc::new_cyclic(|me| StreamReaderProtocol {
            me: me.clone(),
            lp: lp.downgrade(),
            reader,
            client_connected,
            paused: Cell::new(false),
            connection_lost: Cell::new(false),
            drain_waiters: RefCell::new(Vec::new()),
            closed: lp.create_future(),
        })
    }

    /// The future done when the connection is lost.
    pub(crate) fn closed(&self) -> Future<()> {
        self.closed.clone()
    }

    // ANCHOR: drain_helper
    /// asyncio's `_drain_helper`: return at once unless writing is paused; otherwise wait
    /// for `resume_writing`. A lost connection is an error.
    pub(crate) async fn drain_helper(&self) -> Result<(), Error> {
        if self.connection_lost.get() {
            return Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset).into());
        }
        if !self.paused.get() {
            return Ok(());
        }
        let Some(lp) = self.lp.upgrade() else {
            return Err(Error::Closed);
        };
        let waiter = lp.create_future::<()>();
        self.drain_waiters.borrow_mut().push(waiter.clone());
        let result = waiter.clone().await;
        self.drain_waiters.borrow_mut().retain(|w| !w.ptr_eq(&waiter));
        result
    }
    // ANCHOR_END: drain_helper
}

impl Protocol for StreamReaderProtocol {
    fn connection_made(&self, transport: &Transport) {
        self.reader.set_transport(transport.clone());
        let Some(callback) = &self.client_connected else {
            return; // a client: `open_connection` makes the writer itself
        };
        let Some(proto) = self.me.upgrade() else { return };
        let writer = StreamWriter::new(transport.clone(), proto, Some(self.reader.clone()));
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
        match &exc {
            // Someone may wait in `wait_closed`: done either way (a done one stays).
            None => {
                self.closed.set_result_unless_done(());
            }
            Some(error) if !self.closed.done() => drop(self.closed.set_exception(error.clone())),
            Some(_) => {}
        }
        // FlowControlMixin: wake the tasks in `drain`.
        self.connection_lost.set(true);
        if !self.paused.get() {
            return;
        }
        for waiter in self.drain_waiters.borrow().iter() {
            match &exc {
                // Not done yet: it waits; done: it was woken already.
                None => {
                    waiter.set_result_unless_done(());
                }
                Some(error) if !waiter.done() => drop(waiter.set_exception(error.clone())),
                Some(_) => {}
            }
        }
    }

    fn pause_writing(&self) {
        self.paused.set(true);
    }

    fn resume_writing(&self) {
        self.paused.set(false);
        for waiter in self.drain_waiters.borrow().iter() {
            // A done waiter (cancelled) is left alone.
            waiter.set_result_unless_done(());
        }
    }
}
