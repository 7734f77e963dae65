//! The sleeping heap and its tie-breaker (book chapter 1, "The heap and its tie-breaker";
//! Beazley's talk).
//!
//! The talk keeps sleeping callbacks in a `heapq` of `(deadline, func)` tuples. Python
//! compares tuples element by element, so two callbacks due at the same moment make it
//! compare the functions themselves, and the scheduler dies with
//! `TypeError: '<' not supported between instances of 'function' and 'function'`.
//!
//! In Rust the same mistake does not get that far. [`BinaryHeap`] wants `Ord` elements, a
//! tuple is `Ord` only if every field is, and a closure is not `Ord`, so the talk's first
//! heap is a compile error:
//!
//! ```compile_fail,E0277
//! use std::collections::BinaryHeap;
//! use std::time::Duration;
//!
//! let mut sleeping = BinaryHeap::new();
//! let down: Box<dyn FnOnce()> = Box::new(|| println!("Down 4"));
//! sleeping.push((Duration::from_secs(4), down)); // error[E0277]: the closure is not `Ord`
//! ```
//!
//! The talk's fix is a counter between the two: `(deadline, sequence, func)`. Sequences
//! never repeat, so the comparison never reaches the function, and equal deadlines come out
//! in the order they were scheduled. Here the same idea is spelled as an `Ord` impl on
//! [`Timer`] that looks at `(deadline, sequence)` only: the item inside never needs to be
//! comparable at all, which is why the same heap can hold callbacks (stage 1), tasks
//! (stage 2) or anything else.
//!
//! The heap is written by hand on top of `std`'s `BinaryHeap` rather than taken from a
//! crate: the ordering is the lesson.
//!
//! The deadline's type is a parameter, `Duration` unless said otherwise: stage 5 keeps
//! asyncio's deadlines, which can lie before the clock's start (`call_later(-2)`), in a
//! signed type, and reuses this heap, its tie-breaker and its sequence counter as they are.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::Duration;

/// One sleeper: an item due at `deadline`, with the `sequence` that breaks ties.
#[derive(Debug)]
pub struct Timer<T, D = Duration> {
    /// When the item is due, as time since the clock started.
    pub deadline: D,
    /// Order of registration: the tie-breaker for equal deadlines.
    pub sequence: u64,
    /// What sleeps: a callback, a task, ...
    pub item: T,
}

// ANCHOR: timer_ord
// `BinaryHeap` is a max-heap; we want the *earliest* timer on top, so the comparison is
// reversed: `other` before `self`. Only `(deadline, sequence)` is compared, never `item`.
impl<T, D: Ord> Ord for Timer<T, D> {
    fn cmp(&self, other: &Self) -> Ordering {
        (&other.deadline, other.sequence).cmp(&(&self.deadline, self.sequence))
    }
}
// ANCHOR_END: timer_ord

impl<T, D: Ord> PartialOrd for Timer<T, D> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T, D: Ord> PartialEq for Timer<T, D> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T, D: Ord> Eq for Timer<T, D> {}

/// A min-heap of [`Timer`]s ordered by `(deadline, sequence)`: the talk's `sleeping` list
/// together with its `sequence` counter.
#[derive(Debug)]
pub struct TimerHeap<T, D = Duration> {
    heap: BinaryHeap<Timer<T, D>>,
    sequence: u64,
}

impl<T, D: Ord> Default for TimerHeap<T, D> {
    fn default() -> Self {
        TimerHeap {
            heap: BinaryHeap::new(),
            sequence: 0,
        }
    }
}

impl<T, D: Ord + Copy> TimerHeap<T, D> {
    /// An empty heap.
    pub fn new() -> Self {
        Self::default()
    }

    // ANCHOR: push
    /// Add `item`, due at `deadline`. Returns its sequence number: the talk's
    /// `self.sequence += 1; heappush(self.sleeping, (deadline, self.sequence, func))`.
    pub fn push(&mut self, deadline: D, item: T) -> u64 {
        self.sequence += 1;
        let sequence = self.sequence;
        self.heap.push(Timer {
            deadline,
            sequence,
            item,
        });
        sequence
    }
    // ANCHOR_END: push

