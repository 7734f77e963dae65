//! A task's wait on a registration the loop kept is checked later instead of re-armed now
//! (book, "Going further", "An echo, message by message", the re-arm per wait; chapter 7,
//! "Level against edge, and why this selector is not stage 4's"; asyncio's `sock_recv`,
//! which adds a reader for each wait and removes it when done).
//!
//! asyncio's waits cost two `epoll_ctl` calls each (`_add_reader`, then `remove_reader` in
//! `_sock_read_done`); a re-arm of the kept registration would cost one. A task's wait
//! costs none here (`IoTable::wait`): the edge that ends it comes anyway, *if* the kernel
//! still has the registration, which a closed socket whose number was reused would have
//! lost. So each such wait is queued to be checked: after 16 selects of a loop too busy to
//! sleep (`IoDriver::before_select` in the parent), or before the loop sleeps, since only a sleeping
//! loop could wait for ever. "Before it sleeps" is after a nap of at most [`CHECK_AFTER`],
//! in which the edges that end most waits come. None of it changes what asyncio does.
//!
//! What changed since stage 4: stage 4 registered the socket for every wait and removed it
//! when the wait fired, and had nothing to check.

use std::io;
use std::task::Waker;
use std::time::Duration;

use scaffold::Clock;

use crate::io_driver::driver::IoDriver;

/// How long the loop sleeps, with tasks waiting on unchecked registrations, before it checks
/// them and sleeps on (`select`).
pub const CHECK_AFTER: Duration = Duration::from_millis(1);

impl<L> IoDriver<L> {
    // ANCHOR: select_io
    /// Step 3's `select` for at most `timeout`. If tasks wait on registrations not checked
    /// yet (`IoTable::wait`), the loop must not sleep long before they are: it first sleeps
    /// at most [`CHECK_AFTER`], in which the edges that end most waits come; only if none
    /// came does it check them all (`note` hears how many), then sleep what is left (not
    /// at all if the check woke a task; a descriptor the check found ready ends the sleep
    /// at once). `clock` is the loop's: what the nap took is not slept again.
    pub(crate) fn select(
        &self,
        timeout: Option<Duration>,
        clock: &dyn Clock,
        note: impl FnOnce(usize),
    ) -> io::Result<usize> {
        if timeout == Some(Duration::ZERO) || !self.has_unchecked_waits() {
            return self.selector.borrow_mut().select(timeout);
        }
        self.nap_check_and_select(timeout, clock, note)
    }

    /// `select` with unchecked waits and a wait that may be long.
    #[inline(never)] // out of the busy loop's way
    fn nap_check_and_select(
        &self,
        timeout: Option<Duration>,
        clock: &dyn Clock,
        note: impl FnOnce(usize),
    ) -> io::Result<usize> {
        let nap = timeout.map_or(CHECK_AFTER, |t| t.min(CHECK_AFTER));
        let start = clock.now(); // (a virtual clock only sleeps with `None`)
        let events = self.selector.borrow_mut().select(Some(nap))?;
        if events > 0 || Some(nap) == timeout {
            return Ok(events);
        }
        let left = match self.check_all_waits(note) {
            true => Some(Duration::ZERO),
            false => timeout.map(|t| t.saturating_sub(clock.now() - start)),
        };
        self.selector.borrow_mut().select(left)
    }
    // ANCHOR_END: select_io

    /// True if a task waits on a registration not checked yet.
    pub(crate) fn has_unchecked_waits(&self) -> bool {
        self.table.borrow().has_unchecked()
    }

    /// Check every unchecked wait (the loop is about to sleep); `note` hears how many.
    /// True if a task was woken (its descriptor is not open any more): the loop has work,
    /// and must not sleep.
    pub(crate) fn check_all_waits(&self, note: impl FnOnce(usize)) -> bool {
        self.check_waits(true, note)
    }

    /// `IoTable::check_waits`: every unchecked wait if `all` (the loop is about to sleep),
    /// else those unchecked for long. Then `note` hears how many, and the tasks it found
    /// are woken, once no borrow is held. True if one was.
    pub(super) fn check_waits(&self, all: bool, note: impl FnOnce(usize)) -> bool {
        let mut wake = Vec::new();
        let checked =
            self.with_table(|table, selector| table.check_waits(selector, all, &mut wake));
        note(checked);
        let woke = !wake.is_empty();
        wake.into_iter().for_each(Waker::wake);
        woke
    }
}
