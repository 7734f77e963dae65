//! When a callback fails: the exception handler and the logger (book chapter 5, "When a
//! callback fails"; asyncio's `Handle._run` and `call_exception_handler`, its
//! `default_exception_handler` and `set_debug`).
//!
//! A callback that raises does not stop an asyncio loop: `Handle._run` catches the
//! exception and hands it to `call_exception_handler`, which calls the handler the program
//! set, or the default one, which logs it. A handler that raises is itself reported by the
//! default handler; a logger that raises is caught too. Nothing a callback, a handler or a
//! logger does can take the loop down.
//!
//! What changed since stage 4: stage 4 had no way to report a failure; a panic ended the
//! program.

use std::fmt;
use std::rc::Rc;

use crate::errors::{Error, catch};
use crate::event_loop::{EventLoop, Handle};

/// What the loop tells its exception handler: asyncio's `context` dict, with the keys the
/// loop uses. A Rust panic is the `exception`: [`Error::Panic`] with the panic's message,
/// where Python would have the exception object.
#[derive(Clone, Debug, Default)]
pub struct ExceptionContext {
    /// What happened: `Exception in callback <Handle c3>`.
    pub message: String,
    /// The error, for a panic the panic's message.
    pub exception: Option<Error>,
    /// The handle whose callback failed, if a callback failed.
    pub handle: Option<Handle>,
    /// The task concerned, as its trace names it (`<Task t2>`), if a task is.
    pub task: Option<String>,
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

/// The default logger: `ERROR:asyncio:message` on standard error, as Python's logging
/// prints it by default. Through [`scaffold::warn!`], never `eprintln!`: the loop never
/// blocks on its own output, and a standard error nobody reads (a full pipe) would stop it
/// at the next error it logs. A line that does not fit is dropped and counted; the count
/// is told when the program ends.
pub(super) fn log_to_stderr(_: &EventLoop, level: Level, message: &str) {
    scaffold::warn!("{level}:asyncio:{message}");
}

impl EventLoop {
    /// A callback panicked (`run_handle`): tell the exception handler.
    #[cold] // out of the busy loop's way
    pub(super) fn callback_failed(&self, handle: &Handle, error: Error) {
        self.call_exception_handler(&ExceptionContext {
            message: format!("Exception in callback {handle}"),
            exception: Some(error),
            handle: Some(handle.clone()),
            task: None,
        });
    }

    // ANCHOR: exception_handler
    /// Set the exception handler (`None`: back to the default one).
    pub fn set_exception_handler(&self, handler: Option<ExceptionHandler>) {
        *self.inner.settings.exception_handler.borrow_mut() = handler;
    }

    /// Report an error: to the custom handler if there is one, else to the default one. A
    /// custom handler that panics is itself reported, by the default handler, as
    /// "Unhandled error in exception handler"; the loop goes on.
    pub fn call_exception_handler(&self, context: &ExceptionContext) {
        let handler = self.inner.settings.exception_handler.borrow().clone();
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
                task: context.task.clone(),
            });
        }
    }

    /// The default exception handler: log the message, then a `key: value` line for each
    /// other key of the context, then the exception, as asyncio's
    /// `default_exception_handler` logs the message, the keys, and the traceback that ends
    /// with the exception.
    pub fn default_exception_handler(&self, context: &ExceptionContext) {
        let mut lines = vec![context.message.clone()];
        if let Some(handle) = &context.handle {
            lines.push(format!("handle: {handle}"));
        }
        if let Some(task) = &context.task {
            lines.push(format!("task: {task}"));
        }
        if let Some(exception) = &context.exception {
            lines.push(exception.to_string());
        }
        self.log(Level::Error, &lines.join("\n"));
    }
    // ANCHOR_END: exception_handler

    /// Send the loop's log lines to `logger` instead of standard error (asyncio's logger
    /// is a `logging.Logger`; tests capture it, as CPython's tests patch it).
    pub fn set_logger(&self, logger: impl Fn(&EventLoop, Level, &str) + 'static) {
        *self.inner.settings.logger.borrow_mut() = Rc::new(logger);
    }

    /// Log a line through the logger. A logger that panics is caught like a callback:
    /// the line goes to standard error instead, with the panic, and the loop goes on
    /// (asyncio's logging module does the same with a handler that raises).
    pub(super) fn log(&self, level: Level, message: &str) {
        let logger = self.inner.settings.logger.borrow().clone();
        if let Err(error) = catch(|| logger(self, level, message)) {
            let note = format!("{message}\n(the loop's logger panicked: {error})");
            log_to_stderr(self, level, &note);
        }
    }

    /// Debug mode on or off: in debug mode the loop times every callback.
    pub fn set_debug(&self, debug: bool) {
        self.inner.settings.debug.set(debug);
    }

    /// True in debug mode.
    pub fn get_debug(&self) -> bool {
        self.inner.settings.debug.get()
    }

    /// In debug mode, report callbacks that run this long or longer (seconds).
    pub fn set_slow_callback_duration(&self, seconds: f64) {
        self.inner.settings.slow_callback_duration.set(seconds);
    }
}
