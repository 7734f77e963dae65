//! The event loop: asyncio's `BaseEventLoop` (book chapter 5; seed 000, "任务执行" and
//! "调用 call_xx", seed 001, "EventLoop 核心调度机制", seed 002, "asyncio 事件循环实现").
//!
//! Two collections, a selector and one function, as in CPython:
//!
//! - `ready`: a FIFO of [`Handle`]s to run in the next batch (`call_soon` appends);
//! - `scheduled`: a heap of timers ordered by `(when, sequence)` (`call_later`, `call_at`);
//! - `selector`: the OS selector, which is also how the loop sleeps until its next timer;
//! - [`EventLoop::run_once`]: one iteration, in CPython's five steps. `run_forever` calls it
//!   until `stop()`; `run_until_complete` is `run_forever` plus a done callback that stops.
//!
//! What changed since stage 4: stage 4's scheduler drained its ready queue to the bottom,
//! including callbacks added while draining, and checked timers only when it ran dry, so a
//! callback that kept re-scheduling itself starved every timer and every socket. asyncio
//! runs a fixed batch per iteration (`ntodo`): what a callback schedules runs in the *next*
//! iteration, after another look at the timers and the selector. Callbacks get handles they
//! can cancel, panics are caught and reported, time is asyncio's `float` seconds at the API,
//! and the loop can be stopped, restarted and closed.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Waker;
use std::time::Duration;

use stage1::{Clock, RealClock, Timer};
use stage4::Interest;

use crate::errors::{Error, catch};
use crate::future::Future;
use crate::handle::{Handle, TimerHandle};
use crate::readers::{IoTable, Waiter};
use crate::selector::Selector;
use crate::self_pipe::{self, SelfPipe, Shared};
use crate::signals::{self, SignalHandler};
use crate::task::{self, TaskRegistry};

/// Below this many scheduled timers the heap is never rebuilt (CPython's
/// `_MIN_SCHEDULED_TIMER_HANDLES`).
pub const MIN_SCHEDULED_TIMER_HANDLES: usize = 100;

/// The heap is rebuilt when more than this fraction of its timers are cancelled (CPython's
/// `_MIN_CANCELLED_TIMER_HANDLES_FRACTION`).
pub const MIN_CANCELLED_TIMER_HANDLES_FRACTION: f64 = 0.5;

/// The longest a single `select` waits, even if the next timer is further away (CPython's
/// `MAXIMUM_SELECT_TIMEOUT`, 24 hours).
pub const MAXIMUM_SELECT_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// The clock's resolution: a timer is due when `when < now + CLOCK_RESOLUTION`. CPython
/// reads it from `time.get_clock_info('monotonic')`, 1 ns on Linux; our clocks count in
/// nanoseconds too.
pub const CLOCK_RESOLUTION: Duration = Duration::from_nanos(1);

/// A debug-mode callback that runs at least this long is reported (asyncio's default
/// `slow_callback_duration`), in seconds.
pub const DEFAULT_SLOW_CALLBACK_DURATION: f64 = 0.1;

/// What the loop tells its exception handler: asyncio's `context` dict.
#[derive(Clone, Debug)]
pub struct ExceptionContext {
    /// What happened: `Exception in callback <Handle #3>`.
    pub message: String,
    /// The error, for a panic the panic's message.
    pub exception: Option<Error>,
    /// The handle whose callback failed, if a callback failed.
    pub handle: Option<Handle>,
}

/// An exception handler: asyncio's `handler(loop, context)`.
pub type ExceptionHandler = Rc<dyn Fn(&EventLoop, &ExceptionContext)>;

/// The severity of a line the loop logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// asyncio's `logger.warning`: slow callbacks in debug mode.
    Warning,
    /// asyncio's `logger.error`: what the default exception handler reports.
    Error,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Warning => "WARNING",
            Level::Error => "ERROR",
        })
    }
}

/// Where the loop's log lines go: asyncio's `logging.getLogger('asyncio')`.
pub type Logger = Rc<dyn Fn(&EventLoop, Level, &str)>;

