//! A socket a short read emptied (book, "Going further", "Making the loop fast", after
//! chapter 7; asyncio's `sock_recv`, which always tries `recv` first).
//!
//! asyncio's `sock_recv` tries the read before it waits. After an echo went out, the socket
//! is usually empty (the client sends its next message only once it has the echo), and
//! that try answers `EAGAIN`: one wasted system call per message. A read that came back
//! shorter than asked has emptied the socket, so the table marks it `drained`, and the next
//! read operation waits without trying (tokio skips the same try, clearing the readiness).
//! An edge since then (more data, the end of the stream, an error) ends the mark, in
//! `process_events`. Data asyncio's try would have found comes with its edge, one
//! iteration later: nothing is lost.
//!
//! What changed since stage 4: stage 4's `recv` always tried first, as asyncio's does.

use std::os::fd::RawFd;

use super::IoTable;
use crate::io_driver::selector::Poller;

impl<L, S: Poller> IoTable<L, S> {
    // ANCHOR: drained
    /// A read on `fd` came back shorter than asked: the socket is empty now, and an edge
    /// will say when it is not (what tokio calls clearing the readiness). The next read
    /// operation on `fd` waits without trying (`is_drained`).
    pub fn read_drained(&mut self, fd: RawFd) {
        if let Some(source) = self.source_mut(fd)
            && source.registered.is_some()
        {
            source.readable = false;
            source.drained = true;
        }
        self.check();
    }

    /// True if a short read emptied `fd` and no edge has come since.
    #[inline]
    pub fn is_drained(&self, fd: RawFd) -> bool {
        self.source(fd).is_some_and(|s| s.drained)
    }
    // ANCHOR_END: drained
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    use crate::io_driver::io_table::IoTable;
    use crate::io_driver::io_table::tests::{kept, pair};
    use crate::io_driver::selector::Selector;

    #[test]
    fn a_short_read_drains_until_the_next_edge() {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        let (a, mut peer) = pair();
        let fd = a.as_raw_fd();
        table.read_drained(fd);
        assert!(!table.is_drained(fd), "not registered: nothing known");
        kept(&mut table, &mut selector, fd);
        table.read_drained(fd);
        assert!(table.is_drained(fd));
        peer.write_all(b"x").unwrap(); // the registration is kept until the next select
        assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 1);
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        table.process_events(&selector, &mut ready, &mut wake);
        assert!(!table.is_drained(fd), "an edge came since");
    }
}
