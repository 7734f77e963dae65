//! The proactor stage 5's loop waits on (book chapter 10, "The proactor in step 3";
//! asyncio's `IocpProactor` in `windows_events.py`: `select`, `_poll`, `_register`,
//! `close`).
//!
//! asyncio's proactor loop keeps `_run_once` and gives it an `IocpProactor` as its
//! selector: `select(timeout)` calls `_poll(timeout)`, which waits on the completion port
//! once, takes each completed operation out of `_cache` and sets its future's result.
//! [`Uring`] is that object on io_uring, installed in stage 5's loop through its
//! `Proactor` seam. One `io_uring_enter` per iteration submits what was queued and waits
//! for the first completion or the timeout; step 3's second half then runs each
//! completion's continuation, which sets a future's result (or submits the rest of a
//! send).
//!
//! CPython's `_loop_self_reading` keeps one read of the self-pipe always submitted, so that
//! `call_soon_threadsafe` wakes the proactor. Ours keeps one *poll of epoll's descriptor*
//! always submitted instead: stage 5's self-pipe is one of epoll's descriptors, and so
//! are its signals' pipe and any reader a program adds, so all of them wake the ring, and
//! stage 5 handles them as before.

use std::cell::{Cell, RefCell};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use stage5::{Proactor, Waited};

use crate::ring::{Beside, CLOSE_PATIENCE, Done, Key, Op, Ring, RingStats};

/// What runs when an operation completes: it sets a future's result, or submits more
/// (the operation's record, `op/record.rs`).
pub type Then = Rc<dyn Complete>;

/// A completion and its continuation, taken out of the table together.
type Completed = (Done, Option<Then>);

/// An operation's continuation, run with the kernel's answer.
pub trait Complete {
    /// Continue with the kernel's answer.
    fn complete(self: Rc<Self>, uring: &Rc<Uring>, done: Done);
}

/// How many waits of [`CLOSE_PATIENCE`] a closing loop gives the kernel (asyncio waits
/// without end); what is left then is the ring's own drop's to wait for, or leak.
const CLOSE_ROUNDS: u32 = 10;

/// The ring, each operation's continuation, and the poll of the selector.
pub struct Uring {
    me: std::rc::Weak<Uring>,
    ring: RefCell<Ring>,
    then: RefCell<Beside<Then>>,
    reaped: RefCell<Vec<Done>>, // the ring's answers, before they are matched
    done: RefCell<Vec<Completed>>, // each with its continuation, for step 3's second half
    spare: RefCell<Vec<Completed>>, // `done`'s other half, emptied: neither grows anew
    selector_poll: Cell<Option<Key>>,
    closed: Cell<bool>,
}

impl Uring {
    /// The proactor over `ring`.
    pub fn new(ring: Ring) -> Rc<Uring> {
        Rc::new_cyclic(|me| Uring {
            me: me.clone(),
            ring: RefCell::new(ring),
            then: RefCell::new(Beside::default()),
            reaped: RefCell::new(Vec::new()),
            done: RefCell::new(Vec::new()),
            spare: RefCell::new(Vec::new()),
            selector_poll: Cell::new(None),
            closed: Cell::new(false),
        })
    }

    // ANCHOR: register
    /// Submit `op` on `socket`; `then` runs with its completion (asyncio's `_register`:
    /// the operation and its callback into `_cache`). Refused once the loop closed.
    pub fn submit(&self, socket: Rc<dyn AsRawFd>, op: Op, then: Then) -> io::Result<Key> {
        if self.closed.get() {
            return Err(io::Error::other("the proactor is closed"));
        }
        let fd = socket.as_raw_fd();
        let name = op.name();
        let key = self.ring.borrow_mut().submit(fd, Some(socket), op)?;
        scaffold::trace!("submit: op {key}, {name} on fd {fd}");
        self.then.borrow_mut().put(key, then);
        Ok(key)
    }
    // ANCHOR_END: register

    // ANCHOR: cancel
    /// Ask the kernel to stop `key`. Its memory stays in the ring's table and its
    /// continuation here until the kernel answers (as a cancelled overlapped stays in
    /// asyncio's `_cache` until `_poll` pops it); the answer is `ECANCELED`, or the
    /// result, if the operation finished first.
    pub fn cancel(&self, key: Key) -> io::Result<bool> {
        let asked = self.ring.borrow_mut().cancel(key)?;
        if asked && Some(key) != self.selector_poll.get() {
            scaffold::trace!("cancel: op {key} (its memory stays the kernel's until it answers)");
        }
        Ok(asked)
    }
    // ANCHOR_END: cancel