/// The event loop. Cloning gives another handle to the same loop (an `Rc`), which is how
/// asyncio-style code "captures the loop".
#[derive(Clone)]
pub struct EventLoop {
    pub(crate) inner: Rc<LoopInner>,
}

// ANCHOR: state
pub(crate) struct LoopInner {
    pub(crate) id: u64,
    pub(crate) clock: Rc<dyn Clock>,
    pub(crate) ready: RefCell<VecDeque<Handle>>, // asyncio's `_ready`
    scheduled: RefCell<BinaryHeap<Timer<Handle>>>, // asyncio's `_scheduled`
    timer_cancelled_count: Cell<usize>,
    sequence: Cell<u64>, // tie-breaker for equal `when`s
    next_handle_id: Cell<u64>,
    pub(crate) iteration: Cell<u64>,
    stopping: Cell<bool>,
    running: Cell<bool>,
    closed: Cell<bool>,
    debug: Cell<bool>,
    slow_callback_duration: Cell<f64>,
    exception_handler: RefCell<Option<ExceptionHandler>>,
    logger: RefCell<Logger>,
    pub(crate) selector: RefCell<Selector>,
    pub(crate) tasks: RefCell<TaskRegistry>,
    pub(crate) trace: bool, // `--trace`, read once at construction
    // Chapter 7: I/O, threads, signals.
    pub(crate) io: RefCell<IoTable>, // readers and writers, by file descriptor
    pub(crate) self_pipe: SelfPipe,  // its read end, watched by `read_from_self`
    pub(crate) shared: Arc<Shared>,  // what other threads touch: queue, write end
    pub(crate) signals: RefCell<BTreeMap<i32, SignalHandler>>,
    io_ready: RefCell<(Vec<Handle>, Vec<Waker>)>, // step 3's dispatch buffers
    pub(crate) scratch: RefCell<Vec<u8>>,         // `sock_recv` reads here first
}
// ANCHOR_END: state

static NEXT_LOOP_ID: AtomicU64 = AtomicU64::new(1);

impl EventLoop {
    /// A loop on the real clock.
    pub fn new() -> EventLoop {
        EventLoop::with_clock(RealClock::new())
    }

    /// A loop on `clock`. Whether it traces its steps is decided now, from this thread's
    /// console (`--trace`), so create the loop after installing the console.
    ///
    /// # Panics
    ///
    /// If the operating system refuses a selector (epoll/kqueue) or the self-pipe, for
    /// instance because the process is out of file descriptors.
    pub fn with_clock(clock: Rc<dyn Clock>) -> EventLoop {
        let selector = Selector::new().expect("cannot create the OS selector (epoll/kqueue)");
        let (self_pipe, shared) =
            self_pipe::make_self_pipe().expect("cannot create the loop's self-pipe");
        let inner = Rc::new(LoopInner {
            id: NEXT_LOOP_ID.fetch_add(1, Ordering::Relaxed),
            clock,
            ready: RefCell::new(VecDeque::new()),
            scheduled: RefCell::new(BinaryHeap::new()),
            timer_cancelled_count: Cell::new(0),
            sequence: Cell::new(0),
            next_handle_id: Cell::new(0),
            iteration: Cell::new(0),
            stopping: Cell::new(false),
            running: Cell::new(false),
            closed: Cell::new(false),
            debug: Cell::new(false),
            slow_callback_duration: Cell::new(DEFAULT_SLOW_CALLBACK_DURATION),
            exception_handler: RefCell::new(None),
            logger: RefCell::new(Rc::new(|_, level, message| {
                eprintln!("{level}:asyncio:{message}")
            })),
            selector: RefCell::new(selector),
            tasks: RefCell::new(TaskRegistry::default()),
            trace: stage1::console::tracing(),
            io: RefCell::new(IoTable::default()),
            self_pipe,
            shared,
            signals: RefCell::new(BTreeMap::new()),
            io_ready: RefCell::new((Vec::new(), Vec::new())),
            scratch: RefCell::new(Vec::new()),
        });
        task::register_loop(&inner);
        let lp = EventLoop { inner };
        lp.watch_self_pipe();
        lp
    }