    /// Remove and return the earliest timer (ties: the one pushed first).
    pub fn pop(&mut self) -> Option<Timer<T, D>> {
        self.heap.pop()
    }

    /// The earliest timer, without removing it.
    pub fn peek(&self) -> Option<&Timer<T, D>> {
        self.heap.peek()
    }

    /// Remove and return the earliest timer if it is due at `now`, that is if
    /// `deadline <= now`.
    pub fn pop_due(&mut self, now: D) -> Option<Timer<T, D>> {
        if self.heap.peek()?.deadline <= now {
            self.heap.pop()
        } else {
            None
        }
    }

    /// How many timers are waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no timer is waiting.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Keep only the timers `keep` says yes to, and rebuild the heap: how stage 5 drops
    /// cancelled timers in one pass when they are more than half of a large heap.
    pub fn retain(&mut self, keep: impl FnMut(&Timer<T, D>) -> bool) {
        self.heap.retain(keep);
    }

    /// Every timer, in the heap's own order (not the order they pop in): what a
    /// recording's snapshot of the heap reads.
    pub fn iter(&self) -> impl Iterator<Item = &Timer<T, D>> {
        self.heap.iter()
    }

    /// Take every timer out, in no particular order (a loop that closes drops them). The
    /// sequence counter goes on from where it was.
    pub fn drain(&mut self) -> impl Iterator<Item = Timer<T, D>> + '_ {
        self.heap.drain()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn earliest_deadline_comes_out_first() {
        let mut heap = TimerHeap::new();
        heap.push(secs(4), "four");
        heap.push(secs(1), "one");
        heap.push(secs(2), "two");
        let order: Vec<_> = std::iter::from_fn(|| heap.pop().map(|t| t.item)).collect();
        assert_eq!(order, ["one", "two", "four"]);
    }

    #[test]
    fn equal_deadlines_come_out_in_registration_order() {
        let mut heap = TimerHeap::new();
        for name in ["a", "b", "c", "d", "e"] {
            heap.push(secs(4), name);
        }
        heap.push(secs(3), "early");
        let order: Vec<_> = std::iter::from_fn(|| heap.pop().map(|t| t.item)).collect();
        assert_eq!(order, ["early", "a", "b", "c", "d", "e"]);
    }

    #[test]
    fn pop_due_includes_a_deadline_equal_to_now() {
        let mut heap = TimerHeap::new();
        heap.push(secs(2), "two");
        assert!(heap.pop_due(secs(1)).is_none());
        assert_eq!(heap.pop_due(secs(2)).map(|t| t.item), Some("two"));
        assert!(heap.is_empty());
    }

    #[test]
    fn retain_keeps_the_order_of_what_it_keeps() {
        let mut heap = TimerHeap::new();
        for (n, name) in ["a", "b", "c", "d"].into_iter().enumerate() {
            heap.push(secs(4 - n as u64), name);
        }
        heap.retain(|t| t.item != "c");
        let order: Vec<_> = std::iter::from_fn(|| heap.pop().map(|t| t.item)).collect();
        assert_eq!(order, ["d", "b", "a"]);
        assert_eq!(heap.push(secs(1), "e"), 5, "the counter goes on");
        assert_eq!(heap.drain().count(), 1);
        assert!(heap.is_empty());
    }

    #[test]
    fn a_signed_deadline_orders_the_past_too() {
        let mut heap: TimerHeap<&str, i64> = TimerHeap::new();
        heap.push(-1, "minus one");
        heap.push(-2, "minus two");
        heap.push(0, "zero");
        let order: Vec<_> = std::iter::from_fn(|| heap.pop_due(0).map(|t| t.item)).collect();
        assert_eq!(order, ["minus two", "minus one", "zero"]);
    }

    #[test]
    fn sequences_count_up_from_one() {
        let mut heap = TimerHeap::new();
        assert_eq!(heap.push(secs(1), ()), 1);
        assert_eq!(heap.push(secs(0), ()), 2);
        assert_eq!(heap.peek().map(|t| t.sequence), Some(2));
        assert_eq!(heap.len(), 2);
    }
}
