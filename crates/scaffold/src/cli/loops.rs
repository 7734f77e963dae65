//! The output contract's flags in a program that runs several loops on several threads,
//! `echo_server --loops N` (book introduction, "Watching a run", and the book's "Beyond
//! one core"). No seed section: the project's own instrument. A child of `cli`: the
//! same [`Options`], and the same end, for the loops after the first.

use std::rc::Rc;

use super::{Options, bounds_note};
use crate::clock::Clock;
use crate::console::{self, Console};
use crate::record;
use crate::timeline;
use crate::trace_events;

impl Options {
    /// [`Options::install`] for loop `index` (from 1) of a program that runs several loops
    /// on several threads (`echo_server --loops N`): this thread's console and, with
    /// `--record`, a recording of this thread too, handed in when the loop ends
    /// ([`Options::finish_loop`]) and written with the first loop's by
    /// [`Options::finish`]. No file is created here, and `--timeline` (which draws one
    /// loop) is left to the first loop.
    pub fn install_loop(&self) -> Rc<dyn Clock> {
        let clock = self.clock();
        console::install(Console::stdout(clock.clone(), self.timestamps, self.trace));
        if self.record.is_some() {
            record::start(clock.clone());
        }
        clock
    }

    /// The end of loop `index`'s thread ([`Options::install_loop`]): with `--record`, its
    /// recording, made into trace events, is handed in for the first loop to write.
    pub fn finish_loop(&self, index: usize) {
        if self.record.is_none() {
            return;
        }
        let records = record::stop();
        if let Some(note) = bounds_note(&records) {
            crate::warn!("loop {index}: {note}");
        }
        let title = format!("{} · loop {index}", timeline::title(self.virtual_time));
        trace_events::hand_in(index, trace_events::group(&title, &records));
    }
}
