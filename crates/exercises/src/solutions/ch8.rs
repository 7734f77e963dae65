//! Chapter 8's exercises, solved (book chapter 8, transports, protocols and streams; asyncio's
//! `protocols.py` and `streams.py`: `Protocol.data_received`, `FlowControlMixin`). Each item
//! below is a stub that compiles and does the wrong thing; `tests/ch8.rs` says what the
//! right thing is. They use stage 5's public API only, on Unix socket pairs (no network).
//! Run one with `cargo run -p exercises -- run 8.1`.
//!
//! What changed since chapter 7's exercises: the program no longer reads its socket; a
//! transport calls it with whatever bytes arrived, and tells it when to stop writing.

use std::cell::{Cell, RefCell};

use stage5::{Error, EventLoop, Future, Protocol, Transport};

/// Exercise 8.1, a line-based protocol: for each complete line the peer sends, write back
/// `N: line\n`, `N` counting the lines from 1 (`\n` ends a line and is not part of it).
///
/// As shipped, it takes each `data_received` call for one line: but a transport hands
/// over whatever bytes arrived, half a line or three lines at once. Keep what has no `\n`
/// yet in `buffer`, and answer only whole lines.
#[derive(Default)]
pub struct Lines {
    /// The transport, once `connection_made` gave it.
    pub transport: RefCell<Option<Transport>>,
    /// What arrived after the last `\n`.
    pub buffer: RefCell<Vec<u8>>,
    /// Lines answered so far.
    pub count: Cell<usize>,
}

impl Protocol for Lines {
    fn connection_made(&self, transport: &Transport) {
        *self.transport.borrow_mut() = Some(transport.clone());
    }

    fn data_received(&self, data: &[u8]) {
        let transport = self.transport.borrow();
        let Some(transport) = transport.as_ref() else {
            return; // not connected: nobody to answer
        };
        let mut buffer = self.buffer.borrow_mut();
        buffer.extend_from_slice(data);
        // Answer every whole line; what follows the last `\n` waits for the rest.
        while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            self.count.set(self.count.get() + 1);
            let n = self.count.get();
            let answer = [format!("{n}: ").as_bytes(), &line].concat();
            // Refused only after `write_eof`, which this protocol never calls.
            drop(transport.write(&answer));
        }
    }
}

/// Exercise 8.2, `drain` by hand: what asyncio's `FlowControlMixin` does for a writer. The
/// transport calls its protocol's `pause_writing` when its buffer goes over the high-water
/// mark and `resume_writing` when it is back under the low one; the protocol passes them
/// on to `pause` and `resume` here. A task that writes awaits `drain` after each write:
/// it should return at once unless paused, and else wait until `resume`.
///
/// As shipped, `drain` never waits: a fast writer fills the transport's buffer with all it
/// has, however slowly the peer reads.
pub struct Drain {
    /// The loop, to make the future `drain` waits on.
    pub lp: EventLoop,
    /// Over the high-water mark: writers wait.
    pub paused: Cell<bool>,
    /// The future a waiting `drain` awaits, completed by `resume`.
    pub waiter: RefCell<Option<Future<()>>>,
}

impl Drain {
    /// Not paused, nobody waiting.
    pub fn new(lp: &EventLoop) -> Drain {
        Drain {
            lp: lp.clone(),
            paused: Cell::new(false),
            waiter: RefCell::new(None),
        }
    }

    /// The transport's buffer went over the high-water mark.
    pub fn pause(&self) {
        self.paused.set(true);
    }

    /// The buffer is back under the low-water mark: writers may go on.
    pub fn resume(&self) {
        self.paused.set(false);
        if let Some(waiter) = self.waiter.borrow_mut().take() {
            waiter.set_result_unless_done(()); // false: cancelled, nothing to wake
        }
    }

    /// Return once writing may go on.
    pub async fn drain(&self) -> Result<(), Error> {
        if !self.paused.get() {
            return Ok(());
        }
        let waiter = self.lp.create_future::<()>();
        *self.waiter.borrow_mut() = Some(waiter.clone());
        waiter.await
    }
}
