//! A descriptor number reused by a new socket (book chapter 7, "Level against edge", the
//! reused number; asyncio's `_add_reader`, which calls
//! `selector.modify` or `register`).
//!
//! The table cannot see a socket being closed: the kernel drops a closed socket from epoll
//! by itself, and a new socket may get the same number at once. A kept registration may
//! therefore name a socket that is gone, and the table's record under that number belong
//! to it. Two moments set that right. When a waiter joins a number the table believes
//! registered, the re-arm that widens it also asks the kernel, which answers
//! [`Rearmed::Forgotten`] for a number it dropped: the file that has the number now is
//! registered afresh (`rejoin`). And when the loop itself makes a socket (`sock_accept`,
//! `sock_connect`), whatever it remembers under the new number is dropped (`forget`).
//! asyncio pays two system calls per wait for the same safety (`add_reader`, then
//! `remove_reader`).
//!
//! What changed since stage 4: stage 4 never kept a registration, so a number could not
//! outlive its socket there.

use std::io;
use std::os::fd::RawFd;

use super::{IoTable, Waiter};
use crate::io_driver::selector::{Interests, Poller, Rearmed};

impl<L, S: Poller> IoTable<L, S> {
    // ANCHOR: rejoin
    /// A waiter for `wanted` joins `fd`, which the table believes registered for `known`:
    /// re-arm it, widened, and register afresh the file that has the number if the kernel
    /// has forgotten it. Returns what `fd` is registered for now.
    pub(super) fn rejoin(
        &mut self,
        selector: &mut S,
        fd: RawFd,
        known: Interests,
        wanted: Interests,
    ) -> io::Result<Interests> {
        match selector.reregister(fd, known | wanted)? {
            // Re-armed: the kernel still has it.
            Rearmed::Armed => Ok(known | wanted),
            // Forgotten by the kernel. Unchecked waiters (`checks.rs`) joined while their
            // operation borrowed the socket that has the number now: they stay.
            Rearmed::Forgotten if self.sources[fd as usize].unchecked.is_some() => {
                selector.register(fd, known | wanted)?;
                Ok(known | wanted)
            }
            // Any other record belonged to a closed socket: it goes, and the file that has
            // the number now is registered.
            Rearmed::Forgotten => {
                selector.register(fd, wanted)?;
                drop(self.reset(fd)); // the closed socket's waiters: never woken now
                Ok(wanted)
            }
        }
    }
    // ANCHOR_END: rejoin

    /// `fd` is a new descriptor (just accepted or connected): whatever the table remembers
    /// under its number belonged to a socket that was closed. Its waiters are dropped.
    pub fn forget(&mut self, fd: RawFd) -> Vec<Waiter<L>> {
        let Some(stale) = self.reset(fd) else {
            return Vec::new();
        };
        self.check();
        stale.reader.into_iter().chain(stale.writer).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    use std::task::Waker;
    use std::time::Duration;

    use stage4::Interest;

    use crate::events::handle::Handle;
    use crate::io_driver::io_table::Waiter;
    use crate::io_driver::io_table::tests::{a_reused_number, counting, task};

    #[test]
    fn a_number_reused_by_a_new_socket_is_registered_again() {
        let (mut selector, mut table, fd, _b, mut b_peer) = a_reused_number();
        table
            .add(&mut selector, fd, Interest::Read, task())
            .unwrap();
        b_peer.write_all(b"x").unwrap();
        assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 1);
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        table.process_events(&selector, &mut ready, &mut wake);
        assert_eq!(wake.len(), 1, "the new socket's reader is woken");
        assert_eq!(selector.stats().registers, 2, "registered afresh");
    }

    #[test]
    fn a_callback_joining_an_unchecked_wait_on_a_reused_number_keeps_the_wait() {
        let (mut selector, mut table, fd, _b, mut b_peer) = a_reused_number();
        let (count, waker) = counting();
        table
            .wait(&mut selector, fd, Interest::Read, &waker)
            .unwrap();
        // A writer joins: its re-arm finds the number forgotten by the kernel.
        let writer = Handle::new_repeating(1, |_: &()| {});
        table
            .add(&mut selector, fd, Interest::Write, Waiter::Callback(writer))
            .unwrap();
        assert!(table.has(fd, Interest::Read), "the task still waits");
        assert_eq!(table.waiters(), 2);
        b_peer.write_all(b"x").unwrap();
        selector.select(Some(Duration::ZERO)).unwrap();
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        table.process_events(&selector, &mut ready, &mut wake);
        wake.drain(..).for_each(Waker::wake);
        assert_eq!(count.0.load(Ordering::Relaxed), 1);
    }
}
