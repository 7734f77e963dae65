//! A task's wait on a kept registration, checked later (book, "Going further", "Making the
//! loop fast", after chapter 7; asyncio's `_sock_recv`, which adds a reader,
//! and with it a system call, for every wait).
//!
//! A task in a socket operation pays nothing when it starts to wait (`wait`): its
//! operation has just seen the socket not ready, so the next *edge* (the selector's report
//! that the descriptor became ready) will come by itself, *if* the registration is still
//! the kernel's. Finding that out is a *check*: one `EPOLL_CTL_MOD`, which also registers
//! the socket that has the number now if the kernel forgot it (`reuse.rs`). The check is
//! put off, because most waits end with their edge before anyone needs it: an edge proves
//! nothing about which socket has the number, but a wait that ends needs no proof. A wait
//! still unchecked when the loop is about to sleep (only a sleeping loop could wait for
//! ever) or after [`PATIENCE`] selects of a loop too busy to sleep is checked
//! (`check_waits`). The number cannot change hands *during* the wait: the operation
//! borrows its socket.
//!
//! What changed since stage 4: stage 4 registered a socket for every wait.

use std::io;
use std::os::fd::RawFd;
use std::task::Waker;

use stage4::Interest;

use super::{IoTable, Source, Waiter};
use crate::io_driver::selector::{Interests, Poller, Rearmed};

/// How many selects a task's wait may go unchecked while the loop is busy (it is always
/// checked before the loop sleeps): how long an operation on a socket that got a closed
/// socket's number can wait for the check that registers it.
pub const PATIENCE: u32 = 16;

impl<L> Source<L> {
    /// The waiter in the direction opposite to `interest`.
    fn opposite(&self, interest: Interest) -> &Option<Waiter<L>> {
        match interest {
            Interest::Read => &self.writer,
            Interest::Write => &self.reader,
        }
    }
}

impl<L, S: Poller> IoTable<L, S> {
    // ANCHOR: wait
    /// A task's socket operation found `fd` not ready for `interest` (it answered
    /// `WouldBlock`, or a short read left nothing to read): install its `waker`. If the
    /// table believes `fd` registered for `interest`, and nobody waits in the other
    /// direction, that costs no system call: having seen the socket not ready, the
    /// operation can count on the next edge, provided the kernel still has the
    /// registration, which the wait is queued to check (`check_waits`). Otherwise this is
    /// [`IoTable::add`].
    #[inline]
    pub fn wait(
        &mut self,
        selector: &mut S,
        fd: RawFd,
        interest: Interest,
        waker: &Waker,
    ) -> io::Result<Option<Waiter<L>>> {
        if let Some(source) = self.source_mut(fd)
            && source.registered.is_some_and(|known| known.has(interest))
            && source.opposite(interest).is_none()
        {
            *source.ready(interest) = false; // seen not ready: the next edge will say
            let slot = source.slot(interest);
            // The same task polled again: its waker is already there.
            if let Some(Waiter::Task(old)) = slot
                && old.will_wake(waker)
            {
                self.check();
                return Ok(None);
            }
            if source.unchecked.is_none() {
                let select = select_number(selector);
                source.unchecked = Some(select);
                self.unchecked.push_back((fd, select));
            }
            let old = self.install(fd, interest, Waiter::Task(waker.clone()));
            self.check();
            return Ok(old);
        }
        self.would_block(fd, interest);
        self.add(selector, fd, interest, Waiter::Task(waker.clone()))
    }
    // ANCHOR_END: wait

    // ANCHOR: check_waits
    /// Check the registrations that tasks wait on unchecked (`wait`): those that have
    /// waited through [`PATIENCE`] selects, or every one if `all` (the loop is about to
    /// sleep, and only an edge could wake it). `EPOLL_CTL_MOD` confirms a registration and
    /// reports the descriptor again if it is ready; if the kernel has forgotten the number
    /// (the socket that had it was closed), the socket that has it now, the one the task
    /// borrows, is registered. If the number is not open at all, the waiting tasks are
    /// woken into `wake`: their operation will meet the error. Returns how many were
    /// checked.
    pub fn check_waits(&mut self, selector: &mut S, all: bool, wake: &mut Vec<Waker>) -> usize {
        let now = select_number(selector);
        let mut checked = 0;
        while let Some(&(fd, since)) = self.unchecked.front() {
            let source = &mut self.sources[fd as usize];
            if source.unchecked == Some(since) {
                if !all && now.wrapping_sub(since) < PATIENCE {
                    break; // the rest joined later still
                }
                source.unchecked = None;
                checked += 1;
                if let Some(known) = source.registered
                    && let Err(error) = confirm(selector, fd, known)
                {
                    scaffold::trace!("check fd {fd}: {error}");
                    source.registered = None;
                    for waiter in [&source.reader, &source.writer].into_iter().flatten() {
                        if let Waiter::Task(waker) = waiter {
                            wake.push(waker.clone());
                        }
                    }
                }
                // Confirmed or registered afresh: epoll reports it if it is ready now.
                source.clear_readiness();
            }
            self.unchecked.pop_front(); // checked, or stale: checked or idle since
        }
        self.check();
        checked
    }
    // ANCHOR_END: check_waits

    /// True if some task waits on a registration not checked yet.
    #[inline]
    pub fn has_unchecked(&self) -> bool {
        !self.unchecked.is_empty()
    }
}

