//! Stage 5's log lines to asyncio's logger (book chapter 9, "The conformance table";
//! asyncio's `log.py`, `logger = logging.getLogger(__package__)`, and `_run_once`'s
//! slow-callback warning in debug mode).
//!
//! Stage 5 logs through a function its owner may replace (`set_logger`): by default a line
//! on standard error. Here the lines go where asyncio's go, to the `asyncio` logger, so a
//! program's logging configuration (or `assertLogs('asyncio')` in a test) sees them: debug
//! mode's `Executing <Handle c7> took 0.120 seconds`, and the report of a Rust panic.
//!
//! What changed from stage 5: its log lines went to standard error; here, to Python's.

use pyo3::prelude::*;
use stage5::{EventLoop, Level};

// ANCHOR: log_to_asyncio
/// Log `message` at `level` on asyncio's logger. A logger that raises is reported as
/// unraisable, as Python reports an exception in a place that cannot raise.
pub fn log_to_asyncio(_: &EventLoop, level: Level, message: &str) {
    Python::attach(|py| {
        let method = match level {
            Level::Warning => "warning",
            Level::Error => "error",
        };
        let logged = py
            .import("asyncio.log")
            .and_then(|log| log.getattr("logger"))
            .and_then(|logger| logger.call_method1(method, (message,)));
        if let Err(error) = logged {
            error.write_unraisable(py, None);
        }
    });
}
// ANCHOR_END: log_to_asyncio
