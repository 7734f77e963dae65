//! Where the examples' lines go: the output contract and the scheduler trace (book
//! introduction, "Running the examples"; chapter 1, "The heap and its tie-breaker";
//! "Going further", "Output that never blocks the loop").
//!
//! The talk prints with `print(...)`. Our examples print with [`say!`](crate::say) instead,
//! which writes to this thread's *console*. The console knows three things the talk's
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
//! compares with the reviewed copy on disk. [`warn!`](crate::warn) sends a diagnostic line
//! (`accept failed: ...`) to standard error.
//!
//! Neither stream is written by the thread that says something: the line is handed to a
//! writer thread through a bounded buffer ([`output`](crate::output)), because a scheduler
//! that blocks on a full pipe stops every task it runs. A line that does not fit is
//! dropped and counted. When a thread that printed ends, its lines are flushed, waiting
//! only while the writer makes progress, and lost lines are reported on standard error:
//! `N lines of output dropped: standard output was not being read`, and last, for
//! standard error's own, `N lines of diagnostics dropped: standard error was not being
//! read` (the event loop's log goes through [`warn!`](crate::warn) too). That happens in a
//! thread-local's destructor, which Rust runs when a thread ends and, on Linux with glibc,
//! when `main` returns or the process calls `exit` (this crate's `tests/stdout.rs` checks
//! the latter); [`cli::exit_with_error`](crate::cli::exit_with_error) also flushes explicitly.
//!
//! Why a thread-local and not a global: like the talk's `print`, every piece of the
//! program can say something without being handed an output object, yet two tests running
//! on two threads each capture their own lines.

use std::cell::RefCell;
use std::fmt;
use std::fs::File;
use std::io::{self, Write};
#[cfg(unix)]
use std::os::fd::AsFd as AsOwnable;
#[cfg(windows)]
use std::os::windows::io::AsHandle as AsOwnable;
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::Duration;

use crate::clock::Clock;
use crate::output::{CAPACITY, Held, Output, report};

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
    /// Plain lines to standard output, no stamps, no trace: the talk's `print`.
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
            // Never blocks: a line the writer cannot take now is dropped and counted.
            Sink::Stdout => send(&streams().stdout, &line),
            Sink::Memory(buffer) => buffer.borrow_mut().push_str(&line),
        }
    }
}

/// The two streams and their writer threads, started together on first use (so that the
/// report on standard error never needs a thread started while the process exits).
struct Streams {
    stdout: Output,
    stderr: Output,
}

static STREAMS: OnceLock<Streams> = OnceLock::new();

fn streams() -> &'static Streams {
    STREAMS.get_or_init(|| Streams {
        stdout: Output::spawn("stdout-writer", unbuffered(io::stdout()), CAPACITY),
        stderr: Output::spawn("stderr-writer", unbuffered(io::stderr()), CAPACITY),
    })
}

/// A stream's own descriptor, duplicated, to write without `std`'s line buffer (whose
/// flush at exit would block on a full pipe). If no descriptor is left to duplicate, the
/// standard handle itself.
fn unbuffered<S: AsOwnable + Write + Send + 'static>(stream: S) -> Box<dyn Write + Send> {
    #[cfg(unix)]
    let own = stream.as_fd().try_clone_to_owned();
    #[cfg(windows)]
    let own = stream.as_handle().try_clone_to_owned();
    match own {
        // Our own descriptor for the same pipe, terminal or file: plain `write(2)` calls.
        Ok(fd) => Box::new(File::from(fd)),
        // Out of descriptors, say: the standard handle still works, line-buffered.
        Err(_) => Box::new(stream),
    }
}

/// How long a flush waits for a writer that makes no progress.
const STALL: Duration = Duration::from_secs(1);

thread_local! {
    /// Armed by a thread's first line to a real stream: flushes when the thread ends.
    static FLUSH_AT_EXIT: FlushAtExit = const { FlushAtExit };
}

struct FlushAtExit;

impl Drop for FlushAtExit {
    fn drop(&mut self) {
        flush();
    }
}

fn send(output: &Output, line: &str) {
    // Arm the flush. A thread already ending (a line said from a thread-local's
    // destructor) has no guard left to arm; its line is written or counted all the same.
    FLUSH_AT_EXIT.try_with(|_| ()).ok();
    // A dropped line is counted by `output`, and reported by `flush`.
    output.line(line);
}

/// Wait (while the writers make progress) until every line is written, then report on
/// standard error how many were lost. Runs by itself when a thread that printed ends; call
/// it before `std::process::exit`, which ends the other threads without running theirs.
pub fn flush() {
    if let Some(streams) = STREAMS.get() {
        report(&streams.stdout, &streams.stderr, STALL);
    }
}

/// Keep the writer threads from writing (standard output's only if `stdout`) until the
/// returned sinks are dropped: `--step` draws on the terminal, and a line written there
/// meanwhile would land in the middle of its panels. Lines said meanwhile wait, never the
/// one who says them; drop the holds before [`flush`].
pub(crate) fn hold(stdout: bool) -> (Option<Held<'static>>, Option<Held<'static>>) {
    let streams = streams();
    let out = if stdout { streams.stdout.hold() } else { None };
    (out, streams.stderr.hold())
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

/// Write one diagnostic line to standard error, without blocking. Use it through
/// [`warn!`](crate::warn).
pub fn warn(args: fmt::Arguments<'_>) {
    send(&streams().stderr, &format!("{args}\n"));
}

/// Print a line of program output: the talk's `print`, stamped as the flags ask.
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

/// Print a diagnostic line to standard error (`accept failed: ...`) without ever blocking
/// the loop; not part of the program's output, so never stamped nor captured.
#[macro_export]
macro_rules! warn {
    ($($arg:tt)*) => {
        $crate::console::warn(::std::format_args!($($arg)*))
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
