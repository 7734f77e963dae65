//! What a timeline shows, as data: lanes, bars, arrows and the queue lengths (book
//! introduction, "Timelines"). No public source: the project's own instrument.
//!
//! [`super::lanes`] reads recorded events into a [`Timeline`]; [`super::svg`] draws it.
//! Keeping the picture's content apart from both lets each be tested on its own.

use std::time::Duration;

/// What a bar on a lane means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarKind {
    /// Asleep until a deadline (a timer).
    Sleep,
    /// Waiting for a queue's item.
    Queue,
    /// Waiting for a socket.
    Io,
    /// Waiting for something else (a task that left `current` for its own reasons).
    Wait,
}

/// A stretch of time on one lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    /// Start.
    pub from: Duration,
    /// End.
    pub to: Duration,
    /// Its meaning.
    pub kind: BarKind,
    /// True when nothing ended it before the run did.
    pub open: bool,
}

/// One row of the picture: a task, or a chain of callbacks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lane {
    /// Its id, as the trace writes it (`c1`, `t2`; `loop` for the loop's own row).
    pub name: String,
    /// The first line this lane printed, if any: it tells the reader which one it is.
    pub label: Option<String>,
    /// When it ran (a callback run or a task step).
    pub runs: Vec<Duration>,
    /// Its sleeps and waits.
    pub bars: Vec<Bar>,
    /// When its task finished, if it did.
    pub finished: Option<Duration>,
}

/// A wake: at `at`, lane `from` (`None`: the loop) made lane `to` ready.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arrow {
    /// When.
    pub at: Duration,
    /// Index of the waking lane in [`Timeline::lanes`]; `None` for the loop.
    pub from: Option<usize>,
    /// Index of the woken lane.
    pub to: usize,
}

/// Everything the picture draws, in time order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// The loop's own row: when it slept or waited in the selector.
    pub scheduler: Lane,
    /// Tasks and callback chains, in the order they appeared.
    pub lanes: Vec<Lane>,
    /// The wakes.
    pub arrows: Vec<Arrow>,
    /// `(time, ready queue length)` samples, each held until the next: the recorded
    /// states' lengths ([`super::counters`]).
    pub ready: Vec<(Duration, usize)>,
    /// `(time, timer heap size)` samples.
    pub timers: Vec<(Duration, usize)>,
    /// When each loop iteration started (stage 5).
    pub iterations: Vec<Duration>,
    /// The time of the last thing drawn.
    pub end: Duration,
}
