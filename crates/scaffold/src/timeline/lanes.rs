//! From recorded events to what the timeline shows (book introduction, "Timelines"). No
//! public source: the project's own instrument.
//!
//! Events name callbacks and tasks; the picture has *lanes*. A task is one lane (`t2`). A
//! callback joins the lane of whoever scheduled it, so a chain of callbacks that keeps
//! re-scheduling itself (stage 1's `countdown`) is one lane, named after its first
//! callback (`c1`). A callback scheduled from outside any callback starts a lane of its
//! own. Two events move a callback to another lane: a task's step (the callback that runs
//! a task belongs to the task) and a wake (what a wake schedules next belongs to the one
//! woken, not to the waker).
//!
//! On a lane: a *run* is a mark; a *sleep* a bar up to its deadline; a *wait* on a queue,
//! a socket, or anything else a bar of another kind, from the wait up to the wake. A wake
//! is an arrow from the lane that woke to the lane woken (from the loop, for a socket). A
//! first lane, the loop itself, shows when the scheduler had nothing to run and slept.
//!
//! A lane's label is the first line it printed. A lane that printed nothing is labelled
//! with the tasks it started (`starts t5, t6`: an accept loop, or a main task), so that no
//! row is left without words; one that did neither says so.

use std::collections::HashMap;
use std::time::Duration;

use super::model::{Arrow, Bar, BarKind, Lane, Timeline};
use crate::event::{Event, Id};
use crate::record::Record;

/// What the reader of the events keeps track of.
#[derive(Default)]
struct Reader {
    timeline: Timeline,
    lane_of: HashMap<Id, usize>,
    current: Option<usize>,            // the lane running now
    pending: Option<usize>,            // the lane the next scheduled callback belongs to
    waits: HashMap<usize, usize>,      // lane -> index of its open wait bar
    idle: Option<(Duration, BarKind)>, // the loop asleep or in the selector since
    started: HashMap<usize, Vec<Id>>,  // lane -> the tasks it started, for its label
}

impl Reader {
    fn lane(&mut self, id: Id) -> usize {
        if let Some(&lane) = self.lane_of.get(&id) {
            return lane;
        }
        let lane = self.new_lane(id);
        self.lane_of.insert(id, lane);
        lane
    }

    fn new_lane(&mut self, id: Id) -> usize {
        self.timeline.lanes.push(Lane {
            name: id.to_string(),
            ..Lane::default()
        });
        self.timeline.lanes.len() - 1
    }

    /// The lane a newly scheduled callback joins.
    fn adopt(&mut self, id: Id) -> usize {
        let lane = match self.pending.take().or(self.current) {
            Some(lane) => lane,
            None => self.new_lane(id),
        };
        self.lane_of.insert(id, lane);
        lane
    }

    fn run(&mut self, lane: usize, at: Duration) {
        self.current = Some(lane);
        self.end_wait(lane, at);
        let runs = &mut self.timeline.lanes[lane].runs;
        if runs.last() != Some(&at) {
            runs.push(at);
        }
    }

    fn bar(&mut self, lane: usize, from: Duration, to: Duration, kind: BarKind) {
        let open = false;
        self.timeline.lanes[lane].bars.push(Bar {
            from,
            to,
            kind,
            open,
        });
    }

    fn start_wait(&mut self, lane: usize, at: Duration, kind: BarKind) {
        if self.waits.contains_key(&lane) {
            return; // already waiting: a task reports its queue wait, then its suspension
        }
        self.bar(lane, at, at, kind);
        let index = self.timeline.lanes[lane].bars.len() - 1;
        self.waits.insert(lane, index);
    }

    fn end_wait(&mut self, lane: usize, at: Duration) {
        if let Some(index) = self.waits.remove(&lane) {
            self.timeline.lanes[lane].bars[index].to = at;
        }
    }

    fn end_idle(&mut self, at: Duration) {
        if let Some((from, kind)) = self.idle.take()
            && at > from
        {
            self.timeline.scheduler.bars.push(Bar {
                from,
                to: at,
                kind,
                open: false,
            });
        }
    }