    // ANCHOR: watch_self_pipe
    /// asyncio's `_make_self_pipe` ends with `_add_reader(self._ssock.fileno(),
    /// self._read_from_self)`. Ours is handle #0, and not traced: it is the loop's own.
    fn watch_self_pipe(&self) {
        use std::os::fd::AsRawFd;
        let fd = self.inner.self_pipe.read_end.as_raw_fd();
        let reader = Handle::new_repeating(0, self_pipe::read_from_self);
        self.inner
            .io
            .borrow_mut()
            .add(
                &mut self.inner.selector.borrow_mut(),
                fd,
                Interest::Read,
                Waiter::Callback(reader),
            )
            .expect("cannot watch the loop's self-pipe");
    }
    // ANCHOR_END: watch_self_pipe

    /// True if something outside the loop may still wake it: a reader or writer besides
    /// the self-pipe's, or a signal handler.
    fn watches_anything(&self) -> bool {
        self.inner.io.borrow().waiters() > 1 || !self.inner.signals.borrow().is_empty()
    }

    /// Put `handle` at the back of the ready queue (asyncio's `_add_callback`).
    pub(crate) fn push_ready(&self, handle: Handle) {
        self.inner.ready.borrow_mut().push_back(handle);
    }

    /// The clock this loop runs on.
    pub fn clock(&self) -> &Rc<dyn Clock> {
        &self.inner.clock
    }

    /// The loop's time, in seconds since its clock started (asyncio's `loop.time()`).
    pub fn time(&self) -> f64 {
        self.inner.clock.now().as_secs_f64()
    }

    /// How many iterations (`run_once` calls) the loop has made; the trace prefixes every
    /// line with it, as `[3]`.
    pub fn iteration(&self) -> u64 {
        self.inner.iteration.get()
    }

    pub(crate) fn next_handle_id(&self) -> u64 {
        let id = self.inner.next_handle_id.get() + 1;
        self.inner.next_handle_id.set(id);
        id
    }

    pub(crate) fn check_closed(&self) -> Result<(), Error> {
        if self.inner.closed.get() {
            Err(Error::Closed)
        } else {
            Ok(())
        }
    }

    fn check_running(&self) -> Result<(), Error> {
        if self.inner.running.get() {
            Err(Error::AlreadyRunning)
        } else {
            Ok(())
        }
    }

    // ANCHOR: call_soon
    /// Run `callback` in the next batch, after the callbacks already waiting: asyncio's
    /// `call_soon`, first in, first out.
    pub fn call_soon(&self, callback: impl FnOnce(&EventLoop) + 'static) -> Result<Handle, Error> {
        self.check_closed()?;
        let handle = Handle::new(self.next_handle_id(), None, callback);
        loop_trace!(&self.inner, "call_soon {handle}");
        self.inner.ready.borrow_mut().push_back(handle.clone());
        Ok(handle)
    }
    // ANCHOR_END: call_soon

    // ANCHOR: call_later
    /// Run `callback` once `delay` seconds have passed: `call_at(time() + delay)`. A
    /// negative delay means now; a NaN delay is an error; an infinite or huge one means
    /// "never" (the deadline saturates instead of overflowing).
    pub fn call_later(
        &self,
        delay: f64,
        callback: impl FnOnce(&EventLoop) + 'static,
    ) -> Result<TimerHandle, Error> {
        if delay.is_nan() {
            return Err(Error::NanTime);
        }
        let when = self.inner.clock.now().saturating_add(seconds(delay));
        self.schedule_at(when, callback)
    }

    /// Run `callback` at `when`, a time on the loop's clock (`loop.time()`). A time in the
    /// past means "as soon as possible", after the handles already ready.
    pub fn call_at(
        &self,
        when: f64,
        callback: impl FnOnce(&EventLoop) + 'static,
    ) -> Result<TimerHandle, Error> {
        if when.is_nan() {
            return Err(Error::NanTime);
        }
        self.schedule_at(seconds(when), callback)
    }

