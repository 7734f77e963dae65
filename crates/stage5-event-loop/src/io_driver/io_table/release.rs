//! A socket operation's registration, kept until the next select (book, "Going further",
//! "Making the loop fast", after chapter 7; asyncio's `sock_recv` and
//! `_sock_recv`, which `add_reader` for every wait and `remove_reader` when it ends).
//!
//! asyncio's socket operations pay two system calls per wait: the reader is added, then
//! removed when the wait ends. Here a finished operation removes its waiter, but the
//! descriptor keeps its registration until the next select (`release`): the same task
//! usually waits on the same socket again a moment later (`sock_recv` after
//! `sock_sendall`), and then nothing is registered again. Descriptors still idle at the
//! next select are deregistered. Two ends do not wait for it: after an error, and at the
//! end of the stream ([`Done::Ended`]), the registration goes at once, since the socket is
//! about to be closed and a new one may get its number before the next select.
//!
//! An operation that ends tells the table all it learned in one call (`done`): the waiter
//! goes, the registration is kept or released, a short read marks the socket drained
//! (`drained.rs`). One call is one borrow of the table, where three took three.
//!
//! What changed since stage 4: stage 4 removed a wait's registration when it fired.

use std::os::fd::RawFd;

use stage4::Interest;

use super::{IoTable, Waiter};
use crate::io_driver::selector::Poller;

/// When a descriptor left with no waiter is deregistered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// At once: asyncio's `remove_reader`, and a wait that was cancelled.
    Now,
    /// Just before the next select, unless a waiter came back meanwhile: the end of a
    /// socket operation, whose task usually waits on the same socket again at once.
    AtNextSelect,
}

/// How a finished socket operation ended, and what it learned about its descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// It succeeded, and learned nothing the table needs to know.
    Other,
    /// A read came back shorter than asked: the socket is empty until the next edge.
    Drained,
    /// A read found the end of the stream: the socket is about to be closed.
    Ended,
    /// It failed (reset, refused, a bad descriptor): the socket is about to be closed.
    Failed,
}

impl Done {
    /// What a read of `n` bytes, `asked` for, says.
    pub fn read(n: usize, asked: usize) -> Done {
        match n {
            0 if asked > 0 => Done::Ended,
            n if n < asked => Done::Drained,
            _ => Done::Other,
        }
    }
}

impl<L, S: Poller> IoTable<L, S> {
    // ANCHOR: done
    /// A task's operation on `fd` ended, `done` says how. If it `waited`, its waiter goes;
    /// after a success the registration stays until
    /// the next select (the same task usually waits on the same socket again at once),
    /// after an error it goes now. At the end of the stream the registration goes now
    /// (the socket is about to be closed, and a new one may get its number before the next
    /// select); after a short read the socket is known empty (`read_drained`). Returns the
    /// waiter taken out.
    #[inline]
    pub fn done(
        &mut self,
        selector: &mut S,
        fd: RawFd,
        interest: Interest,
        waited: bool,
        done: Done,
    ) -> Option<Waiter<L>> {
        // Only a success that leaves the socket open keeps the registration for the next
        // select; at the end of the stream or after an error it goes now.
        let release = match done {
            Done::Other | Done::Drained => Release::AtNextSelect,
            Done::Ended | Done::Failed => Release::Now,
        };
        let old = match waited {
            true => self.remove(selector, fd, interest, release),
            false => None,
        };
        match done {
            // A waiter taken out just now went with its registration; without one, the
            // registration an earlier operation kept goes now.
            Done::Ended => self.release_now(selector, fd),
            Done::Drained => self.read_drained(fd),
            Done::Other | Done::Failed => {}
        }
        self.check();
        old
    }
    // ANCHOR_END: done

    /// Deregister `fd` now if nobody waits on it (the end of a stream: its socket is
    /// about to be closed, and a new socket may get its number before the next select).
    pub fn release_now(&mut self, selector: &mut S, fd: RawFd) {
        if self
            .source_mut(fd)
            .is_some_and(|s| s.registered.is_some() && s.idle())
        {
            self.deregister(selector, fd);
        }
        self.check();
    }

    // ANCHOR: release
    /// `fd` has no waiter left: keep its registration until the next select, in case its
    /// task waits on it again before then.
    pub(super) fn release_later(&mut self, fd: RawFd) {
        if !std::mem::replace(&mut self.sources[fd as usize].release, true) {
            self.release.push(fd);
        }
    }

    /// Before `select`: deregister the released descriptors nobody took back.
    pub(super) fn release_idle(&mut self, selector: &mut S) {
        let mut release = std::mem::take(&mut self.release);
        for &fd in &release {
            let source = &mut self.sources[fd as usize];
            source.release = false;
            if source.registered.is_some() && source.idle() {
                self.deregister(selector, fd); // nobody took it back
            }
        }
        release.clear();
        self.release = release; // keep the capacity
    }
    // ANCHOR_END: release
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;

    use stage4::Interest;

    use super::Done;
    use crate::io_driver::io_table::IoTable;
    use crate::io_driver::io_table::tests::{pair, task};
    use crate::io_driver::selector::Selector;

    #[test]
    fn the_end_of_a_stream_deregisters_at_once_and_leaves_nothing_for_the_next_select() {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        let (a, _peer) = pair();
        let fd = a.as_raw_fd();
        table
            .add(&mut selector, fd, Interest::Read, task())
            .unwrap();
        table.done(&mut selector, fd, Interest::Read, true, Done::Other);
        assert!(
            !table.quiet(),
            "a success keeps the registration until the select"
        );
        assert_eq!(selector.stats().deregisters, 0);
        table.before_select(&mut selector); // nobody took it back: deregistered
        assert!(table.quiet());
        table
            .add(&mut selector, fd, Interest::Read, task())
            .unwrap();
        table.done(&mut selector, fd, Interest::Read, true, Done::Ended);
        assert_eq!(selector.stats().deregisters, 2, "gone now");
        assert!(table.quiet(), "nothing left to release");
    }
}