    fn read(&mut self, at: Duration, event: &Event) {
        let keeps_pending = matches!(
            event,
            Event::NewTask { .. }
                | Event::Iteration(_) // stage 5 may start an iteration between the two
                | Event::Wake { .. }
                | Event::Queues { .. }
                | Event::Say(_)
                | Event::Note(_)
        );
        match *event {
            Event::CallSoon { id } => {
                self.adopt(id);
            }
            Event::CallLater { id, due, .. } => {
                let lane = self.adopt(id);
                self.bar(lane, at, due, BarKind::Sleep);
            }
            // A callback runs, or a task takes a step: the same dot on its lane.
            Event::Run { id } | Event::Step { task: id } => {
                self.end_idle(at);
                let lane = self.lane(id);
                self.run(lane, at);
            }
            Event::NewTask { task } => {
                if let Some(lane) = self.current {
                    self.started.entry(lane).or_default().push(task);
                }
                self.pending = Some(self.lane(task));
            }
            Event::Finished { task } => {
                let lane = self.lane(task);
                self.timeline.lanes[lane].finished = Some(at);
            }
            Event::Sleep { task, timer, .. } => {
                if let Some((due, _)) = timer {
                    let lane = self.lane(task);
                    self.bar(lane, at, due, BarKind::Sleep);
                }
            }
            Event::Suspend { task } => {
                let lane = self.lane(task);
                self.start_wait(lane, at, BarKind::Wait);
            }
            Event::QueueWait { who, .. } => {
                let lane = match who {
                    Some(id) => Some(self.lane(id)),
                    None => self.current,
                };
                if let Some(lane) = lane {
                    self.start_wait(lane, at, BarKind::Queue);
                }
            }
            Event::Wake { to, .. } => {
                self.end_idle(at);
                let target = self.lane(to);
                self.end_wait(target, at);
                if self.current != Some(target) {
                    self.timeline.arrows.push(Arrow {
                        at,
                        from: self.current,
                        to: target,
                    });
                }
                self.pending = Some(target);
            }
            Event::IoWait { id, .. } => {
                let lane = self.adopt(id);
                self.start_wait(lane, at, BarKind::Io);
            }
            Event::IoReady { id, .. } => {
                self.end_idle(at);
                let target = self.lane(id);
                self.end_wait(target, at);
                self.timeline.arrows.push(Arrow {
                    at,
                    from: None,
                    to: target,
                });
            }
            Event::TimerDue { .. } => self.end_idle(at),
            Event::WaitTimer { until, .. } => {
                self.current = None;
                self.end_idle(at);
                self.idle = Some((at, BarKind::Sleep));
                self.end_idle(until);
            }
            Event::Select { .. } => {
                self.current = None;
                self.end_idle(at);
                self.idle = Some((at, BarKind::Io));
            }
            Event::Done { .. } => {
                self.current = None;
                self.end_idle(at);
            }
            Event::Iteration(_) => self.timeline.iterations.push(at),
            Event::Say(ref line) => {
                if let Some(lane) = self.current {
                    let label = &mut self.timeline.lanes[lane].label;
                    if label.is_none() {
                        *label = Some(line.clone());
                    }
                }
            }
            // The queue lengths are read from the states ([`super::counters`]).
            Event::Jump { .. } | Event::Note(_) | Event::Queues { .. } => {}
        }
        if !keeps_pending {
            self.pending = None;
        }
    }

    fn finish(mut self, last: Duration) -> Timeline {
        let bars = self.timeline.lanes.iter().flat_map(|l| l.bars.iter());
        let end = bars
            .chain(self.timeline.scheduler.bars.iter())
            .map(|b| b.to)
            .fold(last, Duration::max);
        self.end_idle(end);
        for (lane, index) in std::mem::take(&mut self.waits) {
            let bar = &mut self.timeline.lanes[lane].bars[index];
            bar.to = end;
            bar.open = true;
        }
        for (index, lane) in self.timeline.lanes.iter_mut().enumerate() {
            if lane.label.is_none() {
                lane.label = Some(match self.started.get(&index) {
                    Some(tasks) => {
                        let names: Vec<_> = tasks.iter().map(Id::to_string).collect();
                        format!("starts {}", names.join(", "))
                    }
                    None => "prints nothing".to_owned(),
                });
            }
        }
        self.timeline.end = end;
        self.timeline
    }
}