    fn schedule_at(
        &self,
        when: Duration,
        callback: impl FnOnce(&EventLoop) + 'static,
    ) -> Result<TimerHandle, Error> {
        self.check_closed()?;
        let handle = Handle::new(self.next_handle_id(), Some(when), callback);
        let sequence = self.inner.sequence.get() + 1;
        self.inner.sequence.set(sequence);
        loop_trace!(&self.inner, "call_at {handle} seq {sequence}");
        handle.set_scheduled(true);
        self.inner.scheduled.borrow_mut().push(Timer {
            deadline: when,
            sequence,
            item: handle.clone(),
        });
        Ok(TimerHandle::new(handle, Rc::downgrade(&self.inner)))
    }
    // ANCHOR_END: call_later

    /// Run the loop until [`EventLoop::stop`] is called.
    // ANCHOR: run_forever
    pub fn run_forever(&self) -> Result<(), Error> {
        self.check_closed()?;
        self.check_running()?;
        let _running = Running::enter(&self.inner);
        loop_trace!(&self.inner, "run_forever");
        loop {
            self.run_once_inner()?;
            if self.inner.stopping.get() {
                loop_trace!(&self.inner, "stopping: run_forever returns");
                return Ok(());
            }
        }
    }
    // ANCHOR_END: run_forever

