//! What can go wrong, as one error enum, and how a panic becomes one (book chapter 5,
//! "When a callback fails"; asyncio's `Handle._run` and `call_exception_handler`).
//!
//! asyncio raises `RuntimeError("Event loop is closed")`, `InvalidStateError`,
//! `CancelledError`, `TimeoutError`, `QueueFull`, `QueueEmpty`... Here every one of them is
//! a variant of [`Error`], whose `Display` is asyncio's message, so a reader can grep
//! asyncio's source for it. Errors are `Clone` (cheaply: the payloads sit behind `Rc`) because a
//! future hands the same outcome to every awaiter, as asyncio hands the same exception.
//!
//! The second half of this module is what replaces Python's `except BaseException`: a
//! callback that panics is caught with [`catch_unwind`](std::panic::catch_unwind) and its
//! message becomes an [`Error::Panic`] that the loop hands to its exception handler.
//!
//! What changed since stage 4: stage 4 let a panicking callback take the whole scheduler
//! down, like the first schedulers of Beazley's talk. asyncio's loop survives it, and so does ours.

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Once;

/// Everything the event loop, its futures and its queue can report.
#[derive(Clone)]
pub enum Error {
    /// `call_*`, `run_*` or `create_task` on a closed loop.
    Closed,
    /// `run_forever`/`run_until_complete`/`run_once` on a loop that is already running.
    AlreadyRunning,
    /// `run_*` while another loop runs on the same thread (it would block that loop).
    AnotherLoopRunning,
    /// `close()` while the loop runs.
    CloseRunning,
    /// `run_until_complete`: the loop stopped (someone called `stop()`) first.
    StoppedBeforeComplete,
    /// A delay or a time that is not a number.
    NanTime,
    /// `run_until_complete` of a future that belongs to another loop (or to a loop that
    /// is gone): this loop would wait for it for ever. asyncio's `ValueError`.
    DifferentLoop,
    /// A task awaited a pending future of another loop, which would never wake it:
    /// asyncio's `RuntimeError`, thrown into the coroutine.
    ForeignFuture,
    /// A task awaited its own output, which would wait for ever: asyncio's
    /// `RuntimeError`, thrown into the coroutine.
    AwaitsItself,
    /// `set_result` on a done future, `result` of a pending one...: asyncio's
    /// `InvalidStateError`, with its message.
    InvalidState(&'static str),
    /// The future (or the task) was cancelled: asyncio's `CancelledError`.
    Cancelled,
    /// `wait_for` or `timeout` ran out of time: asyncio's `TimeoutError`.
    Timeout,
    /// `get_nowait` on an empty queue: asyncio's `QueueEmpty`.
    QueueEmpty,
    /// A task's future or a callback panicked; the panic message.
    Panic(Rc<str>),
    /// On the virtual clock, the loop has nothing ready, no timer and nothing to select
    /// on: no event can ever come, and waiting would hang forever (see `run_once`).
    NothingToWaitFor,
    /// A system call failed: the selector, a descriptor that cannot be watched, a socket
    /// operation, `accept`.
    Io(Rc<io::Error>),
    /// `add_signal_handler` with a number that is no signal: asyncio's `ValueError`.
    InvalidSignal(i32),
    /// `add_signal_handler` for a signal that cannot be caught (`SIGKILL`, `SIGSTOP`, and
    /// those signal-hook refuses): asyncio's `RuntimeError`.
    UncatchableSignal(i32),
    /// An error of the program's own, set with `Future::set_exception`.
    Custom(Rc<dyn std::error::Error>),
}

impl Error {
    /// Wrap an error of the program's own, for [`Future::set_exception`](crate::Future::set_exception).
    pub fn custom(error: impl std::error::Error + 'static) -> Error {
        Error::Custom(Rc::new(error))
    }

    /// Wrap a message as an error of the program's own.
    pub fn msg(message: impl Into<String>) -> Error {
        Error::custom(Message(message.into()))
    }

