//! Level-triggered readers on an edge-triggered selector (book chapter 7, "Level against
//! edge"; asyncio's `_process_events` on a level-triggered
//! `selectors.EpollSelector`).
//!
//! asyncio calls a reader in every iteration in which its descriptor is readable; epoll,
//! as mio uses it, reports a descriptor once, when it *becomes* ready. Two rules bridge
//! them. Each descriptor caches what the edges said (`readable`, `writable`): an event sets
//! it, and the loop's own socket operations clear it when they see `WouldBlock`
//! (`would_block`), the only moment anyone *knows* the descriptor is no longer ready. And a
//! dispatched descriptor whose readiness nobody has disproved is re-armed before the next
//! select (`EPOLL_CTL_MOD`, which reports it again if, and only if, it is still ready):
//! exactly level-triggering, at one system call per iteration for a reader that leaves
//! data unread, the work epoll would do for it anyway.
//!
//! What changed since stage 4: stage 4's one-shot waits registered again for every wait, so
//! nothing needed re-arming; here registrations persist, and re-arming replaces the
//! registration per wait.

use std::os::fd::RawFd;

use stage4::Interest;

use super::{IoTable, Source};
use crate::io_driver::selector::{Poller, Readiness, Rearmed};

impl<L> Source<L> {
    // ANCHOR: note
    /// An event reported this descriptor: cache what it says, and return which directions
    /// are ready. An error or a hang-up makes both "ready": the next read or write reports
    /// it. Something came since a short read, if it is readable (`drained.rs`).
    #[inline]
    pub(super) fn note(&mut self, event: Readiness) -> (bool, bool) {
        let failed = event.error;
        let readable = event.readable || event.read_closed || failed;
        let writable = event.writable || event.write_closed || failed;
        self.readable |= readable;
        self.writable |= writable;
        self.drained &= !readable;
        self.read_closed |= event.read_closed;
        (readable, writable)
    }
    // ANCHOR_END: note

    /// The cached readiness in direction `interest`.
    pub(super) fn ready(&mut self, interest: Interest) -> &mut bool {
        match interest {
            Interest::Read => &mut self.readable,
            Interest::Write => &mut self.writable,
        }
    }

    /// Forget what the edges said, for a registration or re-arm: that reports the
    /// descriptor again if it is still ready.
    pub(super) fn clear_readiness(&mut self) {
        self.readable = false;
        self.writable = false;
        self.drained = false;
        self.read_closed = false;
    }

    /// A waiter whose readiness is cached but not known to still hold: re-arm it.
    fn needs_rearm(&self) -> bool {
        (self.reader.is_some() && self.readable) || (self.writer.is_some() && self.writable)
    }
}

impl<L, S: Poller> IoTable<L, S> {
    // ANCHOR: would_block
    /// A socket operation saw `WouldBlock` on `fd`: the cached readiness is gone, and the
    /// next edge will say when it is back.
    pub fn would_block(&mut self, fd: RawFd, interest: Interest) {
        if let Some(source) = self.source_mut(fd) {
            *source.ready(interest) = false;
        }
        self.check();
    }
    // ANCHOR_END: would_block

    // ANCHOR: read_short
    /// A reader's read on `fd` came back shorter than asked: the socket is empty, and the
    /// next edge will say when it is not, so it needs no re-arm. Unless an edge said the
    /// peer shut its side: the end of the stream is still to be read, and no edge will
    /// announce it again, so the re-arm stays (it reports `fd` at once).
    pub fn read_short(&mut self, fd: RawFd) {
        if let Some(source) = self.source_mut(fd)
            && !source.read_closed
        {
            source.readable = false;
        }
        self.check();
    }
    // ANCHOR_END: read_short

    /// A waiter of `fd` was dispatched: look at `fd` again before the next select.
    #[inline]
    pub(super) fn rearm_later(&mut self, fd: RawFd) {
        if !std::mem::replace(&mut self.sources[fd as usize].rearm, true) {
            self.rearm.push(fd);
        }
    }

    // ANCHOR: rearm
    /// Before `select`, re-arm the descriptors dispatched since the last one whose cached
    /// readiness nobody has disproved: the level-triggered emulation.
    pub(super) fn rearm_dispatched(&mut self, selector: &mut S) {
        let mut rearm = std::mem::take(&mut self.rearm);
        for &fd in &rearm {
            let source = &mut self.sources[fd as usize];
            source.rearm = false;
            if let Some(known) = source.registered
                && source.needs_rearm()
            {
                source.clear_readiness();
                match selector.reregister(fd, known) {
                    // Re-armed: reported at the next select if still ready.
                    Ok(Rearmed::Armed) => {}
                    // Closed under our feet, or epoll failed: nothing will be reported for
                    // it again, and the next waiter's `add` registers whatever has the
                    // number then.
                    Ok(Rearmed::Forgotten) | Err(_) => source.registered = None,
                }
            }
        }
        rearm.clear();
        self.rearm = rearm; // keep the capacity
    }
    // ANCHOR_END: rearm
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    use stage4::Interest;

    use crate::events::handle::Handle;
    use crate::io_driver::io_table::tests::pair;
    use crate::io_driver::io_table::{IoTable, Waiter};
    use crate::io_driver::selector::Selector;

    /// A table with a reader on one end of a socket pair, and the pair.
    fn a_reader() -> (Selector, IoTable<()>, UnixStream, UnixStream) {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        let (a, peer) = pair();
        let reader = Handle::new_repeating(1, |_: &()| {});
        table
            .add(
                &mut selector,
                a.as_raw_fd(),
                Interest::Read,
                Waiter::Callback(reader),
            )
            .unwrap();
        (selector, table, a, peer)
    }

    #[test]
    fn a_dispatched_callback_is_re_armed_until_would_block() {
        let (mut selector, mut table, a, mut peer) = a_reader();
        let fd = a.as_raw_fd();
        peer.write_all(b"xy").unwrap();
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        for round in 0..3 {
            table.before_select(&mut selector);
            assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 1);
            table.process_events(&selector, &mut ready, &mut wake);
            assert_eq!(
                ready.len(),
                round + 1,
                "level-triggered: reported every round"
            );
        }
        table.would_block(fd, Interest::Read);
        let rearms = selector.stats().reregisters;
        table.before_select(&mut selector);
        assert_eq!(selector.stats().reregisters, rearms, "drained: no re-arm");
        drop(a);
    }

    /// A reader whose read came back short needs no re-arm, unless an edge said the peer
    /// shut its side: that end is still to be read, and no edge will report it again.
    #[test]
    fn a_short_read_skips_the_re_arm_unless_the_end_of_the_stream_came_with_it() {
        for shut in [false, true] {
            let (mut selector, mut table, a, mut peer) = a_reader();
            let fd = a.as_raw_fd();
            peer.write_all(b"xy").unwrap();
            if shut {
                peer.shutdown(std::net::Shutdown::Write).unwrap();
            }
            let (mut ready, mut wake) = (Vec::new(), Vec::new());
            table.before_select(&mut selector);
            assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 1);
            table.process_events(&selector, &mut ready, &mut wake);
            assert_eq!(ready.len(), 1);
            table.read_short(fd);
            let rearms = selector.stats().reregisters;
            table.before_select(&mut selector);
            let rearmed = selector.stats().reregisters - rearms;
            assert_eq!(rearmed, u64::from(shut), "shut: {shut}");
            if shut {
                // The re-arm reports the end of the stream at the next select.
                assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 1);
            }
        }
    }
}