    // ANCHOR: run_until_complete
    /// Run the loop until `future` is done; return its result. A [`Task`](crate::Task)
    /// derefs to its future, so `run_until_complete(&task)` works too.
    pub fn run_until_complete<T: Clone + 'static>(&self, future: &Future<T>) -> Result<T, Error> {
        self.check_closed()?;
        self.check_running()?;
        // asyncio's `_run_until_complete_cb`: when the future is done, stop the loop.
        let stopper = future.add_done_callback(|lp, _| lp.stop());
        let ran = self.run_forever();
        future.remove_done_callback(stopper);
        ran?;
        if !future.done() {
            return Err(Error::StoppedBeforeComplete);
        }
        future.result()
    }
    // ANCHOR_END: run_until_complete

    /// Ask the loop to stop: the current iteration finishes (every handle of its batch
    /// runs), then `run_forever` returns. Called before `run_forever`, it makes that
    /// `run_forever` do exactly one iteration.
    pub fn stop(&self) {
        loop_trace!(&self.inner, "stop()");
        self.inner.stopping.set(true);
    }

    /// True while `run_forever` (or `run_until_complete`, or `run_once`) runs.
    pub fn is_running(&self) -> bool {
        self.inner.running.get()
    }

    /// True once `close()` was called.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.get()
    }

    /// Close the loop: drop every pending handle, timer and task. Idempotent. Afterwards
    /// `call_*`, `run_*` and `create_task` fail with [`Error::Closed`]. A running loop
    /// cannot be closed.
    pub fn close(&self) -> Result<(), Error> {
        if self.inner.running.get() {
            return Err(Error::CloseRunning);
        }
        if self.inner.closed.replace(true) {
            return Ok(());
        }
        loop_trace!(&self.inner, "close()");
        // Take everything out first, then drop it: dropping a task's future may run code
        // that looks at the loop again (a `sleep` cancels its timer), and must not find a
        // collection still borrowed.
        let ready = std::mem::take(&mut *self.inner.ready.borrow_mut());
        let scheduled = std::mem::take(&mut *self.inner.scheduled.borrow_mut());
        let tasks = std::mem::take(&mut *self.inner.tasks.borrow_mut());
        // Chapter 7: no more calls from other threads; readers, writers and signal
        // handlers go (asyncio's close removes its signal handlers and the self-pipe).
        self.inner.shared.close();
        let waiters = self
            .inner
            .io
            .borrow_mut()
            .clear(&mut self.inner.selector.borrow_mut());
        let signals = std::mem::take(&mut *self.inner.signals.borrow_mut());
        signals::release_all(signals);
        self.inner.timer_cancelled_count.set(0);
        drop((ready, scheduled, tasks, waiters));
        Ok(())
    }

    // ANCHOR: run_once
    /// One full iteration of the loop, in CPython's five steps. Public so that tests can
    /// drive the loop one iteration at a time; fails on a closed or running loop.
    pub fn run_once(&self) -> Result<(), Error> {
        self.check_closed()?;
        self.check_running()?;
        let _running = Running::enter_once(&self.inner);
        self.run_once_inner()
    }

    fn run_once_inner(&self) -> Result<(), Error> {
        let inner = &*self.inner;
        inner.iteration.set(inner.iteration.get() + 1);
        self.clean_scheduled(); // step 1
        let timeout = self.compute_timeout(); // step 2
        let events = self.select(timeout)?; // step 3
        self.process_events(events);
        self.move_due_timers_to_ready(); // step 4
        self.run_ready(); // step 5
        Ok(())
    }
    // ANCHOR_END: run_once

    // ANCHOR: step1
    /// Step 1: if more than 100 timers are scheduled and more than half of them are
    /// cancelled, rebuild the heap without them; otherwise pop the cancelled ones off the
    /// head, where they would otherwise decide the select timeout.
    fn clean_scheduled(&self) {
        let inner = &*self.inner;
        let mut scheduled = inner.scheduled.borrow_mut();
        let sched_count = scheduled.len();
        let cancelled = inner.timer_cancelled_count.get();
        if sched_count > MIN_SCHEDULED_TIMER_HANDLES
            && cancelled as f64 / sched_count as f64 > MIN_CANCELLED_TIMER_HANDLES_FRACTION
        {
            scheduled.retain(|timer| {
                let keep = !timer.item.cancelled();
                timer.item.set_scheduled(keep);
                keep
            });
            inner.timer_cancelled_count.set(0);
            loop_trace!(
                inner,
                "step 1: {cancelled} of {sched_count} timers cancelled: heap rebuilt with {}",
                scheduled.len()
            );
        } else {
            while scheduled.peek().is_some_and(|timer| timer.item.cancelled()) {
                let timer = scheduled.pop().expect("peeked");
                timer.item.set_scheduled(false);
                let count = inner.timer_cancelled_count.get();
                inner.timer_cancelled_count.set(count.saturating_sub(1));
                loop_trace!(inner, "step 1: drop cancelled {} off the head", timer.item);
            }
        }
    }
    // ANCHOR_END: step1

    // ANCHOR: step2
    /// Step 2: how long step 3 may wait. Not at all if something is ready or the loop is
    /// stopping; until the first timer if there is one (at most 24 h); else without limit.
    fn compute_timeout(&self) -> Option<Duration> {
        let inner = &*self.inner;
        if !inner.ready.borrow().is_empty() || inner.stopping.get() || inner.shared.pending() {
            return Some(Duration::ZERO);
        }
        let scheduled = inner.scheduled.borrow();
        let when = scheduled.peek()?.deadline;
        let now = inner.clock.now();
        Some(when.saturating_sub(now).min(MAXIMUM_SELECT_TIMEOUT))
    }
    // ANCHOR_END: step2

    // ANCHOR: step3
    /// Step 3: wait on the selector for at most `timeout`.
    ///
    /// On the virtual clock, waiting for real would be wrong while a timer is pending
    /// (virtual time does not pass while we wait), so the loop polls without blocking
    /// and, if nothing happened, jumps the clock by `timeout`: to the first timer. With no
    /// timer, nothing ready and nothing watched (no reader or writer besides the loop's
    /// self-pipe, no signal handler), no event can ever come: on the real
    /// clock asyncio would block forever (waiting for another thread or a signal); on the
    /// virtual clock that is a hang in a test, so the iteration fails with
    /// [`Error::NothingToWaitFor`] instead.
    fn select(&self, timeout: Option<Duration>) -> Result<usize, Error> {
        let inner = &*self.inner;
        let mut selector = inner.selector.borrow_mut();
        inner.io.borrow_mut().before_select(&mut selector); // chapter 7: re-arm, release
        if !inner.clock.is_virtual() {
            loop_trace!(inner, "step 3: select(timeout={})", Secs(timeout));
            return Ok(selector.select(timeout)?);
        }
        let watching = self.watches_anything();
        match timeout {
            None if !watching => {
                loop_trace!(
                    inner,
                    "step 3: nothing ready, no timer, no I/O: nothing to wait for"
                );
                Err(Error::NothingToWaitFor)
            }
            None => {
                // Only I/O can end this wait; it comes from outside, in real time.
                loop_trace!(inner, "step 3: select(timeout=None)");
                Ok(selector.select(None)?)
            }
            Some(timeout) => {
                let events = selector.select(Some(Duration::ZERO))?;
                if events == 0 && timeout > Duration::ZERO {
                    let target = inner.clock.now().saturating_add(timeout);
                    inner.clock.sleep_until(target);
                    loop_trace!(
                        inner,
                        "step 3: select(timeout={}): no event, virtual clock jumps to {:.3}",
                        Secs(Some(timeout)),
                        target.as_secs_f64()
                    );
                } else {
                    loop_trace!(
                        inner,
                        "step 3: select(timeout={}): {events} events",
                        Secs(Some(timeout))
                    );
                }
                Ok(events)
            }
        }
    }

    /// Step 3, second half: first what other threads queued (asyncio put it in the ready
    /// queue when they called), then the selector's events: readers' and writers' handles
    /// to the ready queue, waiting tasks woken (chapter 7).
    fn process_events(&self, events: usize) {
        self_pipe::drain_remote(self);
        if events == 0 {
            return;
        }
        let inner = &*self.inner;
        let mut buffers = inner.io_ready.borrow_mut();
        let (handles, wakers) = &mut *buffers;
        inner
            .io
            .borrow_mut()
            .process_events(&mut inner.selector.borrow_mut(), handles, wakers);
        if !handles.is_empty() {
            let mut ready = inner.ready.borrow_mut();
            for handle in handles.drain(..) {
                loop_trace!(inner, "step 3: {handle} is ready");
                ready.push_back(handle);
            }
        }
        for waker in wakers.drain(..) {
            waker.wake();
        }
    }
    // ANCHOR_END: step3

    // ANCHOR: step4
    /// Step 4: move every timer that is due (`when < now + clock resolution`) to the
    /// ready queue, earliest first; cancelled ones too (step 5 skips them).
    fn move_due_timers_to_ready(&self) {
        let inner = &*self.inner;
        let mut scheduled = inner.scheduled.borrow_mut();
        // CPython reads the clock here every iteration. With no timer there is nothing to
        // compare it with, and a loop busy with callbacks (W2 of the benchmarks) saves a
        // clock read per iteration, about a fifth of an iteration's own cost.
        if scheduled.is_empty() {
            return;
        }
        let end_time = inner.clock.now().saturating_add(CLOCK_RESOLUTION);
        let mut ready = inner.ready.borrow_mut();
        while scheduled
            .peek()
            .is_some_and(|timer| timer.deadline < end_time)
        {
            let timer = scheduled.pop().expect("peeked");
            timer.item.set_scheduled(false);
            loop_trace!(inner, "step 4: {} is due: to the ready queue", timer.item);
            ready.push_back(timer.item);
        }
    }
    // ANCHOR_END: step4

    // ANCHOR: step5
    /// Step 5: run the handles that are ready now (`ntodo` of them), skipping cancelled
    /// ones. Whatever they schedule goes to the back of the ready queue and runs in the
    /// next iteration, after another select.
    fn run_ready(&self) {
        let inner = &*self.inner;
        let ntodo = inner.ready.borrow().len();
        for _ in 0..ntodo {
            // The borrow ends with the statement: the callback will call `call_soon`.
            let next = inner.ready.borrow_mut().pop_front();
            let Some(handle) = next else { break };
            if handle.cancelled() {
                loop_trace!(inner, "step 5: skip cancelled {handle}");
                continue;
            }
            loop_trace!(inner, "step 5: run {handle}");
            if inner.debug.get() {
                self.run_handle_timed(&handle);
            } else {
                self.run_handle(&handle);
            }
        }
    }
    // ANCHOR_END: step5

    // ANCHOR: run_handle
    /// Run one handle; a panic goes to the exception handler, and the loop goes on
    /// (asyncio's `Handle._run`).
    fn run_handle(&self, handle: &Handle) {
        if let Err(error) = catch(|| handle.run(self)) {
            self.call_exception_handler(&ExceptionContext {
                message: format!("Exception in callback {handle}"),
                exception: Some(error),
                handle: Some(handle.clone()),
            });
        }
    }

    /// Debug mode: run one handle and report it if it took `slow_callback_duration` or
    /// more.
    fn run_handle_timed(&self, handle: &Handle) {
        let start = self.time();
        self.run_handle(handle);
        let took = self.time() - start;
        if took >= self.inner.slow_callback_duration.get() {
            self.log(
                Level::Warning,
                &format!("Executing {handle} took {took:.3} seconds"),
            );
        }
    }
    // ANCHOR_END: run_handle

    // ANCHOR: exception_handler
    /// Set the exception handler (`None`: back to the default one).
    pub fn set_exception_handler(&self, handler: Option<ExceptionHandler>) {
        *self.inner.exception_handler.borrow_mut() = handler;
    }

    /// Report an error: to the custom handler if there is one, else to the default one. A
    /// custom handler that panics is itself reported, by the default handler, as
    /// "Unhandled error in exception handler"; the loop goes on.
    pub fn call_exception_handler(&self, context: &ExceptionContext) {
        let handler = self.inner.exception_handler.borrow().clone();
        let Some(handler) = handler else {
            return self.default_exception_handler(context);
        };
        if let Err(error) = catch(|| handler(self, context)) {
            self.default_exception_handler(&ExceptionContext {
                message: format!(
                    "Unhandled error in exception handler (while handling: {})",
                    context.message
                ),
                exception: Some(error),
                handle: context.handle.clone(),
            });
        }
    }

    /// The default exception handler: log `message: exception` as an error.
    pub fn default_exception_handler(&self, context: &ExceptionContext) {
        match &context.exception {
            Some(exception) => self.log(Level::Error, &format!("{}: {exception}", context.message)),
            None => self.log(Level::Error, &context.message),
        }
    }
    // ANCHOR_END: exception_handler

    /// Send the loop's log lines to `logger` instead of standard error (asyncio's logger
    /// is a `logging.Logger`; tests capture it, as CPython's tests patch it).
    pub fn set_logger(&self, logger: impl Fn(&EventLoop, Level, &str) + 'static) {
        *self.inner.logger.borrow_mut() = Rc::new(logger);
    }

    fn log(&self, level: Level, message: &str) {
        let logger = self.inner.logger.borrow().clone();
        logger(self, level, message);
    }

    /// Debug mode on or off: in debug mode the loop times every callback.
    pub fn set_debug(&self, debug: bool) {
        self.inner.debug.set(debug);
    }

    /// True in debug mode.
    pub fn get_debug(&self) -> bool {
        self.inner.debug.get()
    }

    /// In debug mode, report callbacks that run this long or longer (seconds).
    pub fn set_slow_callback_duration(&self, seconds: f64) {
        self.inner.slow_callback_duration.set(seconds);
    }

    /// How many handles wait in the ready queue.
    pub fn ready_len(&self) -> usize {
        self.inner.ready.borrow().len()
    }

    /// How many timers are in the heap, cancelled ones included.
    pub fn scheduled_len(&self) -> usize {
        self.inner.scheduled.borrow().len()
    }

    /// How many timers in the heap are known to be cancelled.
    pub fn timer_cancelled_count(&self) -> usize {
        self.inner.timer_cancelled_count.get()
    }

    /// A new pending future on this loop (asyncio's `loop.create_future()`).
    pub fn create_future<T: 'static>(&self) -> Future<T> {
        Future::new(self)
    }
}