/// The selector's count of selects, as the table notes it: it wraps, and only differences
/// of a few selects are ever compared.
fn select_number(selector: &impl Poller) -> u32 {
    selector.selects() as u32
}

/// Re-arm `fd`'s registration for `known`; if the kernel has forgotten the number, register
/// the file that has it now.
fn confirm(selector: &mut impl Poller, fd: RawFd, known: Interests) -> io::Result<()> {
    match selector.reregister(fd, known)? {
        // Confirmed: still the kernel's.
        Rearmed::Armed => Ok(()),
        // The socket that had the number was closed: register the one that has it now.
        Rearmed::Forgotten => selector.register(fd, known),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::sync::atomic::Ordering;
    use std::task::Waker;
    use std::time::Duration;

    use stage4::Interest;

    use super::PATIENCE;
    use crate::io_driver::io_table::tests::{
        FakeSelector, Table, a_reused_number, counting, iteration, kept, pair, readable, task,
    };
    use crate::io_driver::io_table::{IoTable, Release};
    use crate::io_driver::selector::Selector;

    #[test]
    fn a_task_waits_on_a_kept_registration_without_a_system_call_until_checked() {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        let (a, _peer) = pair();
        let fd = a.as_raw_fd();
        kept(&mut table, &mut selector, fd);
        let before = selector.stats();
        let (_, waker) = counting();
        table
            .wait(&mut selector, fd, Interest::Read, &waker)
            .unwrap();
        assert!(table.has(fd, Interest::Read));
        assert_eq!(selector.stats(), before, "no system call to start waiting");
        let mut wake = Vec::new();
        for _ in 0..PATIENCE - 1 {
            assert_eq!(table.check_waits(&mut selector, false, &mut wake), 0);
            selector.select(Some(Duration::ZERO)).unwrap();
        }
        assert_eq!(selector.stats().reregisters, before.reregisters);
        selector.select(Some(Duration::ZERO)).unwrap();
        assert_eq!(table.check_waits(&mut selector, false, &mut wake), 1);
        assert_eq!(selector.stats().reregisters, before.reregisters + 1);
        assert!(!table.has_unchecked() && wake.is_empty());
    }

    #[test]
    fn a_check_registers_the_socket_that_has_the_number_now_and_keeps_its_waiter() {
        let (mut selector, mut table, fd, _b, mut b_peer) = a_reused_number();
        b_peer.write_all(b"x").unwrap(); // ready before anyone waits
        let (count, waker) = counting();
        table
            .wait(&mut selector, fd, Interest::Read, &waker)
            .unwrap();
        let mut wake = Vec::new();
        assert_eq!(table.check_waits(&mut selector, true, &mut wake), 1);
        assert_eq!(selector.stats().registers, 2, "registered afresh");
        assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 1);
        let mut ready = Vec::new();
        table.process_events(&selector, &mut ready, &mut wake);
        wake.drain(..).for_each(Waker::wake);
        assert_eq!(count.0.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_check_that_finds_the_number_closed_wakes_the_waiting_task() {
        for _attempt in 0..20 {
            let mut selector = Selector::new().unwrap();
            let mut table: IoTable<()> = IoTable::default();
            let (a, a_peer) = pair();
            let fd = a.as_raw_fd();
            kept(&mut table, &mut selector, fd);
            let (count, waker) = counting();
            table
                .wait(&mut selector, fd, Interest::Read, &waker)
                .unwrap();
            drop((a, a_peer)); // closed while waited on: only unsafe code could do this
            let mut wake = Vec::new();
            table.check_waits(&mut selector, true, &mut wake);
            if wake.is_empty() {
                continue; // another test's thread took the number meanwhile
            }
            wake.drain(..).for_each(Waker::wake);
            assert_eq!(count.0.load(Ordering::Relaxed), 1);
            return;
        }
        panic!("the number was always taken again at once");
    }

    #[test]
    fn a_wait_on_a_kept_registration_is_checked_and_registered_afresh_if_forgotten() {
        let (mut selector, mut table) = (FakeSelector::default(), Table::default());
        // A socket operation waited and ended: its registration is kept until the select.
        drop(table.add(&mut selector, 4, Interest::Read, task()));
        drop(table.remove(&mut selector, 4, Interest::Read, Release::AtNextSelect));
        assert_eq!(selector.calls(), ["register 4 read"]);
        // Its socket is closed, and a new one gets number 4 before the next select; the
        // next operation on it waits, and pays nothing yet.
        selector.close(4);
        drop(table.wait(&mut selector, 4, Interest::Read, Waker::noop()));
        assert!(
            selector.calls().is_empty(),
            "no system call to start waiting"
        );
        // The loop is about to sleep: the check finds the number forgotten and registers
        // the new socket; the task still waits, for its edge.
        let mut wake = Vec::new();
        assert_eq!(table.check_waits(&mut selector, true, &mut wake), 1);
        assert_eq!(selector.calls(), ["reregister 4 read", "register 4 read"]);
        assert!(wake.is_empty() && table.has(4, Interest::Read));
        let (_, woken) = iteration(&mut table, &mut selector, &[readable(4)]);
        assert_eq!(woken, 1, "the new socket's edge ends the wait");
    }
}
