//! The seam a completion backend plugs into (book chapter 10, "The seam"; asyncio's
//! `BaseProactorEventLoop`, whose `_selector` is an `IocpProactor`: `_run_once` calls
//! `self._selector.select(timeout)` on it as on any selector).
//!
//! asyncio's proactor loop keeps `_run_once` as it is and hands it a different "selector":
//! one whose `select(timeout)` waits for *completed operations* and sets their futures'
//! results. This file does the same for stage 5's loop: with a [`Proactor`] installed
//! (`EventLoop::set_proactor`), step 3 waits on it instead of on `epoll_wait`. The
//! backend is handed epoll's own descriptor, and keeps a poll of it submitted, so that
//! everything stage 5 watches on the selector (the self-pipe of `call_soon_threadsafe`
//! and of signals, readers and writers) still wakes the loop; when it reports epoll
//! readable, the selector collects epoll's events without waiting, as it always does.
//!
//! The backend resolves its futures in [`Proactor::dispatch`], which step 3's second half
//! calls once no borrow of the loop's state is held (CPython sets them inside `select`;
//! the order in the ready queue is the same).

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use super::Selector;

// ANCHOR: proactor
/// What waits in step 3 instead of the selector: a completion backend (stage 6's
/// io_uring). Methods take `&self`: the loop holds it behind an `Rc`, and so does the
/// backend's owner, who submits operations through it.
pub trait Proactor {
    /// Submit what is queued and wait at most `timeout` (`None`: without limit) for a
    /// completion, or for `selector` (epoll's own descriptor) to become readable. Collect
    /// the completions for [`dispatch`](Proactor::dispatch); do not run any code of the
    /// loop's here (its selector is borrowed).
    fn wait(&self, selector: RawFd, timeout: Option<Duration>) -> io::Result<Waited>;

    /// Resolve what the last [`wait`](Proactor::wait) collected: set futures' results,
    /// wake tasks. Called by step 3 on the loop's thread, no borrow held.
    fn dispatch(&self);

    /// True while operations are in flight: something outside may still wake the loop
    /// (on the virtual clock, a loop with nothing else would otherwise give up).
    fn busy(&self) -> bool;

    /// The loop closes: cancel what is in flight and wait until the kernel has answered
    /// for every operation (asyncio's `IocpProactor.close`). Called by `EventLoop::close`
    /// before anything else is dropped, so futures may still schedule callbacks.
    fn close(&self);
}

/// What one [`Proactor::wait`] saw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Waited {
    /// Operations that completed.
    pub completed: usize,
    /// True if epoll's descriptor is readable: the selector has events to collect.
    pub selector_ready: bool,
}
// ANCHOR_END: proactor

impl Selector {
    // ANCHOR: select_proactor
    /// Step 3 with a proactor: wait on it, then collect epoll's events without waiting if
    /// it says there are some. Returns completions and events together: step 3 only asks
    /// whether anything came (the virtual clock jumps when nothing did).
    pub(super) fn select_proactor(&mut self, timeout: Option<Duration>) -> io::Result<usize> {
        let Some(proactor) = self.proactor.clone() else {
            return Ok(0); // (called only with one installed)
        };
        let waited = proactor.wait(self.poll.as_raw_fd(), timeout)?;
        self.events.clear();
        if !waited.selector_ready {
            return Ok(waited.completed);
        }
        match self.poll.poll(&mut self.events, Some(Duration::ZERO)) {
            // The events epoll had: step 3's second half dispatches them as always.
            Ok(()) => Ok(waited.completed + self.events.iter().count()),
            // A signal interrupted even this zero wait: the events wait for the next round.
            Err(error) if error.kind() == io::ErrorKind::Interrupted => Ok(waited.completed),
            // epoll itself failed: the loop reports it.
            Err(error) => Err(error),
        }
    }
    // ANCHOR_END: select_proactor

    /// Wait on `proactor` from now on (`None`: on epoll again).
    pub fn set_proactor(&mut self, proactor: Option<Rc<dyn Proactor>>) {
        self.proactor = proactor;
    }

    /// The installed proactor, if any (a clone of the `Rc`, to call with no borrow held).
    pub fn proactor(&self) -> Option<Rc<dyn Proactor>> {
        self.proactor.clone()
    }
}

impl fmt::Debug for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Selector")
            .field("stats", &self.stats)
            .field("proactor", &self.proactor.is_some())
            .finish()
    }
}
