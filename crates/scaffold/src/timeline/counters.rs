//! The queue lengths a timeline charts (book introduction, "Timelines"). No public source:
//! the project's own instrument.
//!
//! A chart is a curve of samples, each held until the next. Every recorded step keeps the
//! state it left ([`crate::record`]), so every step with a state is a sample: the curve is
//! the recorded states' lengths, and the stepper, `--step` and the picture tell the same
//! story. A step kept without a state (no scheduler under watch, or one past
//! [`crate::record::STATE_LIMIT`]) is a sample only if it is an [`Event::Queues`], the
//! lengths a scheduler reports once per turn. Those reports alone are too few: stage 5
//! makes one per iteration, before the iteration's callbacks run, so a curve drawn from
//! them held a ready queue of one through a whole sleep that began with it empty.

use std::time::Duration;

use crate::event::Event;
use crate::record::Record;

/// `(time, length)` samples, each held until the next.
pub type Samples = Vec<(Duration, usize)>;

/// The ready queue's and the timer heap's samples in `records`. A sample equal to the one
/// before is left out: held, it draws the same curve.
pub fn read(records: &[Record]) -> (Samples, Samples) {
    let (mut ready, mut timers) = (Samples::new(), Samples::new());
    for record in records {
        let lengths = match (&record.state, &record.event) {
            (Some(state), _) => (state.ready_len, state.timers_len),
            (None, &Event::Queues { ready, timers }) => (ready, timers),
            (None, _) => continue,
        };
        push(&mut ready, record.at, lengths.0);
        push(&mut timers, record.at, lengths.1);
    }
    (ready, timers)
}

fn push(samples: &mut Samples, at: Duration, value: usize) {
    if samples.last().map(|&(_, last)| last) != Some(value) {
        samples.push((at, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Id;
    use crate::why::Snapshot;
    use std::rc::Rc;

    fn with(at: u64, event: Event, lengths: Option<(usize, usize)>) -> Record {
        let mut record = Record::new(Duration::from_secs(at), event);
        record.state = lengths.map(|(ready_len, timers_len)| {
            Rc::new(Snapshot {
                ready_len,
                timers_len,
                ..Snapshot::default()
            })
        });
        record
    }

    #[test]
    fn every_state_is_a_sample_and_a_queues_report_only_without_one() {
        let s = Duration::from_secs;
        let c = Id::Callback(1);
        let queues = |ready, timers| Event::Queues { ready, timers };
        let records = [
            with(0, queues(1, 1), Some((1, 1))),
            // The callback runs and the queue empties: no report says so, the state does.
            with(1, Event::Run { id: c }, Some((0, 1))),
            with(1, Event::Note("idle".into()), Some((0, 1))),
            with(5, Event::Run { id: c }, Some((0, 0))),
            // Past the states' limit, only the reports are samples.
            with(6, Event::CallSoon { id: c }, None),
            with(6, queues(2, 0), None),
        ];
        let (ready, timers) = read(&records);
        assert_eq!(ready, [(s(0), 1), (s(1), 0), (s(6), 2)]);
        assert_eq!(timers, [(s(0), 1), (s(5), 0)]);
    }
}
