//! The I/O table's invariants, all in one function (book chapter 7, "Readers and writers
//! on a selector"; no public source: asyncio keeps no side queues beside its selector's
//! keys).
//!
//! The table keeps, beside each descriptor's `Source`, three queues for speed (`rearm`,
//! `release`, `unchecked`) and a count of its waiters, so that the loop never walks every
//! descriptor. Each is a mirror of something the sources say, and a mirror can drift. This
//! file holds the only code that fills or empties a slot (`install`, `take`, `empty`,
//! `reset`: the count follows; `close.rs` empties the whole table at once), and states what must hold between the sources and their mirrors, as
//! [`IoTable::invariants`]. In the unit tests every operation of the table ends with the
//! check ([`IoTable::check`]); in every debug build (the loop's integration tests, the
//! workspace's) each select is preceded by it; a release build never runs it. A rule broken
//! names itself ([`Broken`]).

use std::fmt;
use std::os::fd::RawFd;

use stage4::Interest;

use super::{IoTable, Source, Waiter};
use crate::io_driver::selector::Poller;

/// A rule of the I/O table that does not hold, and the descriptor it fails for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Broken {
    /// The count of waiters is not the number of filled slots.
    Waiters { counted: usize, installed: usize },
    /// A descriptor is in the `rearm` queue other than once, or its flag says otherwise.
    Rearm(RawFd),
    /// A descriptor is in the `release` queue other than once, or its flag says otherwise.
    Release(RawFd),
    /// A descriptor waits to be checked, and the `unchecked` queue does not hold it.
    Unchecked(RawFd),
    /// A descriptor waits to be checked with nobody waiting on it.
    CheckedForNobody(RawFd),
    /// A descriptor is both drained and readable.
    DrainedReadable(RawFd),
    /// A queue holds a number the table has never grown for.
    Unknown(RawFd),
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Broken::Waiters { counted, installed } => {
                write!(f, "{counted} waiters counted, {installed} installed")
            }
            Broken::Rearm(fd) => write!(f, "fd {fd}: `rearm` flag and queue disagree"),
            Broken::Release(fd) => write!(f, "fd {fd}: `release` flag and queue disagree"),
            Broken::Unchecked(fd) => write!(f, "fd {fd}: an unchecked wait not queued"),
            Broken::CheckedForNobody(fd) => write!(f, "fd {fd}: a check with no waiter"),
            Broken::DrainedReadable(fd) => write!(f, "fd {fd}: drained and readable"),
            Broken::Unknown(fd) => write!(f, "fd {fd}: queued, not in the table"),
        }
    }
}

/// [`IoTable::take`] for a caller that holds the slot already: empty it, and count.
pub(super) fn empty<L>(slot: &mut Option<Waiter<L>>, waiters: &mut usize) -> Option<Waiter<L>> {
    let old = slot.take();
    *waiters -= usize::from(old.is_some());
    old
}

impl<L, S: Poller> IoTable<L, S> {
    /// Put `waiter` in `fd`'s slot for `interest` (the table has grown for `fd`); returns
    /// the waiter it replaces. With [`take`](Self::take) and [`reset`](Self::reset), the
    /// only places the count of waiters changes ([`IoTable::invariants`] checks it).
    pub(super) fn install(
        &mut self,
        fd: RawFd,
        interest: Interest,
        waiter: Waiter<L>,
    ) -> Option<Waiter<L>> {
        let old = self.sources[fd as usize].slot(interest).replace(waiter);
        self.waiters += usize::from(old.is_none());
        old
    }

    /// Take `fd`'s waiter for `interest` out of its slot.
    pub(super) fn take(&mut self, fd: RawFd, interest: Interest) -> Option<Waiter<L>> {
        let slot = self
            .sources
            .get_mut(usize::try_from(fd).ok()?)?
            .slot(interest);
        empty(slot, &mut self.waiters)
    }

    /// Forget all that is known of `fd` (deregistered, or a new socket has its number);
    /// returns what it was. Its places in the queues stay, and so do the flags that say
    /// so: a queued number is never queued twice, and the queue's pass finds it idle.
    pub(super) fn reset(&mut self, fd: RawFd) -> Option<Source<L>> {
        let source = self.source_mut(fd)?;
        let (rearm, release) = (source.rearm, source.release);
        let old = std::mem::replace(
            source,
            Source {
                rearm,
                release,
                ..Source::default()
            },
        );
        self.waiters -= old.waiter_count();
        Some(old)
    }

