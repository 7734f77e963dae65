//! Stage 5's loop with a proactor in its selector's place (book chapter 10, "The
//! proactor loop"; asyncio's `BaseProactorEventLoop.__init__`, which takes an
//! `IocpProactor` and calls `self._proactor.set_loop(self)`, and its `close`).
//!
//! [`ProactorLoop`] is stage 5's [`EventLoop`] with a [`Uring`] installed: everything of
//! stage 5 (handles, timers, futures, tasks, `call_soon_threadsafe`, readers, signals,
//! stage 5's own readiness-based `sock_*`) works as before, and it dereferences to it.
//! What it adds are the completion-based socket operations (`sockets.rs`). Closing the
//! loop closes the proactor first, which waits for what is in flight.

use std::ops::Deref;
use std::rc::Rc;

use scaffold::Clock;
use stage5::{Error, EventLoop};

use crate::proactor::Uring;
use crate::ring::{Ring, RingStats};

/// Stage 5's loop waiting on io_uring. Cloning gives another handle to the same loop; the
/// first one closes it when dropped, as stage 5's does.
#[derive(Clone)]
pub struct ProactorLoop {
    lp: EventLoop,
    uring: Rc<Uring>,
}

impl ProactorLoop {
    // ANCHOR: new
    /// A loop on `clock` waiting on `ring` (from [`crate::setup::ring`]).
    /// The loop is this value's: dropping it closes the loop (stage 5's owner).
    pub fn new(ring: Ring, clock: Rc<dyn Clock>) -> Result<ProactorLoop, Error> {
        let lp = EventLoop::try_with_clock(clock)?;
        let uring = Uring::new(ring);
        lp.set_proactor(Some(uring.clone()));
        Ok(ProactorLoop { lp, uring })
    }

    /// Make `lp` wait on `ring` from its next iteration on (asyncio's `set_loop`); the
    /// loop stays `lp`'s owner's to close.
    pub fn install(lp: &EventLoop, ring: Ring) -> ProactorLoop {
        let uring = Uring::new(ring);
        lp.set_proactor(Some(uring.clone()));
        ProactorLoop {
            lp: lp.clone(),
            uring,
        }
    }
    // ANCHOR_END: new

    /// Stage 5's loop under it.
    pub fn event_loop(&self) -> &EventLoop {
        &self.lp
    }

    /// The proactor.
    pub fn uring(&self) -> &Rc<Uring> {
        &self.uring
    }

    /// Operations the kernel holds now (each one's buffer with it).
    pub fn in_flight(&self) -> usize {
        self.uring.in_flight()
    }

    /// The ring's counters: `io_uring_enter` calls, submissions, completions, cancels.
    pub fn ring_stats(&self) -> RingStats {
        self.uring.stats()
    }
}

impl Deref for ProactorLoop {
    type Target = EventLoop;

    fn deref(&self) -> &EventLoop {
        &self.lp
    }
}

impl std::fmt::Debug for ProactorLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProactorLoop")
            .field("in_flight", &self.in_flight())
            .field("ring", &self.ring_stats())
            .finish()
    }
}

// ANCHOR: run
/// asyncio's `asyncio.run` on a proactor loop: stage 5's `run`, the ring installed first.
/// When `main` is done the remaining tasks are cancelled, then the loop closes, which
/// waits for the operations still in flight.
pub fn run<F, T>(
    ring: Ring,
    clock: Rc<dyn Clock>,
    main: impl FnOnce(&ProactorLoop) -> F,
) -> Result<T, Error>
where
    F: std::future::Future<Output = Result<T, Error>> + 'static,
    T: Clone + 'static,
{
    stage5::run(clock, move |lp| main(&ProactorLoop::install(lp, ring)))
}
// ANCHOR_END: run
