//! The loop's timers: asyncio's `_scheduled` heap and its count of cancelled timers (book
//! chapter 5, "The timer heap" and "Step 1: clean the heap"; asyncio's `call_at`,
//! `_timer_handle_cancelled` and the first part of `_run_once`).
//!
//! asyncio keeps its timer handles in a `heapq` ordered by `(when, sequence)`. It is stage
//! 1's [`TimerHeap`], reused as it is, sequence counter included: only the deadline's type
//! differs. asyncio's `when` is a float of seconds on the loop's clock, computed as
//! `time() + delay` without clamping, so `call_later(-2)` is due before `call_later(-1)`.
//! Ours is the same float, ordered by [`f64::total_cmp`] (a NaN never gets this far: the
//! loop refuses it).
//!
//! Cancelling a timer does not take it out of the heap (that would cost a search): the
//! handle is marked, and the heap counts it. The loop's step 1 then either pops cancelled
//! timers off the head, where they would decide the select timeout, or, when more than
//! half of a large heap is cancelled, rebuilds the heap without them in one pass.
//!
//! What changed since stage 4: stage 4's heap held callbacks that could not be cancelled.
//! Like [`Handle`], this file is generic over the loop `L` and imports nothing above it.

use std::cell::Cell;
use std::cmp::Ordering;
use std::rc::Rc;

use stage1::TimerHeap;

use crate::events::handle::{Handle, TimerHandle};

/// Below this many scheduled timers the heap is never rebuilt (CPython's
/// `_MIN_SCHEDULED_TIMER_HANDLES`).
pub const MIN_SCHEDULED_TIMER_HANDLES: usize = 100;

/// The heap is rebuilt when more than this fraction of its timers are cancelled (CPython's
/// `_MIN_CANCELLED_TIMER_HANDLES_FRACTION`).
pub const MIN_CANCELLED_TIMER_HANDLES_FRACTION: f64 = 0.5;

/// A deadline in seconds on the loop's clock, ordered totally (asyncio's `when`).
#[derive(Clone, Copy, Debug)]
pub struct When(pub f64);

impl Ord for When {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl PartialOrd for When {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for When {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for When {}

// ANCHOR: scheduled
/// asyncio's `_scheduled` and `_timer_cancelled_count`.
pub struct Scheduled<L> {
    heap: TimerHeap<Handle<L>, When>, // stage 1's heap, of timer handles
    cancelled: Rc<Cell<usize>>,       // shared with every `TimerHandle` (weakly)
}
// ANCHOR_END: scheduled

impl<L> Default for Scheduled<L> {
    fn default() -> Self {
        Scheduled {
            heap: TimerHeap::new(),
            cancelled: Rc::default(),
        }
    }
}

impl<L> Scheduled<L> {
    /// Add `handle`, due at its `when`; returns its timer handle and its sequence number.
    pub fn push(&mut self, handle: Handle<L>) -> (TimerHandle<L>, u64) {
        let when = When(handle.when().expect("a timer handle has a time"));
        handle.set_scheduled(true);
        let timer = TimerHandle::new(handle.clone(), Rc::downgrade(&self.cancelled));
        let sequence = self.heap.push(when, handle);
        (timer, sequence)
    }

    /// How many timers are in the heap, cancelled ones included.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no timer is in the heap.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// How many timers in the heap are known to be cancelled.
    pub fn cancelled_count(&self) -> usize {
        self.cancelled.get()
    }

    // ANCHOR: rebuild
    /// Step 1, the big clean: if more than 100 timers are scheduled and more than half of
    /// them are cancelled, rebuild the heap without them. Returns `(cancelled, before)` if
    /// it did.
    pub fn rebuild_if_mostly_cancelled(&mut self) -> Option<(usize, usize)> {
        let before = self.heap.len();
        let cancelled = self.cancelled.get();
        if before <= MIN_SCHEDULED_TIMER_HANDLES
            || cancelled as f64 / before as f64 <= MIN_CANCELLED_TIMER_HANDLES_FRACTION
        {
            return None;
        }
        self.heap.retain(|timer| {
            let keep = !timer.item.cancelled();
            timer.item.set_scheduled(keep);
            keep
        });
        self.cancelled.set(0);
        Some((cancelled, before))
    }

