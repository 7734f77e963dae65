//! The event loop: asyncio's `BaseEventLoop` (book chapter 5; asyncio's
//! `base_events.py`: `BaseEventLoop`, its `call_*`, `_run_once` and `run_forever`).
//!
//! Two collections, a selector and one function, as in CPython:
//!
//! - `ready`: a FIFO of [`Handle`]s to run in the next batch (`call_soon` appends);
//! - `scheduled`: a heap of timers ordered by `(when, sequence)` (`call_later`, `call_at`);
//! - `selector`: the OS selector, which is also how the loop sleeps until its next timer;
//! - [`EventLoop::run_once`]: one iteration, in five steps. `run_forever` calls it until
//!   `stop()`; `run_until_complete` is `run_forever` plus a done callback that stops.
//!
//! This file holds the loop's state, in parts each owned by what uses it (the core's
//! queue, heap and clock; the run state; the settings; the I/O driver's selector, table,
//! self-pipe, remote queue, signals and transports' map), and what every other part needs
//! to reach it; the behaviour is in the files beside it, one topic each:
//!
//! - `scheduling.rs`: `call_soon`, `call_later`, `call_at`;
//! - `exceptions.rs`: the exception handler, the logger, debug mode;
//! - `selector_loop.rs`: the loop's calls to its I/O driver (`io_driver/`), what chapter
//!   7's readers, sockets, threads and signals (and chapter 8's transports) go through;
//! - `weak.rs`: how futures, tasks and wakers find the loop without owning it;
//! - `run_once.rs`: the five steps;
//! - `lifecycle.rs`: `run_forever`, `stop`, `close`;
//! - `reuse.rs`: not asyncio's, what the loop keeps and uses again to allocate less (its
//!   tasks' step handles, step 3's buffers, `sock_recv`'s scratch buffer: "Going further");
//! - `inspect.rs`: not asyncio's, what the loop holds, counted, and listed for a recording
//!   (the introduction's "Watching a run").
//!
//! Below them, and knowing nothing of the loop: `timers.rs` here, the handles in `events/`,
//! and chapter 7's I/O table, self-pipe and signal table in `io_driver/`.
//!
//! Above the futures and tasks (`futures/`), the loop's faces that make and use them, each
//! a folder or file of this one, as asyncio's are methods of its loop classes:
//!
//! - `tasks.rs`: `create_future`, `create_task`; `runners.rs`: `run_until_complete`, `run`
//!   (chapter 6);
//! - `io/`: `add_reader`, `call_soon_threadsafe`, `add_signal_handler`, `sock_*`,
//!   `start_serving` (chapter 7);
//! - `connect.rs`: `create_server`, `create_connection` (chapter 8);
//! - `bridge.rs`: stages 1 to 4's traits on the loop (chapter 5).
//!
//! What changed since stage 4: stage 4's scheduler drained its ready queue to the bottom,
//! including callbacks added while draining, and checked timers only when it ran dry, so a
//! callback that kept re-scheduling itself starved every timer and every socket. asyncio
//! runs a fixed batch per iteration (`ntodo`): what a callback schedules runs in the *next*
//! iteration, after another look at the timers and the selector. Callbacks get handles they
//! can cancel, panics are caught and reported, time is asyncio's `float` seconds at the API,
//! and the loop can be stopped, restarted and closed.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use scaffold::Clock;

use crate::errors::Error;
use crate::events::handle;
use crate::io_driver::driver::IoDriver;
use crate::parts::registry::{Step, TaskKey, TaskRegistry};

pub(crate) mod timers;

// The loop's faces, above futures/ (and connect.rs above transports/).
pub mod bridge;
pub mod connect;
pub mod io;
pub mod runners;
mod tasks;

mod exceptions;
mod inspect;
mod lifecycle;
mod reuse;
mod run_once;
mod running;
mod scheduling;
mod selector_loop;
pub(crate) mod weak;

use exceptions::log_to_stderr;
pub use exceptions::{ExceptionContext, ExceptionHandler, Level, Logger};
pub use run_once::{CLOCK_RESOLUTION, MAXIMUM_SELECT_TIMEOUT};
pub use timers::{MIN_CANCELLED_TIMER_HANDLES_FRACTION, MIN_SCHEDULED_TIMER_HANDLES};

/// A callback scheduled on this loop, which the caller can cancel ([`handle::Handle`]
/// with the loop filled in).
pub type Handle = handle::Handle<EventLoop>;

/// A timer scheduled on this loop ([`handle::TimerHandle`] with the loop filled in).
pub type TimerHandle = handle::TimerHandle<EventLoop>;

/// A debug-mode callback that runs at least this long is reported (asyncio's default
/// `slow_callback_duration`), in seconds.
pub const DEFAULT_SLOW_CALLBACK_DURATION: f64 = 0.1;

/// The event loop. Cloning gives another handle to the same loop (an `Rc`), which is how
/// asyncio-style code "captures the loop".
///
/// The value [`EventLoop::new`] returns *owns* the loop: dropping it closes the loop (as
/// `asyncio.run` closes its loop at the end), whatever clones remain. Tasks and callbacks
/// hold clones, and the loop holds them: without this, a loop that a task captured would
/// keep itself alive through the task, with its descriptors, for ever. A clone used after
/// its owner is gone finds the loop closed.
pub struct EventLoop {
    inner: Rc<LoopInner>,
    owner: bool,
}

