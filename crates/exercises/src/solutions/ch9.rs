//! Chapter 9's exercises, solved (book chapter 9, asyncio on our loop; asyncio's `events.py`,
//! `Handle._run`, and `base_events.py`, `call_soon_threadsafe`). Each item below is a stub
//! that compiles and does the wrong thing; `tests/ch9.rs` says what the right thing is.
//! They need no Python: a Python callback is played by a Rust closure that returns what it
//! raised, and scratchloop's core by a [`Core`] over stage 5's loop, through the same
//! methods scratchloop's core calls. Run one with `cargo run -p exercises -- run 9.1`.
//!
//! What changed since chapter 8's exercises: the loop is the floor of someone else's
//! tower. asyncio decides what a callback's exception does and in what order another
//! thread's callbacks run; stage 5 must do as asyncio does, not as a Rust program would.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use stage5::{Error, EventLoop, ExceptionContext, Handle};

/// What a Python callback raised, reduced to what the loop needs to know: its class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Raised {
    /// An `Exception` (`ValueError`, `KeyError`, ...), with its `repr`.
    Exception(String),
    /// A `BaseException` that is not an `Exception`: a `CancelledError` raised by a plain
    /// callback, `GeneratorExit`, or a program's own subclass; with its `repr`.
    BaseException(String),
    /// `SystemExit`.
    SystemExit,
    /// `KeyboardInterrupt`.
    KeyboardInterrupt,
}

impl fmt::Display for Raised {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Raised::Exception(repr) | Raised::BaseException(repr) => f.write_str(repr),
            Raised::SystemExit => f.write_str("SystemExit()"),
            Raised::KeyboardInterrupt => f.write_str("KeyboardInterrupt()"),
        }
    }
}

/// scratchloop's core, cut down: stage 5's loop, and the exception a callback raised that
/// `run_forever` must raise once stage 5's `run_forever` has returned.
#[derive(Clone)]
pub struct Core {
    /// Stage 5's loop.
    pub lp: EventLoop,
    /// What `run_forever` raises; the first one kept wins.
    pub kept: Rc<RefCell<Option<Raised>>>,
}

impl Core {
    /// A core over `lp`, nothing kept.
    pub fn new(lp: &EventLoop) -> Core {
        Core {
            lp: lp.clone(),
            kept: Rc::default(),
        }
    }

    /// asyncio's `call_soon` of a Python callback named `name`: stage 5's `call_soon` of a
    /// closure that runs it and hands what it raised to [`failed`].
    pub fn call_soon(
        &self,
        name: &'static str,
        callback: impl FnOnce() -> Result<(), Raised> + 'static,
    ) -> Result<Handle, Error> {
        let kept = self.kept.clone();
        self.lp.call_soon(move |lp| {
            if let Err(raised) = callback() {
                failed(lp, &kept, name, raised);
            }
        })
    }

    /// Stage 5's `run_forever`, then what a callback kept for it, if one did.
    pub fn run_forever(&self) -> Result<(), Raised> {
        let ran = self.lp.run_forever();
        if let Some(raised) = self.kept.borrow_mut().take() {
            return Err(raised);
        }
        ran.map_err(|error| Raised::Exception(format!("RuntimeError('{error}')")))
    }
}

/// Exercise 9.1, a callback's exception, sorted: what asyncio's `Handle._run` does with
/// what callback `name` raised. `SystemExit` and `KeyboardInterrupt` leave `run_forever`:
/// keep the first of them in `kept` and stop the loop. Anything else goes to the loop's
/// exception handler, `Exception in callback NAME` with what was raised, and the loop goes
/// on.
///
/// Solved: `Handle._run` catches `(SystemExit, KeyboardInterrupt)` and re-raises them, and
/// catches `BaseException` for everything else; the order of its two `except` clauses is
/// this `match`.
pub fn failed(lp: &EventLoop, kept: &RefCell<Option<Raised>>, name: &str, raised: Raised) {
    match raised {
        Raised::SystemExit | Raised::KeyboardInterrupt => {
            kept.borrow_mut().get_or_insert(raised);
            lp.stop();
        }
        Raised::Exception(_) | Raised::BaseException(_) => {
            lp.call_exception_handler(&ExceptionContext {
                message: format!("Exception in callback {name}: {raised}"),
                ..ExceptionContext::default()
            });
        }
    }
}

/// Exercise 9.2, `call_soon_threadsafe`'s order: the core's `call_soon` of a Rust callback.
/// asyncio's `call_soon_threadsafe` appends to the ready queue at once, from the other
/// thread; stage 5's leaves its callback in the remote queue, which the loop moves to the
/// ready queue in step 3 of its next iteration. A `call_soon_threadsafe` made before a
/// `call_soon` must still run first.
///
/// Solved: what other threads queued before this call goes to the ready queue first
/// (`take_remote_calls`), as scratchloop's core does.
pub fn call_soon(
    lp: &EventLoop,
    callback: impl FnOnce(&EventLoop) + 'static,
) -> Result<Handle, Error> {
    lp.take_remote_calls();
    lp.call_soon(callback)
}
