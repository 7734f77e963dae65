//! A model test of the loop's scheduling: random sequences of `call_soon`, `call_later`,
//! `cancel` and `run_once` against a reference model written as plainly as possible (a
//! list of timers sorted on demand, no heap, no handles).
//!
//! After every operation the loop and the model must agree on which callbacks have run
//! and in what order, on the clock, and on the sizes of the ready queue and the heap and
//! the cancelled-timer count. The model also checks, right after step 1 of each
//! iteration, that the heap holds at most twice its live timers plus 100: the point of
//! CPython's compaction rule. A cancelled callback never runs: the model never logs one,
//! and the logs must be equal.

use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::rc::Rc;

use proptest::prelude::*;
use stage5::{Error, EventLoop, Handle, TimerHandle, VirtualClock};

#[derive(Debug, Clone)]
enum Op {
    CallSoon,
    /// `count` timers, each `quarters` quarter-seconds from now (equal deadlines are
    /// common, so the tie-breaker is exercised).
    CallLater {
        count: usize,
        quarters: u64,
    },
    /// Cancel every `step`-th handle created so far, starting at `offset`.
    Cancel {
        offset: usize,
        step: usize,
    },
    RunOnce,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::CallSoon),
        3 => (1usize..4, 0u64..12).prop_map(|(count, quarters)| Op::CallLater { count, quarters }),
        1 => (1usize..90, 0u64..12).prop_map(|(count, quarters)| Op::CallLater { count, quarters }),
        3 => (0usize..50, 1usize..4).prop_map(|(offset, step)| Op::Cancel { offset, step }),
        4 => Just(Op::RunOnce),
    ]
}

/// The reference: CPython's `_run_once` on integers (milliseconds), with no heap.
#[derive(Default)]
struct Model {
    now: u64,
    ready: VecDeque<usize>,
    timers: Vec<(u64, u64, usize)>, // (when, sequence, id), unsorted
    sequence: u64,
    cancelled: HashSet<usize>,
    cancelled_count: usize,
    ran: Vec<usize>,
}

impl Model {
    fn head(&self) -> Option<usize> {
        (0..self.timers.len()).min_by_key(|&i| (self.timers[i].0, self.timers[i].1))
    }

    fn cancel(&mut self, id: usize) {
        if self.cancelled.insert(id) && self.timers.iter().any(|t| t.2 == id) {
            self.cancelled_count += 1;
        }
    }

    /// One iteration; `Err` where the loop must report that nothing can happen.
    fn run_once(&mut self) -> Result<(), ()> {
        // Step 1.
        let count = self.timers.len();
        if count > 100 && self.cancelled_count * 2 > count {
            let cancelled = &self.cancelled;
            self.timers.retain(|t| !cancelled.contains(&t.2));
            self.cancelled_count = 0;
        } else {
            while let Some(i) = self
                .head()
                .filter(|&i| self.cancelled.contains(&self.timers[i].2))
            {
                self.timers.remove(i);
                self.cancelled_count = self.cancelled_count.saturating_sub(1);
            }
        }
        let live = self
            .timers
            .iter()
            .filter(|t| !self.cancelled.contains(&t.2))
            .count();
        assert!(
            self.timers.len() <= 2 * live + 100,
            "heap of {} with only {live} live timers",
            self.timers.len()
        );
        // Steps 2 and 3: the virtual clock jumps to the first timer if nothing is ready.
        if self.ready.is_empty() {
            let Some(i) = self.head() else {
                return Err(());
            };
            self.now = self.now.max(self.timers[i].0);
        }
        // Step 4.
        while let Some(i) = self.head().filter(|&i| self.timers[i].0 <= self.now) {
            let (_, _, id) = self.timers.remove(i);
            self.ready.push_back(id);
        }
        // Step 5.
        for _ in 0..self.ready.len() {
            let id = self.ready.pop_front().unwrap();
            if !self.cancelled.contains(&id) {
                self.ran.push(id);
            }
        }
        Ok(())
    }
}

enum Scheduled {
    Soon(Handle),
    Later(TimerHandle),
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_loop_runs_what_the_model_runs(ops in prop::collection::vec(op(), 1..60)) {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let ran: Rc<RefCell<Vec<usize>>> = Rc::default();
        let mut handles: Vec<Scheduled> = Vec::new();
        let mut model = Model::default();
        for op in ops {
            match op {
                Op::CallSoon => {
                    let (id, ran) = (handles.len(), ran.clone());
                    handles.push(Scheduled::Soon(
                        lp.call_soon(move |_| ran.borrow_mut().push(id)).unwrap(),
                    ));
                    model.ready.push_back(id);
                }
                Op::CallLater { count, quarters } => {
                    for _ in 0..count {
                        let (id, ran) = (handles.len(), ran.clone());
                        let delay = quarters as f64 * 0.25;
                        handles.push(Scheduled::Later(
                            lp.call_later(delay, move |_| ran.borrow_mut().push(id)).unwrap(),
                        ));
                        model.sequence += 1;
                        model.timers.push((model.now + quarters * 250, model.sequence, id));
                    }
                }
                Op::Cancel { offset, step } => {
                    for id in (offset..handles.len()).step_by(step) {
                        match &handles[id] {
                            Scheduled::Soon(h) => h.cancel(),
                            Scheduled::Later(h) => h.cancel(),
                        }
                        model.cancel(id);
                    }
                }
                Op::RunOnce => match model.run_once() {
                    Ok(()) => lp.run_once().unwrap(),
                    Err(()) => prop_assert!(matches!(lp.run_once(), Err(Error::NothingToWaitFor))),
                },
            }
            prop_assert_eq!(&*ran.borrow(), &model.ran);
            prop_assert_eq!(lp.ready_len(), model.ready.len());
            prop_assert_eq!(lp.scheduled_len(), model.timers.len());
            prop_assert_eq!(lp.timer_cancelled_count(), model.cancelled_count);
            prop_assert_eq!((lp.time() * 1000.0).round() as u64, model.now);
        }
    }
}