    // ANCHOR: invariants
    /// What must hold between the sources and their mirrors after every operation:
    ///
    /// - the count of waiters is the number of filled slots (computed here, counted there);
    /// - a descriptor is in the `rearm` queue exactly once if its flag is set, else not at
    ///   all; the same for `release` (a number is never queued twice, even after `remove`
    ///   forgot its source: the flags survive a reset);
    /// - a wait to check is in the `unchecked` queue with its select number (the queue may
    ///   hold stale entries besides: checked or idle since), and has a waiter to wake;
    /// - a drained descriptor is not readable (a short read emptied it, no edge since);
    /// - every queued number is one the table has grown for.
    pub fn invariants(&self) -> Result<(), Broken> {
        let installed: usize = self.sources.iter().map(|s| s.waiter_count()).sum();
        if installed != self.waiters {
            let counted = self.waiters;
            return Err(Broken::Waiters { counted, installed });
        }
        let mut rearm = vec![0usize; self.sources.len()];
        let mut release = vec![0usize; self.sources.len()];
        for (queue, times) in [(&self.rearm, &mut rearm), (&self.release, &mut release)] {
            for &fd in queue {
                *times.get_mut(fd as usize).ok_or(Broken::Unknown(fd))? += 1;
            }
        }
        for &(fd, _) in &self.unchecked {
            self.source(fd).ok_or(Broken::Unknown(fd))?;
        }
        for (index, source) in self.sources.iter().enumerate() {
            let fd = index as RawFd; // the table grows by descriptor number
            if rearm[index] != usize::from(source.rearm) {
                return Err(Broken::Rearm(fd));
            }
            if release[index] != usize::from(source.release) {
                return Err(Broken::Release(fd));
            }
            if let Some(since) = source.unchecked {
                if !self.unchecked.contains(&(fd, since)) {
                    return Err(Broken::Unchecked(fd));
                }
                if source.idle() {
                    return Err(Broken::CheckedForNobody(fd));
                }
            }
            if source.drained && source.readable {
                return Err(Broken::DrainedReadable(fd));
            }
        }
        Ok(())
    }
    // ANCHOR_END: invariants

    /// The end of every operation: in the unit tests, fail at once, naming the rule, if the
    /// operation broke one; elsewhere, nothing (a check walks the whole table: after every
    /// operation it would make a debug loop with hundreds of connections crawl).
    #[inline]
    pub(super) fn check(&self) {
        if cfg!(test) {
            self.assert_invariants();
        }
    }

    /// Once an iteration, before the select: the same check in every debug build (the
    /// loop's and the workspace's tests), nothing in a release build.
    #[inline]
    pub(super) fn check_each_iteration(&self) {
        if cfg!(debug_assertions) {
            self.assert_invariants();
        }
    }

    fn assert_invariants(&self) {
        if let Err(broken) = self.invariants() {
            panic!("the I/O table's invariants: {broken}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::RawFd;

    use stage4::Interest;

    use super::Broken;
    use crate::events::handle::Handle;
    use crate::io_driver::io_table::tests::{FakeSelector, Table, iteration, readable, task};
    use crate::io_driver::io_table::{Release, Waiter};

    /// A reader on 5, dispatched once: 5 is in the `rearm` queue.
    fn dispatched() -> (FakeSelector, Table) {
        let (mut selector, mut table) = (FakeSelector::default(), Table::default());
        let reader = Handle::new_repeating(1, |_: &()| {});
        drop(table.add(&mut selector, 5, Interest::Read, Waiter::Callback(reader)));
        iteration(&mut table, &mut selector, &[readable(5)]);
        (selector, table)
    }

    #[test]
    fn a_number_removed_while_queued_is_queued_once_when_dispatched_again() {
        let (mut selector, mut table) = dispatched();
        // Removed while queued for a re-arm: its source is forgotten, its place kept.
        drop(table.remove(&mut selector, 5, Interest::Read, Release::Now));
        drop(table.add(&mut selector, 5, Interest::Read, task()));
        selector.select(&[readable(5)]);
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        table.process_events(&selector, &mut ready, &mut wake);
        assert_eq!(table.rearm, [5], "queued once, not [5, 5]");
        assert_eq!(table.invariants(), Ok(()));
    }

    #[test]
    fn every_broken_mirror_is_named() {
        let (_, mut table) = dispatched();
        assert_eq!(table.invariants(), Ok(()));
        table.waiters += 1; // an operation that counted a waiter it did not install
        let counted = Broken::Waiters {
            counted: 2,
            installed: 1,
        };
        assert_eq!(table.invariants(), Err(counted));
        table.waiters -= 1;
        table.rearm.push(5); // queued twice
        assert_eq!(table.invariants(), Err(Broken::Rearm(5)));
        table.rearm.clear(); // the flag still says queued
        assert_eq!(table.invariants(), Err(Broken::Rearm(5)));
        table.sources[5].rearm = false;
        table.release.push(9);
        assert_eq!(table.invariants(), Err(Broken::Unknown(9)));
        table.release.clear();
        table.sources[5].unchecked = Some(3);
        assert_eq!(table.invariants(), Err(Broken::Unchecked(5)));
        table.unchecked.push_back((5, 3));
        table.sources[5].reader = None;
        table.waiters = 0;
        assert_eq!(table.invariants(), Err(Broken::CheckedForNobody(5)));
        table.sources[5].unchecked = None;
        table.sources[5].readable = true;
        table.sources[5].drained = true;
        assert_eq!(table.invariants(), Err(Broken::DrainedReadable(5)));
    }

    /// `remove` as it would be if it emptied the slot by hand and forgot the count: a
    /// deliberately broken operation, ending with the check as every operation does.
    fn broken_remove(table: &mut Table, fd: RawFd) {
        table.sources[fd as usize].reader = None;
        table.check();
    }

    #[test]
    #[should_panic(expected = "the I/O table's invariants: 1 waiters counted, 0 installed")]
    fn a_deliberately_broken_operation_fails_the_check_at_its_end() {
        let (_, mut table) = dispatched();
        broken_remove(&mut table, 5);
    }
}