    /// Operations the kernel holds, the poll of the selector not counted.
    pub fn in_flight(&self) -> usize {
        let polling = usize::from(self.selector_poll.get().is_some());
        self.ring.borrow().in_flight().saturating_sub(polling)
    }

    /// True if the kernel still holds `key` (its buffer is not free yet).
    pub fn holds(&self, key: Key) -> bool {
        self.ring.borrow().holds(key)
    }

    /// The ring's counters.
    pub fn stats(&self) -> RingStats {
        self.ring.borrow().stats()
    }

    /// Wait once and collect what completed; true if the selector's poll was among it.
    fn wait_once(&self, timeout: Option<Duration>) -> io::Result<(usize, bool)> {
        let mut ring = self.ring.borrow_mut();
        ring.enter(timeout)?;
        let mut reaped = self.reaped.borrow_mut();
        ring.reap(&mut reaped);
        let (mut done, mut then) = (self.done.borrow_mut(), self.then.borrow_mut());
        let (before, poll) = (done.len(), self.selector_poll.get());
        let mut selector_ready = false;
        for answer in reaped.drain(..) {
            if Some(answer.key) == poll {
                selector_ready = true;
                continue;
            }
            // Its continuation out now, with it: a continuation that runs before it may
            // submit, and be given the slot this one has just left.
            let continuation = then.take(answer.key);
            done.push((answer, continuation));
        }
        if selector_ready {
            self.selector_poll.set(None); // one-shot: submitted again at the next wait
        }
        Ok((done.len() - before, selector_ready))
    }
}

impl Proactor for Uring {
    // ANCHOR: select
    /// Step 3: the poll of the selector submitted if it is not, then one
    /// `io_uring_enter` that submits and waits (asyncio's `IocpProactor.select`).
    fn wait(&self, selector: RawFd, timeout: Option<Duration>) -> io::Result<Waited> {
        if self.selector_poll.get().is_none() && !self.closed.get() {
            let key = self.ring.borrow_mut().submit(selector, None, Op::PollIn)?;
            self.selector_poll.set(Some(key));
        }
        let (completed, selector_ready) = self.wait_once(timeout)?;
        Ok(Waited {
            completed,
            selector_ready,
        })
    }
    // ANCHOR_END: select

    // ANCHOR: poll
    /// Step 3's second half: each completion's continuation, in the kernel's order
    /// (asyncio's `_poll` sets the futures' results as it takes them off the port).
    fn dispatch(&self) {
        let mut batch = self.spare.take();
        std::mem::swap(&mut batch, &mut *self.done.borrow_mut());
        let Some(me) = self.me.upgrade() else { return };
        for (done, then) in batch.drain(..) {
            if scaffold::console::tracing() {
                let (key, name) = (done.key, done.op.name());
                match &done.result {
                    Ok(n) => scaffold::trace!("completed: op {key}, {name}: {n}"),
                    Err(e) => scaffold::trace!("completed: op {key}, {name}: {e}"),
                }
            }
            if let Some(then) = then {
                then.complete(&me, done);
            }
        }
        *self.spare.borrow_mut() = batch; // empty, its room kept for the next batch
    }
    // ANCHOR_END: poll

    fn busy(&self) -> bool {
        self.in_flight() > 0
    }

    // ANCHOR: close
    /// asyncio's `IocpProactor.close`: cancel every operation in flight, then wait until
    /// the kernel has answered for each, saying so every second it takes; only then may
    /// the buffers go. The continuations run, so the futures end cancelled.
    fn close(&self) {
        self.closed.set(true);
        let keys = self.ring.borrow().keys();
        for key in keys {
            if let Err(error) = self.cancel(key) {
                scaffold::warn!("proactor: cancel on close failed: {error}");
            }
        }
        let mut rounds = 0;
        while self.ring.borrow().in_flight() > 0 && rounds < CLOSE_ROUNDS {
            rounds += 1;
            if let Err(error) = self.wait_once(Some(CLOSE_PATIENCE)) {
                scaffold::warn!("proactor: waiting on close failed: {error}");
                break; // the ring's drop waits, or leaks, what is left
            }
            self.selector_poll.set(None); // cancelled too: not submitted again
            self.dispatch();
            let left = self.ring.borrow().in_flight();
            if left > 0 {
                scaffold::warn!("proactor: {left} operations still running after closing");
            }
        }
    }
    // ANCHOR_END: close
}
