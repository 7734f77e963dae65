//! The stream writer (book chapter 8, "drain"; asyncio's `streams.py`: `StreamWriter`).
//!
//! A writer is a transport with one more method: `drain`, which a task awaits after
//! writing, and which waits only while the transport has paused the protocol (its buffer
//! went over the high-water mark and has not come down to the low one). A task that
//! writes then drains can never make the buffer grow past the high mark by more than one
//! write. `close` is the transport's; `wait_closed` waits for `connection_lost`.
//!
//! What changed from chapter 7: `sock_sendall` waited until every byte was in the kernel;
//! `drain` waits only when the buffer is too full.

use std::rc::Rc;

use crate::errors::Error;
use crate::futures::sleep::sleep;
use crate::streams::drain::DrainState;
use crate::streams::reader::StreamReader;
use crate::transports::transport::Transport;

/// A transport with `drain` (asyncio's `StreamWriter`). Cloning gives another handle.
#[derive(Clone)]
pub struct StreamWriter {
    transport: Transport,
    drain: Rc<DrainState>,
    reader: Option<StreamReader>,
}

impl StreamWriter {
    /// A writer on `transport`, whose protocol's flow control is `drain`.
    pub(crate) fn new(
        transport: Transport,
        drain: Rc<DrainState>,
        reader: Option<StreamReader>,
    ) -> StreamWriter {
        StreamWriter {
            transport,
            drain,
            reader,
        }
    }

    /// The transport.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The transport's `write`: never waits; follow it with [`StreamWriter::drain`].
    pub fn write(&self, data: &[u8]) -> Result<(), Error> {
        self.transport.write(data)
    }

    /// The transport's `writelines`.
    pub fn writelines<'a>(&self, chunks: impl IntoIterator<Item = &'a [u8]>) -> Result<(), Error> {
        self.transport.writelines(chunks)
    }

    /// The transport's `write_eof`.
    pub fn write_eof(&self) -> Result<(), Error> {
        self.transport.write_eof()
    }

    /// The transport's `close`: after the buffer drains.
    pub fn close(&self) {
        self.transport.close();
    }

    /// True once closing.
    pub fn is_closing(&self) -> bool {
        self.transport.is_closing()
    }

    // ANCHOR: drain
    /// Wait until the transport's buffer is below the high-water mark (asyncio's `drain`).
    /// An error the reader got (a reset) is returned first; a closing transport yields
    /// once, so that `connection_lost` can run and the error show.
    pub async fn drain(&self) -> Result<(), Error> {
        if let Some(error) = self.reader.as_ref().and_then(StreamReader::exception) {
            return Err(error);
        }
        if self.transport.is_closing() {
            // asyncio: "Wait for protocol.connection_lost() call" with a sleep(0).
            if let Some(lp) = self.transport.event_loop() {
                sleep(&lp, 0.0).await?;
            }
        }
        self.drain.drain_helper().await
    }
    // ANCHOR_END: drain

    /// Wait until the connection is lost (asyncio's `wait_closed`).
    pub async fn wait_closed(&self) -> Result<(), Error> {
        self.drain.closed().await
    }
}
