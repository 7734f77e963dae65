//! The selector the loop waits on (book chapter 5, "Step 3: select"; seed 000, `_run_once`'s
//! `self._selector.select(timeout)` and seed 002, the selector class tree).
//!
//! asyncio's `BaseSelectorEventLoop` holds a `selectors.DefaultSelector` (epoll on Linux,
//! kqueue on macOS) and calls `select(timeout)` once per iteration, with the timeout that
//! step 2 computed: 0 when work is ready, the time to the next timer otherwise, forever when
//! there is nothing at all. This is a thin wrapper over `mio::Poll`, which is that same
//! selector: the loop calls it in step 3 of every iteration, with the computed timeout.
//!
//! In this part nothing is registered with it yet: no socket, no self-pipe. It still
//! earns its place, because the timeout logic is asyncio's and the waiting is real (a
//! `select` with a timeout is how the loop sleeps until its next timer on the real clock).
//! Chapter 7 registers readers and writers (`add_reader`/`add_writer` keep their handles
//! in a table keyed by [`mio::Token`], and `process_events` turns the returned events into
//! ready handles) and the self-pipe that wakes a blocked `select` from another thread.
//!
//! What changed since stage 4: stage 4's selector held one-shot read/write waits of tasks.
//! Here the selector knows nothing about tasks: it returns events, and the loop turns them
//! into handles on the ready queue, like every other kind of work.

use std::io;
use std::time::Duration;

use mio::{Events, Poll};

/// How many events one `select` returns at most; more wait for the next iteration.
const EVENTS_CAPACITY: usize = 1024;

/// A `mio::Poll` and its event buffer.
pub struct Selector {
    poll: Poll,
    events: Events,
    registered: usize,
}

impl Selector {
    /// A selector with nothing registered.
    pub fn new() -> io::Result<Selector> {
        Ok(Selector {
            poll: Poll::new()?,
            events: Events::with_capacity(EVENTS_CAPACITY),
            registered: 0,
        })
    }

    // ANCHOR: select
    /// Wait until a registered source is ready or `timeout` has passed (`None`: no limit).
    /// Returns how many events arrived; they are in [`Selector::events`] until the next
    /// call. An interrupted wait (a signal, EINTR) is zero events, as in asyncio.
    pub fn select(&mut self, timeout: Option<Duration>) -> io::Result<usize> {
        match self.poll.poll(&mut self.events, timeout) {
            Ok(()) => Ok(self.events.iter().count()),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {
                self.events.clear();
                Ok(0)
            }
            Err(error) => Err(error),
        }
    }
    // ANCHOR_END: select

    /// The events of the last `select`.
    pub fn events(&self) -> &Events {
        &self.events
    }

    /// How many sources are registered: none in this part. The loop asks, because with
    /// nothing registered and no timer a `select` without timeout could never return.
    pub fn registered(&self) -> usize {
        self.registered
    }

    /// The `mio::Poll`'s registry, for registering sources (chapter 7).
    pub fn registry(&self) -> &mio::Registry {
        self.poll.registry()
    }
}

impl std::fmt::Debug for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selector")
            .field("registered", &self.registered)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_selector_times_out_with_no_events() {
        let mut selector = Selector::new().unwrap();
        assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 0);
        assert_eq!(selector.registered(), 0);
        assert_eq!(selector.events().iter().count(), 0);
    }
}