/// Read `records` into the lanes, bars and arrows the picture shows.
pub fn read(records: &[Record]) -> Timeline {
    let mut reader = Reader::default();
    reader.timeline.scheduler.name = "loop".to_owned();
    reader.timeline.scheduler.label = Some("nothing to run".to_owned());
    for record in records {
        reader.read(record.at, &record.event);
    }
    (reader.timeline.ready, reader.timeline.timers) = super::counters::read(records);
    let last = records.last().map_or(Duration::ZERO, |r| r.at);
    reader.finish(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64, event: Event) -> Record {
        Record::new(Duration::from_secs(secs), event)
    }

    const C: fn(u64) -> Id = Id::Callback;
    const T: fn(u64) -> Id = Id::Task;

    #[test]
    fn a_callback_chain_is_one_lane_and_a_wake_moves_the_next_callback() {
        let s = Duration::from_secs;
        let records = [
            at(0, Event::CallSoon { id: C(1) }), // producer, from outside: lane 0
            at(0, Event::CallSoon { id: C(2) }), // consumer: lane 1
            at(0, Event::Run { id: C(1) }),
            at(0, Event::Say("Producing 0".into())),
            at(
                0,
                Event::CallLater {
                    id: C(3),
                    delay: s(1),
                    due: s(1),
                    seq: 1,
                },
            ),
            at(0, Event::Run { id: C(2) }),
            at(
                0,
                Event::QueueWait {
                    who: Some(C(2)),
                    waiting: 1,
                },
            ),
            at(
                0,
                Event::WaitTimer {
                    until: s(1),
                    id: C(3),
                    seq: 1,
                },
            ),
            at(1, Event::Run { id: C(3) }),
            at(
                1,
                Event::Wake {
                    to: C(2),
                    by: "queue put",
                },
            ),
            at(1, Event::CallSoon { id: C(4) }), // the consumer's, not the producer's
            at(1, Event::Run { id: C(4) }),
        ];
        let t = read(&records);
        let names: Vec<_> = t.lanes.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["c1", "c2"]);
        assert_eq!(t.lanes[0].label.as_deref(), Some("Producing 0"));
        assert_eq!(t.lanes[0].runs, [s(0), s(1)]);
        assert_eq!(t.lanes[1].runs, [s(0), s(1)]);
        let bar = |from, to, kind| Bar {
            from,
            to,
            kind,
            open: false,
        };
        assert_eq!(t.lanes[0].bars, [bar(s(0), s(1), BarKind::Sleep)]);
        assert_eq!(t.lanes[1].bars, [bar(s(0), s(1), BarKind::Queue)]);
        assert_eq!(
            t.arrows,
            [Arrow {
                at: s(1),
                from: Some(0),
                to: 1
            }]
        );
        assert_eq!(t.scheduler.bars, [bar(s(0), s(1), BarKind::Sleep)]);
        assert_eq!(t.end, s(1));
    }

    #[test]
    fn a_task_owns_the_callbacks_that_run_it_and_an_unended_wait_stays_open() {
        let records = [
            at(0, Event::NewTask { task: T(1) }),
            at(0, Event::CallSoon { id: C(1) }),
            at(0, Event::Run { id: C(1) }),
            at(0, Event::Step { task: T(1) }),
            at(
                0,
                Event::IoWait {
                    fd: 5,
                    interest: "read",
                    id: C(2),
                },
            ),
            at(0, Event::Suspend { task: T(1) }),
            at(
                0,
                Event::Select {
                    timeout: None,
                    virtual_next: None,
                },
            ),
            at(
                2,
                Event::IoReady {
                    fd: 5,
                    interest: "read",
                    id: C(2),
                },
            ),
            at(2, Event::Run { id: C(2) }),
            at(2, Event::Step { task: T(1) }),
            at(
                2,
                Event::QueueWait {
                    who: None,
                    waiting: 1,
                },
            ),
            at(2, Event::Suspend { task: T(1) }),
            at(
                3,
                Event::Done {
                    why: "nothing ready",
                },
            ),
        ];
        let t = read(&records);
        assert_eq!(t.lanes.len(), 1, "{:?}", t.lanes);
        let s = Duration::from_secs;
        let kinds: Vec<_> = t.lanes[0]
            .bars
            .iter()
            .map(|b| (b.kind, b.to, b.open))
            .collect();
        assert_eq!(
            kinds,
            [(BarKind::Io, s(2), false), (BarKind::Queue, s(3), true)]
        );
        assert_eq!(
            t.arrows,
            [Arrow {
                at: s(2),
                from: None,
                to: 0
            }]
        );
        assert_eq!(t.scheduler.bars[0].kind, BarKind::Io);
    }

    #[test]
    fn a_lane_that_prints_nothing_is_labelled_with_the_tasks_it_started() {
        // Stage 5's first iteration starts between a task's creation and its callback:
        // the callback still belongs to the task, not to a row of its own.
        let records = [
            at(0, Event::NewTask { task: T(1) }),
            at(0, Event::Iteration(0)),
            at(0, Event::CallSoon { id: C(1) }),
            at(0, Event::Run { id: C(1) }),
            at(0, Event::Step { task: T(1) }),
            at(0, Event::NewTask { task: T(2) }),
            at(0, Event::CallSoon { id: C(2) }),
            at(0, Event::NewTask { task: T(3) }),
            at(0, Event::CallSoon { id: C(3) }),
            at(0, Event::Run { id: C(2) }),
            at(0, Event::Step { task: T(2) }),
            at(0, Event::Say("Down 5".into())),
            at(0, Event::Run { id: C(3) }),
            at(0, Event::Step { task: T(3) }),
        ];
        let t = read(&records);
        let rows: Vec<_> = t
            .lanes
            .iter()
            .map(|l| (l.name.as_str(), l.label.as_deref()))
            .collect();
        assert_eq!(
            rows,
            [
                ("t1", Some("starts t2, t3")),
                ("t2", Some("Down 5")),
                ("t3", Some("prints nothing"))
            ]
        );
    }
}
