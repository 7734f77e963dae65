//! Where the examples' lines go: the output contract and the scheduler trace (book
//! introduction, "The output contract"; chapter 1, "Watching the scheduler").
//!
//! The seed prints with `print(...)`. Our examples print with [`say!`](crate::say) instead,
//! which writes to this thread's *console*. The console knows three things the seed's
//! `print` does not:
//!
//! - whether to stamp each line with scheduler time, as `format!("{:7.3} | {}", secs, line)`
//!   (`--timestamps`);
//! - which clock gives that time (real, or virtual with `--virtual-time`);
//! - whether the scheduler's own steps should appear too (`--trace`). Schedulers report
//!   them with [`trace!`](crate::trace); such lines are marked with `~` instead of `|`
//!   so they are never mistaken for the program's output.
//!
//! Lines go to standard output, or, in tests, into a [`Transcript`] that a snapshot test
//! compares with the reviewed copy on disk.
//!
//! Why a thread-local and not a global: like the seed's `print`, every piece of the
//! program can say something without being handed an output object, yet two tests running
//! on two threads each capture their own lines.

use std::cell::RefCell;
use std::fmt;
use std::io::Write;
use std::rc::Rc;

use crate::clock::Clock;

/// Where this thread's lines go and how they are stamped.
pub struct Console {
    clock: Option<Rc<dyn Clock>>,
    timestamps: bool,
    trace: bool,
    sink: Sink,
}

enum Sink {
    Stdout,
    Memory(Rc<RefCell<String>>),
}

impl Default for Console {
    /// Plain lines to standard output, no stamps, no trace: the seed's `print`.
    fn default() -> Self {
        Console {
            clock: None,
            timestamps: false,
            trace: false,
            sink: Sink::Stdout,
        }
    }
}

impl Console {
    /// A console writing to standard output. `timestamps` and `trace` take effect only
    /// with a clock to read the time from.
    pub fn stdout(clock: Rc<dyn Clock>, timestamps: bool, trace: bool) -> Console {
        Console {
            clock: Some(clock),
            timestamps,
            trace,
            sink: Sink::Stdout,
        }
    }

    fn write(&self, marker: char, args: fmt::Arguments<'_>) {
        let line = match (&self.clock, self.timestamps) {
            (Some(clock), true) => {
                format!("{:7.3} {marker} {args}\n", clock.now().as_secs_f64())
            }
            _ if marker == '|' => format!("{args}\n"),
            _ => format!("{marker} {args}\n"),
        };
        match &self.sink {
            // A closed pipe (`... | head`) must not crash a demo: output errors are ignored,
            // as there is nowhere left to report them.
            Sink::Stdout => drop(std::io::stdout().lock().write_all(line.as_bytes())),
            Sink::Memory(buffer) => buffer.borrow_mut().push_str(&line),
        }
    }
}

thread_local! {
    static CONSOLE: RefCell<Console> = RefCell::new(Console::default());
}

/// Make `console` this thread's console; returns the one it replaces.
pub fn install(console: Console) -> Console {
    crate::record::set_tracing(console.trace); // `event!` asks one flag, not the console
    CONSOLE.with(|c| c.replace(console))
}

/// Write one line of program output. Use it through [`say!`](crate::say).
pub fn say(args: fmt::Arguments<'_>) {
    CONSOLE.with(|c| c.borrow().write('|', args));
    crate::record::say(args); // for `--timeline`: the line names the lane that said it
}

/// True when scheduler steps should be reported (`--trace`).
pub fn tracing() -> bool {
    CONSOLE.with(|c| c.borrow().trace)
}

/// Write one trace line. Use it through [`trace!`](crate::trace), which skips the
/// formatting entirely when tracing is off.
pub fn trace(args: fmt::Arguments<'_>) {
    CONSOLE.with(|c| {
        let console = c.borrow();
        if console.trace {
            console.write('~', args);
        }
    });
}

/// Print a line of program output: the seed's `print`, stamped as the flags ask.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::console::say(::std::format_args!($($arg)*))
    };
}

/// Report a scheduler step (shown only with `--trace`).
#[macro_export]
macro_rules! trace {
    ($($arg:tt)*) => {
        if $crate::console::tracing() {
            $crate::console::trace(::std::format_args!($($arg)*))
        }
    };
}

/// The lines a program printed while a capture was installed, timestamped; restores the
/// previous console when dropped.
pub struct Transcript {
    buffer: Rc<RefCell<String>>,
    previous: Option<Console>,
}

impl Transcript {
    /// Capture this thread's lines, stamped by `clock`, with or without trace lines.
    pub fn capture(clock: Rc<dyn Clock>, trace: bool) -> Transcript {
        let buffer = Rc::new(RefCell::new(String::new()));
        let previous = install(Console {
            clock: Some(clock),
            timestamps: true,
            trace,
            sink: Sink::Memory(buffer.clone()),
        });
        Transcript {
            buffer,
            previous: Some(previous),
        }
    }

    /// Everything captured so far.
    pub fn text(&self) -> String {
        self.buffer.borrow().clone()
    }
}

impl Drop for Transcript {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            install(previous);
        }
    }
}

/// Run `program` on a fresh [`VirtualClock`](crate::VirtualClock) and return what it
/// printed, stamped with virtual time: what `--virtual-time` (and `--trace`) shows, as a
/// string for a snapshot test.
pub fn transcript(trace: bool, program: impl FnOnce(Rc<dyn Clock>)) -> String {
    let clock: Rc<dyn Clock> = crate::VirtualClock::new();
    let capture = Transcript::capture(clock.clone(), trace);
    program(clock);
    capture.text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VirtualClock;
    use std::time::Duration;

    #[test]
    fn lines_are_stamped_and_trace_lines_marked() {
        let clock = VirtualClock::new();
        let capture = Transcript::capture(clock.clone(), true);
        crate::say!("Down {}", 5);
        clock.sleep_until(Duration::from_millis(4000));
        crate::trace!("run #{}", 3);
        crate::say!("Down 4");
        assert_eq!(
            capture.text(),
            "  0.000 | Down 5\n  4.000 ~ run #3\n  4.000 | Down 4\n"
        );
    }

    #[test]
    fn trace_lines_are_dropped_unless_asked_for() {
        let text = transcript(false, |_| {
            crate::trace!("call_soon #1");
            crate::say!("Up 0");
        });
        assert_eq!(text, "  0.000 | Up 0\n");
    }

    #[test]
    fn capture_restores_the_previous_console() {
        let outer = Transcript::capture(VirtualClock::new(), false);
        drop(Transcript::capture(VirtualClock::new(), false));
        crate::say!("still captured");
        assert_eq!(outer.text(), "  0.000 | still captured\n");
    }
}
