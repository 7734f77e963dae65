//! The streams' two errors (book chapter 8, "Streams"; asyncio's `exceptions.py`:
//! `IncompleteReadError`, `LimitOverrunError`).
//!
//! Both carry what the caller needs to go on: the bytes read before the end of the stream,
//! and how far the buffer was searched before the limit. They travel inside the loop's
//! [`Error::Custom`]; [`IncompleteReadError::of`] and [`LimitOverrunError::of`] find them
//! there.
//!
//! What changed from chapter 7: `sock_recv` returned an empty vector at the end of the
//! stream and had no limit; a stream's reads promise a size or a separator, and these are
//! how they fail to keep the promise.

use std::fmt;

use crate::errors::Error;

/// The stream ended before `readexactly` had `expected` bytes, or before `readuntil` found
/// its separator (`expected` is then `None`). `partial` is what was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncompleteReadError {
    /// The bytes read before the end of the stream (taken out of the buffer).
    pub partial: Vec<u8>,
    /// How many bytes were asked for; `None` for a separator.
    pub expected: Option<usize>,
}

/// The separator was not found within the stream's limit. `consumed` bytes of the buffer
/// were searched; they are still in the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitOverrunError {
    /// asyncio's message.
    pub message: &'static str,
    /// How many bytes the search went through.
    pub consumed: usize,
}

impl fmt::Display for IncompleteReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = self.expected.map_or("None".to_owned(), |n| n.to_string());
        write!(
            f,
            "{} bytes read on a total of {expected} expected bytes",
            self.partial.len()
        )
    }
}

impl fmt::Display for LimitOverrunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }
}

impl std::error::Error for IncompleteReadError {}
impl std::error::Error for LimitOverrunError {}

impl IncompleteReadError {
    /// The `IncompleteReadError` inside `error`, if it is one.
    pub fn of(error: &Error) -> Option<&IncompleteReadError> {
        match error {
            Error::Custom(custom) => custom.downcast_ref(),
            _ => None,
        }
    }
}

impl LimitOverrunError {
    /// The `LimitOverrunError` inside `error`, if it is one.
    pub fn of(error: &Error) -> Option<&LimitOverrunError> {
        match error {
            Error::Custom(custom) => custom.downcast_ref(),
            _ => None,
        }
    }
}