// ANCHOR: state_ch5
/// The core: what asyncio's `BaseEventLoop` schedules with, and the clock it reads.
struct Core {
    clock: Rc<dyn Clock>,
    virtual_clock: bool,              // `clock.is_virtual()`, asked once
    ready: RefCell<VecDeque<Handle>>, // asyncio's `_ready`
    scheduled: RefCell<timers::Scheduled<EventLoop>>, // asyncio's `_scheduled`
    next_handle_id: Cell<u64>,
    iteration: Cell<u64>,
}

/// Where the loop is in its life (`lifecycle.rs`).
struct RunState {
    stopping: Cell<bool>,
    running: Cell<bool>,
    closed: Cell<bool>,
}

/// Debug mode, and what hears of failures (`exceptions.rs`).
struct Settings {
    debug: Cell<bool>,
    slow_callback_duration: Cell<f64>,
    exception_handler: RefCell<Option<ExceptionHandler>>,
    logger: RefCell<Logger>,
}

/// The loop's state, each part owned by what uses it.
struct LoopInner {
    core: Core,
    state: RunState,
    settings: Settings,
    // ANCHOR_END: state_ch5
    tasks: RefCell<TaskRegistry<EventLoop>>, // chapter 6: live tasks, by waker key
    io: IoDriver<EventLoop>, // chapter 7: selector, I/O table, self-pipe, signals, transports
    reuse: reuse::Reuse, // not asyncio's: what the loop keeps to allocate less ("Going further")
    running_handle: Cell<Option<scaffold::Id>>, // not asyncio's: for a recording (inspect.rs)
}

impl EventLoop {
    /// The loop's state on `clock`, nothing watched yet (`lifecycle.rs`'s `try_with_clock`
    /// makes it live), or the operating system's reason why not.
    fn assemble(clock: Rc<dyn Clock>) -> Result<EventLoop, Error> {
        let io = IoDriver::new()?;
        let inner = Rc::new(LoopInner {
            core: Core {
                virtual_clock: clock.is_virtual(),
                clock,
                ready: RefCell::new(VecDeque::new()),
                scheduled: RefCell::default(),
                next_handle_id: Cell::new(0),
                iteration: Cell::new(0),
            },
            state: RunState {
                stopping: Cell::new(false),
                running: Cell::new(false),
                closed: Cell::new(false),
            },
            settings: Settings {
                debug: Cell::new(false),
                slow_callback_duration: Cell::new(DEFAULT_SLOW_CALLBACK_DURATION),
                exception_handler: RefCell::new(None),
                logger: RefCell::new(Rc::new(log_to_stderr)),
            },
            tasks: RefCell::default(),
            io,
            reuse: reuse::Reuse::default(),
            running_handle: Cell::new(None),
        });
        scaffold::state::watch(&inner); // a recording reads the loop (`inspect.rs`)
        Ok(EventLoop { inner, owner: true })
    }

    /// The clock this loop runs on.
    pub fn clock(&self) -> &Rc<dyn Clock> {
        &self.inner.core.clock
    }

    /// The loop's time, in seconds since its clock started (asyncio's `loop.time()`).
    pub fn time(&self) -> f64 {
        self.inner.core.clock.now().as_secs_f64()
    }

    /// How many iterations (`run_once` calls) the loop has made; the trace prefixes every
    /// line with it, as `[3]`.
    pub fn iteration(&self) -> u64 {
        self.inner.core.iteration.get()
    }

    /// Report `event` (see `loop_event!`): every line it prints is prefixed with this loop's
    /// iteration, whatever other loop on the thread reported last.
    pub(crate) fn report(&self, event: scaffold::Event) {
        let n = self.inner.core.iteration.get();
        if scaffold::emit::iteration() != Some(n) {
            scaffold::emit::emit(scaffold::Event::Iteration(n));
        }
        scaffold::emit::emit(event);
    }

    /// The number for the next handle: 1, 2, 3, ... (the self-pipe's reader is 0).
    #[inline]
    pub(crate) fn next_handle_id(&self) -> u64 {
        let id = self.inner.core.next_handle_id.get() + 1;
        self.inner.core.next_handle_id.set(id);
        id
    }

    /// `Err(Closed)` once the loop is closed (asyncio's `_check_closed`).
    pub(crate) fn check_closed(&self) -> Result<(), Error> {
        if self.inner.state.closed.get() {
            Err(Error::Closed)
        } else {
            Ok(())
        }
    }

    /// Enter a new task in the live tasks' table (chapter 6; asyncio's `_register_task`):
    /// `make` builds it from its number and its key, under one borrow of the table, so
    /// no other task can take the key meanwhile.
    pub(crate) fn register_task<S: Step<EventLoop> + 'static>(
        &self,
        make: impl FnOnce(u64, TaskKey) -> Rc<S>,
    ) -> Rc<S> {
        let mut tasks = self.inner.tasks.borrow_mut();
        let (id, key) = (tasks.next_id(), tasks.vacant_key());
        let task = make(id, key);
        let inserted = tasks.insert(task.clone());
        debug_assert_eq!(inserted, key);
        task
    }

    /// Take the task under `key` out of the table (asyncio's `_unregister_task`), for the
    /// caller to drop once no borrow is held.
    pub(crate) fn unregister_task(&self, key: TaskKey) -> Option<Rc<dyn Step<EventLoop>>> {
        self.inner.tasks.borrow_mut().remove(key)
    }

    /// The live task under `key`, if any (what a waker wakes).
    pub(crate) fn task(&self, key: TaskKey) -> Option<Rc<dyn Step<EventLoop>>> {
        self.inner.tasks.borrow().get(key).cloned()
    }
}

impl Drop for LoopInner {
    fn drop(&mut self) {
        self.leave_this_thread();
        self.io.shut_down();
    }
}
