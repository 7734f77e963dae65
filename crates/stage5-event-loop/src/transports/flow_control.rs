//! Write flow control: the water marks (book chapter 8, "Flow control"; asyncio's
//! `transports.py`: `_FlowControlMixin`, `_maybe_pause_protocol`,
//! `_maybe_resume_protocol`, `_set_write_buffer_limits`).
//!
//! A transport's `write` never blocks and never refuses: what the socket does not take at
//! once is buffered. So that a peer that stops reading cannot make that buffer grow for
//! ever, asyncio tells the protocol when the buffer goes *over* the high-water mark
//! (`pause_writing`) and when it drains back *to* the low-water mark (`resume_writing`),
//! once each way: the two marks make a hysteresis, so a buffer hovering around one mark
//! does not make the protocol flap. The defaults are 64 KiB high and a quarter of that low;
//! giving only `high` makes `low` a quarter of it, giving only `low` makes `high` four
//! times it.
//!
//! This file is the decision alone, with no socket and no protocol: the transport asks it
//! after each change of the buffer's size, and calls the protocol if told to.
//!
//! What changed from chapter 7: `sock_sendall` waited, so its task wrote nothing more and
//! memory stayed bounded by the task's own buffer; a transport's writer does not wait, and
//! the water marks are how it says "stop".

use std::cell::Cell;

use crate::errors::Error;

/// asyncio's default high-water mark: 64 KiB.
pub const DEFAULT_HIGH_WATER: usize = 64 * 1024;

// ANCHOR: flow_control
/// The water marks, and whether the protocol was told to pause.
#[derive(Debug)]
pub struct FlowControl {
    high: Cell<usize>,
    low: Cell<usize>,
    paused: Cell<bool>, // asyncio's `_protocol_paused`
}

/// What the transport must tell its protocol after the buffer changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tell {
    /// Nothing.
    Nothing,
    /// Call `pause_writing`.
    Pause,
    /// Call `resume_writing`.
    Resume,
}

impl FlowControl {
    /// asyncio's defaults: 64 KiB high, 16 KiB low, not paused.
    pub fn new() -> FlowControl {
        FlowControl {
            high: Cell::new(DEFAULT_HIGH_WATER),
            low: Cell::new(DEFAULT_HIGH_WATER / 4),
            paused: Cell::new(false),
        }
    }

    /// asyncio's `_set_write_buffer_limits`: `high` defaults to 64 KiB, or four times `low`
    /// if only `low` is given; `low` to a quarter of `high`. `low > high` is asyncio's
    /// `ValueError`.
    pub fn set_limits(&self, high: Option<usize>, low: Option<usize>) -> Result<(), Error> {
        let high = match (high, low) {
            (Some(high), _) => high,
            (None, Some(low)) => low.saturating_mul(4),
            (None, None) => DEFAULT_HIGH_WATER,
        };
        let low = low.unwrap_or(high / 4);
        if low > high {
            return Err(Error::msg(format!(
                "high ({high}) must be >= low ({low}) must be >= 0"
            )));
        }
        self.high.set(high);
        self.low.set(low);
        Ok(())
    }

    /// `(low, high)`, as asyncio's `get_write_buffer_limits`.
    pub fn limits(&self) -> (usize, usize) {
        (self.low.get(), self.high.get())
    }

    /// asyncio's `_maybe_pause_protocol`: the buffer now holds `size` bytes. Pause once
    /// when it is over the high mark.
    pub fn after_growth(&self, size: usize) -> Tell {
        if size <= self.high.get() || self.paused.replace(true) {
            return Tell::Nothing;
        }
        Tell::Pause
    }

    /// asyncio's `_maybe_resume_protocol`: resume once when a paused buffer is down to the
    /// low mark.
    pub fn after_drain(&self, size: usize) -> Tell {
        if self.paused.get() && size <= self.low.get() {
            self.paused.set(false);
            return Tell::Resume;
        }
        Tell::Nothing
    }

    /// True between a pause and its resume.
    pub fn is_paused(&self) -> bool {
        self.paused.get()
    }
}
// ANCHOR_END: flow_control

impl Default for FlowControl {
    fn default() -> Self {
        FlowControl::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_derived_marks_are_asyncios() {
        let flow = FlowControl::new();
        assert_eq!(flow.limits(), (16 * 1024, 64 * 1024));
        flow.set_limits(Some(1000), None).unwrap();
        assert_eq!(flow.limits(), (250, 1000));
        flow.set_limits(None, Some(100)).unwrap();
        assert_eq!(flow.limits(), (100, 400));
        flow.set_limits(Some(0), None).unwrap();
        assert_eq!(flow.limits(), (0, 0));
        assert!(flow.set_limits(Some(10), Some(11)).is_err());
    }

    #[test]
    fn pause_over_high_once_resume_at_low_once() {
        let flow = FlowControl::new();
        flow.set_limits(Some(100), Some(20)).unwrap();
        assert_eq!(
            flow.after_growth(100),
            Tell::Nothing,
            "at the mark is not over it"
        );
        assert_eq!(flow.after_growth(101), Tell::Pause);
        assert_eq!(flow.after_growth(500), Tell::Nothing, "told once");
        assert_eq!(flow.after_drain(21), Tell::Nothing);
        assert_eq!(flow.after_drain(20), Tell::Resume);
        assert_eq!(flow.after_drain(0), Tell::Nothing, "told once");
    }
}
