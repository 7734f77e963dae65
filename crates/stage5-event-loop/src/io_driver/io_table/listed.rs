//! The table's readers and writers, listed (book introduction, "Watching a run"; no public
//! source: the project's own instrument).
//!
//! Not part of chapter 7's lesson: the loop's `inspect.rs` reads this while a recording is
//! on, to show who waits on which descriptor. Only callbacks' handles are listed: a task's
//! waker does not say which task it wakes (the task reports its own wait, `IoWait`).
//!
//! What changed since stage 4: stage 4's scheduler held its socket waits in one map of its
//! own and listed them itself.

use std::os::fd::RawFd;

use stage4::Interest;

use super::{IoTable, Waiter};
use crate::events::handle::Handle;
use crate::io_driver::selector::Poller;

impl<L, S: Poller> IoTable<L, S> {
    /// Every reader's and writer's handle, by descriptor, readers first.
    pub fn callbacks(&self) -> impl Iterator<Item = (RawFd, Interest, &Handle<L>)> {
        let slots = self.sources.iter().enumerate().flat_map(|(fd, source)| {
            let fd = RawFd::try_from(fd).unwrap_or(RawFd::MAX); // the table grows by fd
            [
                (fd, Interest::Read, &source.reader),
                (fd, Interest::Write, &source.writer),
            ]
        });
        slots.filter_map(|(fd, interest, slot)| match slot {
            Some(Waiter::Callback(handle)) => Some((fd, interest, handle)),
            _ => None,
        })
    }
}
