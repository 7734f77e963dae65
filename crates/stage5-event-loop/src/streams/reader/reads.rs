//! The stream reader's reads (book chapter 8, "Streams"; asyncio's `streams.py`:
//! `StreamReader.read`, `readexactly`, `readline`, `readuntil`).
//!
//! Each read looks at the buffer, takes what it promised if it is there, and otherwise
//! waits for the protocol to feed more (`wait_for_data`), or fails: with the error the
//! connection was lost with, with [`IncompleteReadError`] at the end of the stream, with
//! [`LimitOverrunError`] past the limit.
//!
//! What changed from chapter 7: `sock_recv` returned whatever one `recv` gave.

use crate::errors::Error;
use crate::streams::errors::{IncompleteReadError, LimitOverrunError};
use crate::streams::reader::StreamReader;

impl StreamReader {
    /// Up to `n` bytes, at least one unless the stream ended (asyncio's `read(n)`); `None`
    /// reads until the end of the stream.
    pub async fn read(&self, n: Option<usize>) -> Result<Vec<u8>, Error> {
        self.check_exception()?;
        let Some(n) = n else {
            let mut all = Vec::new();
            loop {
                let block = Box::pin(self.read(Some(self.inner.limit))).await?;
                if block.is_empty() {
                    return Ok(all);
                }
                all.extend_from_slice(&block);
            }
        };
        if n == 0 {
            return Ok(Vec::new());
        }
        if self.inner.buffer.borrow().is_empty() && !self.inner.eof.get() {
            self.wait_for_data("read").await?;
        }
        let n = n.min(self.inner.buffer.borrow().len());
        Ok(self.take(n))
    }

    /// Exactly `n` bytes (asyncio's `readexactly`); the end of the stream first is an
    /// [`IncompleteReadError`] with what was read.
    pub async fn readexactly(&self, n: usize) -> Result<Vec<u8>, Error> {
        self.check_exception()?;
        while self.inner.buffer.borrow().len() < n {
            if self.inner.eof.get() {
                let partial = std::mem::take(&mut *self.inner.buffer.borrow_mut());
                let expected = Some(n);
                return Err(Error::custom(IncompleteReadError { partial, expected }));
            }
            self.wait_for_data("readexactly").await?;
        }
        Ok(self.take(n))
    }

    /// One line, `\n` included (asyncio's `readline`): at the end of the stream what is
    /// left, maybe without `\n`. Over the limit, the line is thrown away and the error is
    /// the [`LimitOverrunError`] (asyncio turns it into a `ValueError` with its message).
    pub async fn readline(&self) -> Result<Vec<u8>, Error> {
        match self.readuntil(b"\n").await {
            Ok(line) => Ok(line),
            Err(error) => {
                if let Some(e) = IncompleteReadError::of(&error) {
                    return Ok(e.partial.clone());
                }
                if let Some(e) = LimitOverrunError::of(&error) {
                    let mut buffer = self.inner.buffer.borrow_mut();
                    if buffer[e.consumed..].starts_with(b"\n") {
                        buffer.drain(..e.consumed + 1);
                    } else {
                        buffer.clear();
                    }
                    drop(buffer);
                    self.maybe_resume_transport();
                }
                Err(error)
            }
        }
    }

    // ANCHOR: readuntil
    /// Everything up to and including `separator` (asyncio's `readuntil`). Searches only
    /// what is new, and fails with [`LimitOverrunError`] (the data stays buffered) once
    /// more than the limit was searched, or if the separator ends beyond it.
    pub async fn readuntil(&self, separator: &[u8]) -> Result<Vec<u8>, Error> {
        let seplen = separator.len();
        if seplen == 0 {
            return Err(Error::msg("Separator should be at least one-byte string"));
        }
        self.check_exception()?;
        let limit = self.inner.limit;
        let mut offset = 0;
        let isep = loop {
            let buflen = self.inner.buffer.borrow().len();
            if buflen - offset >= seplen {
                let buffer = self.inner.buffer.borrow();
                let found = buffer[offset..]
                    .windows(seplen)
                    .position(|w| w == separator);
                if let Some(i) = found {
                    break offset + i;
                }
                offset = buflen + 1 - seplen;
                if offset > limit {
                    let message = "Separator is not found, and chunk exceed the limit";
                    let error = LimitOverrunError {
                        message,
                        consumed: offset,
                    };
                    return Err(Error::custom(error));
                }
            }
            if self.inner.eof.get() {
                let partial = std::mem::take(&mut *self.inner.buffer.borrow_mut());
                let error = IncompleteReadError {
                    partial,
                    expected: None,
                };
                return Err(Error::custom(error));
            }
            self.wait_for_data("readuntil").await?;
        };
        if isep > limit {
            let message = "Separator is found, but chunk is longer than limit";
            return Err(Error::custom(LimitOverrunError {
                message,
                consumed: isep,
            }));
        }
        Ok(self.take(isep + seplen))
    }
    // ANCHOR_END: readuntil
}