    /// Step 1, otherwise: pop one cancelled timer off the head, if the head is one.
    pub fn pop_cancelled_head(&mut self) -> Option<Handle<L>> {
        if !self.heap.peek()?.item.cancelled() {
            return None;
        }
        let timer = self.heap.pop()?;
        timer.item.set_scheduled(false);
        self.cancelled.set(self.cancelled.get().saturating_sub(1));
        Some(timer.item)
    }
    // ANCHOR_END: rebuild

    /// Every timer in the heap's own order (not the order they pop in), cancelled ones
    /// included, with its `when` and sequence: what a recording lists (`inspect.rs`).
    pub fn iter(&self) -> impl Iterator<Item = (&Handle<L>, f64, u64)> {
        self.heap
            .iter()
            .map(|t| (&t.item, t.deadline.0, t.sequence))
    }

    /// Step 2: when the first timer is due, if there is one.
    pub fn next_when(&self) -> Option<f64> {
        self.heap.peek().map(|timer| timer.deadline.0)
    }

    /// Step 4: pop the first timer if it is due before `end_time` (asyncio breaks out of
    /// its loop at `when >= end_time`), with its sequence number. Cancelled timers come out
    /// too; step 5 skips them.
    pub fn pop_due(&mut self, end_time: f64) -> Option<(Handle<L>, u64)> {
        if self.heap.peek()?.deadline.0 >= end_time {
            return None;
        }
        let timer = self.heap.pop()?;
        timer.item.set_scheduled(false);
        Some((timer.item, timer.sequence))
    }

    /// Take every timer out (the loop closes); the cancelled count starts again at zero.
    pub fn take_all(&mut self) -> Vec<Handle<L>> {
        self.cancelled.set(0);
        self.heap.drain().map(|timer| timer.item).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer(id: u64, when: f64) -> Handle<()> {
        Handle::new(id, Some(when), |_: &()| {})
    }

    #[test]
    fn due_timers_come_out_by_when_then_by_sequence() {
        let mut heap = Scheduled::default();
        for (id, when) in [(1, 2.0), (2, -1.0), (3, 2.0), (4, -2.0)] {
            heap.push(timer(id, when));
        }
        assert_eq!(heap.next_when(), Some(-2.0));
        let ids = |pairs: Vec<(Handle<()>, u64)>| -> Vec<(u64, u64)> {
            pairs.into_iter().map(|(h, seq)| (h.id(), seq)).collect()
        };
        let due = ids(std::iter::from_fn(|| heap.pop_due(2.0)).collect());
        assert_eq!(due, [(4, 4), (2, 2)], "2.0 is not before end_time 2.0");
        let rest = ids(std::iter::from_fn(|| heap.pop_due(2.5)).collect());
        assert_eq!(rest, [(1, 1), (3, 3)]);
    }

    #[test]
    fn cancelled_heads_are_popped_and_counted_down() {
        let mut heap = Scheduled::default();
        let (first, _) = heap.push(timer(1, 1.0));
        let (second, _) = heap.push(timer(2, 2.0));
        heap.push(timer(3, 3.0));
        second.cancel();
        first.cancel();
        assert_eq!(heap.cancelled_count(), 2);
        let popped: Vec<u64> = std::iter::from_fn(|| heap.pop_cancelled_head())
            .map(|h| h.id())
            .collect();
        assert_eq!(popped, [1, 2]);
        assert_eq!((heap.len(), heap.cancelled_count()), (1, 0));
    }

    #[test]
    fn a_mostly_cancelled_large_heap_is_rebuilt() {
        let mut heap = Scheduled::default();
        let timers: Vec<_> = (0..101).map(|n| heap.push(timer(n, n as f64)).0).collect();
        for t in &timers[..50] {
            t.cancel();
        }
        assert_eq!(
            heap.rebuild_if_mostly_cancelled(),
            None,
            "50 of 101: not more than half"
        );
        timers[50].cancel();
        assert_eq!(heap.rebuild_if_mostly_cancelled(), Some((51, 101)));
        assert_eq!((heap.len(), heap.cancelled_count()), (50, 0));
        // A timer that left the heap is not counted when cancelled.
        assert_eq!(heap.pop_due(100.0).map(|(h, _)| h.id()), Some(51));
        timers[51].cancel();
        assert_eq!(heap.cancelled_count(), 0);
        assert_eq!(heap.take_all().len(), 49);
    }
}
