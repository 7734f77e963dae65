//! What the I/O table does when the loop closes (book chapter 5, "Running, stopping,
//! closing", and chapter 7; asyncio's `BaseSelectorEventLoop.close`, which closes its
//! selector and with it every registration, reader and writer).
//!
//! asyncio's `close` drops the selector's keys, and the handles in them, with the
//! selector. Ours does the same in two steps, because a handle's or a waker's drop may look
//! at the loop: the table hands its waiters back, and the loop's `close` drops them once it
//! holds no borrow of the table.
//!
//! What changed since stage 4: stage 4's scheduler had no `close`; its waits went when it
//! was dropped.

use std::os::fd::RawFd;

use super::{IoTable, Waiter};
use crate::io_driver::selector::Poller;

impl<L, S: Poller> IoTable<L, S> {
    /// Drop every waiter and registration (the loop closes); returns the waiters.
    pub fn clear(&mut self, selector: &mut S) -> Vec<Waiter<L>> {
        let mut dropped = Vec::new();
        for fd in 0..self.sources.len() {
            let source = std::mem::take(&mut self.sources[fd]);
            if source.registered.is_some()
                && let Err(error) = selector.deregister(fd as RawFd)
            {
                // The selector itself is about to be dropped, which forgets everything.
                scaffold::trace!("close: deregister fd {fd}: {error}");
            }
            dropped.extend(source.reader.into_iter().chain(source.writer));
        }
        self.rearm.clear();
        self.release.clear();
        self.unchecked.clear();
        self.waiters = 0; // every slot was emptied above, every queue just now
        self.check();
        dropped
    }
}
