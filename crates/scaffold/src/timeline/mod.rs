//! Timelines: a picture of a run on its clock, drawn from the events `--trace` prints (book
//! introduction, "Timelines"). No public source: the project's own instrument.
//!
//! [`lanes`] reads the recorded events into the lanes, bars and arrows of [`model`], and
//! [`counters`] the recorded states into its queue lengths;
//! [`svg`] draws those as an SVG document, in the look of [`style`] (`svg::render_pair`: two
//! runs in one). `--timeline FILE.svg` (see [`crate::cli`]) records a run and writes its
//! picture when the run ends; the book's pictures are drawn by the root test
//! `tests/timelines.rs` with [`capture`] and [`draw`], on the virtual clock.

pub mod counters;
pub mod lanes;
pub mod model;
pub mod style;
pub mod svg;

use std::path::Path;
use std::rc::Rc;

use crate::clock::Clock;
use crate::console::Transcript;
use crate::record::{self, Records};
use crate::run_file;

pub use lanes::read;
pub use model::Timeline;

pub use crate::run_file::WriteError;

/// A run's title: the program's name and its clock, as in `countdown (virtual clock)`.
pub fn title(virtual_clock: bool) -> String {
    let program = std::env::args()
        .next()
        .and_then(|arg| Some(Path::new(&arg).file_stem()?.to_str()?.to_owned()))
        .unwrap_or_else(|| "program".to_owned());
    let clock = if virtual_clock { "virtual" } else { "real" };
    format!("{program} ({clock} clock)")
}

/// Draw `records` into `path`, titled `title`.
pub fn write(path: &Path, title: &str, records: &Records) -> Result<(), WriteError> {
    run_file::write("timeline", path, draw(title, records))
}

/// The SVG picture of `records`, titled `title`.
pub fn draw(title: &str, records: &Records) -> String {
    let timeline = lanes::read(&records.records);
    let note = (records.dropped > 0).then(|| {
        format!(
            "the first {} events only ({} more not drawn)",
            records.records.len(),
            records.dropped
        )
    });
    svg::render(title, &timeline, note.as_deref())
}

/// Run `program` on a fresh virtual clock with its output captured (not printed) and its
/// events recorded; return the records.
pub fn capture(program: impl FnOnce(Rc<dyn Clock>)) -> Records {
    let clock: Rc<dyn Clock> = crate::VirtualClock::new();
    let output = Transcript::capture(clock.clone(), false);
    record::start(clock.clone());
    program(clock);
    let records = record::stop();
    drop(output); // the captured lines are not wanted: the events carry the `say!` lines
    records
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Id};
    use std::time::Duration;

    /// The steps stage 1's scheduler reports for a callback that says `tick` and schedules
    /// one that says `tock` a second later, reported by hand: every scheduler stands on
    /// this crate, so none can run here (`tests/timelines.rs` at the root draws real runs).
    #[test]
    fn a_recorded_run_becomes_a_picture_with_its_lanes() {
        let s = Duration::from_secs;
        let (c1, c2) = (Id::Callback(1), Id::Callback(2));
        let records = capture(|clock| {
            crate::event!(Event::CallSoon { id: c1 });
            crate::event!(Event::Run { id: c1 });
            crate::say!("tick");
            crate::event!(Event::CallLater {
                id: c2,
                delay: s(1),
                due: s(1),
                seq: 0
            });
            crate::event!(Event::WaitTimer {
                until: s(1),
                id: c2,
                seq: 0
            });
            clock.sleep_until(s(1));
            crate::event!(Event::Run { id: c2 });
            crate::say!("tock");
            crate::event!(Event::Done {
                why: "nothing ready, nothing sleeping"
            });
        });
        let svg = draw("stage 1 · test", &records);
        assert!(svg.contains(">c1</text>"), "{svg}");
        assert!(svg.contains(">tick</text>"), "{svg}");
        assert!(svg.contains(r#"class="sleep""#), "{svg}");
    }
}
