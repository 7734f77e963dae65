//! Build it 5.4, solved: one iteration of asyncio's loop, `run_once`, in five steps (book
//! chapter 5, "One iteration: `run_once`" and its five steps; asyncio's `base_events.py`,
//! `BaseEventLoop._run_once`). The reference solution of a build-it exercise; the stub is
//! `src/build/ch5.rs`. `tests/build_ch5.rs` runs one program on your loop and on stage 5's
//! `EventLoop`, both on the virtual clock, and compares what ran, in which iteration, at
//! what time.
//!
//! The skeleton holds asyncio's `_ready` (a FIFO of handles) and `_scheduled` (stage 1's
//! heap, by `(deadline, sequence)`), handles that can be cancelled, the clock, and the loop
//! around `run_once` ([`MiniLoop::run_forever`], bounded by a count). This loop watches no
//! socket, so its step 3, [`MiniLoop::select`], is given: waiting is only letting the time
//! pass. Cancelled timers stay in the heap until step 1 or step 4 meets them, as in
//! asyncio; CPython's rebuild of a heap that is mostly cancelled is left out (it changes
//! how fast the loop is, not what it runs).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use stage1::{Clock, TimerHeap};

/// A callback: runs once, handed the loop.
type Callback = Box<dyn FnOnce(&MiniLoop)>;

/// A callback scheduled on the loop, which the caller can cancel (asyncio's `Handle` and
/// `TimerHandle` in one). Cloning gives another handle to the same callback.
#[derive(Clone)]
pub struct Handle(Rc<HandleInner>);

struct HandleInner {
    cancelled: Cell<bool>,
    callback: Cell<Option<Callback>>,
}

impl Handle {
    fn new(callback: impl FnOnce(&MiniLoop) + 'static) -> Handle {
        Handle(Rc::new(HandleInner {
            cancelled: Cell::new(false),
            callback: Cell::new(Some(Box::new(callback))),
        }))
    }

    /// Cancel it: its callback is dropped and will never run.
    pub fn cancel(&self) {
        self.0.cancelled.set(true);
        self.0.callback.take();
    }

    /// True once it was cancelled.
    pub fn cancelled(&self) -> bool {
        self.0.cancelled.get()
    }

    /// Run the callback (asyncio's `Handle._run`); a handle runs at most once, and a
    /// cancelled one not at all.
    pub fn run(&self, lp: &MiniLoop) {
        if let Some(callback) = self.0.callback.take() {
            callback(lp);
        }
    }
}

/// A small asyncio loop: ready queue, timer heap, clock, and a count of iterations.
pub struct MiniLoop {
    clock: Rc<dyn Clock>,
    ready: RefCell<VecDeque<Handle>>,
    scheduled: RefCell<TimerHeap<Handle>>,
    iteration: Cell<u64>,
    stopping: Cell<bool>,
}

impl MiniLoop {
    /// An empty loop on `clock`.
    pub fn new(clock: Rc<dyn Clock>) -> MiniLoop {
        MiniLoop {
            clock,
            ready: RefCell::default(),
            scheduled: RefCell::new(TimerHeap::new()),
            iteration: Cell::new(0),
            stopping: Cell::new(false),
        }
    }

    /// The loop's time, as time since its clock started.
    pub fn time(&self) -> Duration {
        self.clock.now()
    }

    /// Which iteration is running (1 for the first `run_once`).
    pub fn iteration(&self) -> u64 {
        self.iteration.get()
    }

    /// Run `callback` in the next batch, after the handles already ready.
    pub fn call_soon(&self, callback: impl FnOnce(&MiniLoop) + 'static) -> Handle {
        let handle = Handle::new(callback);
        self.ready.borrow_mut().push_back(handle.clone());
        handle
    }

    /// Run `callback` once `delay` has passed.
    pub fn call_later(
        &self,
        delay: Duration,
        callback: impl FnOnce(&MiniLoop) + 'static,
    ) -> Handle {
        let handle = Handle::new(callback);
        let when = self.time() + delay;
        self.scheduled.borrow_mut().push(when, handle.clone());
        handle
    }

    /// Make `run_forever` return after the iteration that is running.
    pub fn stop(&self) {
        self.stopping.set(true);
    }

    /// Call `run_once` until a callback calls [`MiniLoop::stop`], at most
    /// `max_iterations` times (a test must end even if `run_once` does nothing). True if
    /// it stopped.
    pub fn run_forever(&self, max_iterations: u64) -> bool {
        for _ in 0..max_iterations {
            self.iteration.set(self.iteration.get() + 1);
            self.run_once();
            if self.stopping.replace(false) {
                return true;
            }
        }
        false
    }

    /// Step 3, given: wait for events for at most `timeout`. This loop watches nothing,
    /// so the only event is the time passing: the clock moves on by `timeout` (the
    /// virtual clock jumps, a real one sleeps). `None`, "no limit", would wait for ever
    /// for an event that cannot come; here it returns at once.
    pub fn select(&self, timeout: Option<Duration>) {
        if let Some(timeout) = timeout {
            self.clock.sleep_until(self.clock.now() + timeout);
        }
    }

    /// Build it 5.4: one iteration of the loop, asyncio's five steps.
    ///
    /// 1. Clean the heap: pop the cancelled timers off its head, where they would decide
    ///    the timeout.
    /// 2. Compute the timeout: zero if a handle is ready; otherwise until the first timer
    ///    (zero if it is already due); with no timer, `None`.
    /// 3. [`select`](MiniLoop::select) with that timeout.
    /// 4. Move every timer that is due by now (`deadline <= now`) to the ready queue,
    ///    earliest first, cancelled ones too.
    /// 5. Run the handles that are ready *now*: count them first (`ntodo`), then run
    ///    exactly that many (a cancelled one runs nothing). What they schedule waits for
    ///    the next iteration.
    pub fn run_once(&self) {
        // Step 1: cancelled timers off the head.
        {
            let mut scheduled = self.scheduled.borrow_mut();
            while scheduled.peek().is_some_and(|timer| timer.item.cancelled()) {
                scheduled.pop();
            }
        }
        // Step 2: no waiting while something is ready; else until the first timer.
        let timeout = if self.ready.borrow().is_empty() {
            let first = self.scheduled.borrow().peek().map(|timer| timer.deadline);
            first.map(|when| when.saturating_sub(self.time()))
        } else {
            Some(Duration::ZERO)
        };
        // Step 3.
        self.select(timeout);
        // Step 4: the due timers, earliest first.
        let now = self.time();
        loop {
            let due = self.scheduled.borrow_mut().pop_due(now);
            let Some(timer) = due else { break };
            self.ready.borrow_mut().push_back(timer.item);
        }
        // Step 5: exactly the handles ready now; the borrow ends before each runs.
        let ntodo = self.ready.borrow().len();
        for _ in 0..ntodo {
            let next = self.ready.borrow_mut().pop_front();
            let Some(handle) = next else { break };
            handle.run(self);
        }
    }
}