    /// True for [`Error::Cancelled`].
    pub fn is_cancelled(&self) -> bool {
        matches!(self, Error::Cancelled)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Closed => f.write_str("Event loop is closed"),
            Error::AlreadyRunning => f.write_str("This event loop is already running"),
            Error::AnotherLoopRunning => {
                f.write_str("Cannot run the event loop while another loop is running")
            }
            Error::CloseRunning => f.write_str("Cannot close a running event loop"),
            Error::StoppedBeforeComplete => {
                f.write_str("Event loop stopped before Future completed.")
            }
            Error::NanTime => f.write_str("Invalid delay or time: NaN"),
            Error::AwaitsItself => f.write_str("Task cannot await on itself"),
            Error::ForeignFuture => f.write_str("Task got Future attached to a different loop"),
            Error::DifferentLoop => f.write_str(
                "The future belongs to a different loop than the one specified as the loop argument",
            ),
            Error::InvalidState(message) => write!(f, "invalid state: {message}"),
            Error::Cancelled => f.write_str("CancelledError"),
            Error::Timeout => f.write_str("TimeoutError"),
            Error::QueueEmpty => f.write_str("QueueEmpty"),
            Error::Panic(message) => write!(f, "panicked: {message}"),
            Error::NothingToWaitFor => f.write_str(
                "Event loop would wait forever: nothing ready, no timer, no I/O (virtual clock)",
            ),
            // The operating system's own words; where it happened is the caller's to say
            // (the exception handler's message: "socket.accept() failed", ...).
            Error::Io(error) => error.fmt(f),
            Error::InvalidSignal(sig) => write!(f, "invalid signal number {sig}"),
            Error::UncatchableSignal(sig) => write!(f, "sig {sig} cannot be caught"),
            Error::Custom(error) => error.fmt(f),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(error: io::Error) -> Self {
        Error::Io(Rc::new(error))
    }
}

/// `put_nowait` on a full queue: asyncio's `QueueFull`. It hands the item back, so
/// nothing is lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueFull<T>(pub T);

impl<T> fmt::Display for QueueFull<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("QueueFull")
    }
}

impl<T: fmt::Debug> std::error::Error for QueueFull<T> {}

#[derive(Debug)]
struct Message(String);

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Message {}

// ANCHOR: catch
thread_local! {
    /// How many `catch` calls this thread is inside: their panics are reported by the loop.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
}

static QUIET_HOOK: Once = Once::new();

/// Run `f`, turning a panic into [`Error::Panic`] with the panic's message.
///
/// Why it is sound to go on after a caught panic (`AssertUnwindSafe`): the loop never lends
/// its own state to a callback (every `RefCell` borrow of the loop ends before a callback
/// is called), so the loop is intact. What the callback captured unwinds and is dropped;
/// shared state it was changing (an `Rc<RefCell<..>>` it holds) may be left half-updated,
/// which is exactly the situation of a Python callback that raised halfway: asyncio goes on,
/// and reports it. Memory safety is never at stake, only the program's own invariants.
///
/// The default panic hook would also print `thread 'main' panicked at ...` on standard
/// error, before the loop reports the same panic through its exception handler: two
/// reports, one of them impossible to silence or capture. So, once per process, we put a
/// hook in front of the existing one that stays quiet for panics raised inside `catch`,
/// and only those; every other panic, on any thread, is printed as before. A thread that is
/// panicking may not touch the hook (it would be a second panic, in a destructor: an
/// abort), so a `catch` called while a panic unwinds (a loop dropped by it) leaves that to
/// a later one.
///
/// Inlined, and all but the catch itself out of the way (the hook is asked for first, and
/// once it is in, nothing else is asked): every handle the loop runs and every step of a
/// task passes here, and a call costs more than the catch.
#[inline]
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, Error> {
    if !QUIET_HOOK.is_completed() && !std::thread::panicking() {
        quiet_hook();
    }
    CATCHING.with(|c| c.set(c.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(c.get() - 1));
    result.map_err(panicked)
}

/// Put the hook that stays quiet inside `catch` in front of the existing one, once.
#[cold]
fn quiet_hook() {
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

/// A caught panic as an error, with the panic's message.
#[cold]
fn panicked(payload: Box<dyn Any + Send>) -> Error {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).into()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.as_str().into()
    } else {
        "(a panic without a message)".into()
    };
    Error::Panic(message)
}
// ANCHOR_END: catch

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_asyncios() {
        assert_eq!(Error::Closed.to_string(), "Event loop is closed");
        assert_eq!(
            Error::StoppedBeforeComplete.to_string(),
            "Event loop stopped before Future completed."
        );
        assert_eq!(
            Error::AlreadyRunning.to_string(),
            "This event loop is already running"
        );
        assert_eq!(Error::msg("boom").to_string(), "boom");
        assert_eq!(QueueFull(3).to_string(), "QueueFull");
        let emfile = io::Error::from_raw_os_error(libc::EMFILE);
        assert_eq!(
            Error::from(emfile).to_string(),
            "Too many open files (os error 24)"
        );
    }

    #[test]
    fn catch_turns_a_panic_into_its_message() {
        let caught = catch(|| -> u32 { panic!("boom {}", 1) });
        assert!(matches!(caught, Err(Error::Panic(ref m)) if &**m == "boom 1"));
        let literal = catch(|| panic!("plain"));
        assert!(matches!(literal, Err(Error::Panic(ref m)) if &**m == "plain"));
        assert_eq!(catch(|| 7).unwrap(), 7);
        // Nested catches unwind to the innermost one and leave the counter balanced.
        let outer = catch(|| catch(|| panic!("inner")).is_err());
        assert!(outer.unwrap());
        assert_eq!(CATCHING.with(Cell::get), 0);
    }
}