impl LoopInner {
    /// A scheduled timer was cancelled: count it (asyncio's `_timer_handle_cancelled`).
    pub(crate) fn timer_handle_cancelled(&self) {
        self.timer_cancelled_count
            .set(self.timer_cancelled_count.get() + 1);
    }
}

impl Drop for LoopInner {
    fn drop(&mut self) {
        task::unregister_loop(self.id);
        self.shared.close();
        signals::release_all(std::mem::take(self.signals.get_mut()));
    }
}

impl Default for EventLoop {
    fn default() -> Self {
        EventLoop::new()
    }
}

impl fmt::Debug for EventLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "<EventLoop running={} closed={} debug={}>",
            self.is_running(),
            self.is_closed(),
            self.get_debug()
        )
    }
}

/// Marks the loop running for as long as it lives; on the way out (even by a panic of the
/// loop's own), clears `running` and `stopping`, as `run_forever`'s `finally` does.
struct Running<'a> {
    inner: &'a LoopInner,
    clear_stopping: bool,
}

impl<'a> Running<'a> {
    fn enter(inner: &'a LoopInner) -> Running<'a> {
        inner.running.set(true);
        Running {
            inner,
            clear_stopping: true,
        }
    }

    /// For a lone `run_once`: a `stop()` it sees is left for the next `run_forever`.
    fn enter_once(inner: &'a LoopInner) -> Running<'a> {
        inner.running.set(true);
        Running {
            inner,
            clear_stopping: false,
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.inner.running.set(false);
        if self.clear_stopping {
            self.inner.stopping.set(false);
        }
    }
}

/// Seconds as asyncio takes them, to a `Duration`: negative means zero, too large for a
/// `Duration` (or infinite) means the largest one. NaN is rejected before this.
fn seconds(secs: f64) -> Duration {
    if secs <= 0.0 {
        Duration::ZERO
    } else {
        Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
    }
}

/// A select timeout as the trace shows it: `None`, `0` or seconds.
struct Secs(Option<Duration>);

impl fmt::Display for Secs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("None"),
            Some(d) if d.is_zero() => f.write_str("0"),
            Some(d) => write!(f, "{:.3}", d.as_secs_f64()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stage1::VirtualClock;

    fn vloop() -> EventLoop {
        EventLoop::with_clock(VirtualClock::new())
    }

    #[test]
    fn seconds_never_panics() {
        assert_eq!(seconds(-1.0), Duration::ZERO);
        assert_eq!(seconds(f64::NEG_INFINITY), Duration::ZERO);
        assert_eq!(seconds(f64::INFINITY), Duration::MAX);
        assert_eq!(seconds(1e300), Duration::MAX);
        assert_eq!(seconds(0.25), Duration::from_millis(250));
    }

    #[test]
    fn bad_delays_get_an_answer() {
        let lp = vloop();
        assert!(matches!(
            lp.call_later(f64::NAN, |_| {}),
            Err(Error::NanTime)
        ));
        assert!(matches!(lp.call_at(f64::NAN, |_| {}), Err(Error::NanTime)));
        let never = lp.call_later(f64::INFINITY, |_| {}).unwrap();
        let huge = lp.call_at(1e300, |_| {}).unwrap();
        assert!(never.when() > 1e18 && huge.when() > 1e18);
        let now = lp.call_later(-5.0, |_| {}).unwrap();
        assert_eq!(now.when(), 0.0);
        // The huge timers bound the select timeout at 24 h, and nothing overflows.
        lp.run_once().unwrap();
        assert_eq!(lp.scheduled_len(), 2);
        assert_eq!(lp.time(), 0.0);
        lp.run_once().unwrap();
        assert_eq!(lp.time(), MAXIMUM_SELECT_TIMEOUT.as_secs_f64());
    }

    #[test]
    fn an_idle_virtual_loop_does_not_hang() {
        let lp = vloop();
        assert!(matches!(lp.run_forever(), Err(Error::NothingToWaitFor)));
        assert!(!lp.is_running());
        let future: Future<u32> = lp.create_future();
        assert!(matches!(
            lp.run_until_complete(&future),
            Err(Error::NothingToWaitFor)
        ));
    }

    #[test]
    fn running_twice_and_closing_while_running_are_errors() {
        let lp = vloop();
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        lp.call_soon(move |lp| {
            s.borrow_mut()
                .push(lp.run_forever().unwrap_err().to_string());
            s.borrow_mut().push(lp.run_once().unwrap_err().to_string());
            s.borrow_mut().push(lp.close().unwrap_err().to_string());
            assert!(lp.is_running());
            lp.stop();
        })
        .unwrap();
        lp.run_forever().unwrap();
        assert_eq!(
            *seen.borrow(),
            [
                "This event loop is already running",
                "This event loop is already running",
                "Cannot close a running event loop"
            ]
        );
        assert!(!lp.is_running());
    }

    #[test]
    fn the_debug_repr_is_asyncios() {
        assert_eq!(
            format!("{:?}", vloop()),
            "<EventLoop running=false closed=false debug=false>"
        );
    }
}
