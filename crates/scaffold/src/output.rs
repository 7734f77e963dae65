//! Output that never blocks the loop (book, "Going further", "Output that never blocks
//! the loop", where chapter 1's "When nobody reads the output" points). No public source:
//! the talk's `print` writes and, if the pipe is full, waits.
//!
//! A scheduler runs everything on one thread, so a `print` that blocks stops every task.
//! Writing to a terminal or a file never blocks for long, but writing to a pipe blocks
//! when the pipe is full, and a pipe is full for good when nobody reads it
//! (`echo_server | sleep 600`): after about 64 KiB of `Connection closed` lines the
//! server's next line waits for ever, and so does every client.
//!
//! So the thread that says something never writes. It appends the line to a buffer of at
//! most [`CAPACITY`] bytes and wakes a writer thread, which does the blocking writes, in
//! order. A line that does not fit is dropped and counted. [`Output::flush`] waits for the
//! writer to finish, but only as long as it makes progress, and tells how many lines were
//! lost: [`console`](crate::console) calls it when a thread that printed ends (`main`
//! included) and reports the count on standard error.
//!
//! A write that fails (the reader closed the pipe, `... | head`) ends the output: later
//! lines are discarded without being counted, as there is nobody left to tell.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// How many bytes may wait for the writer: far more than any demo prints in the time a
/// terminal takes to show it, and a bound on memory when nobody reads.
pub const CAPACITY: usize = 1 << 20;

/// The most one write hands the sink: `PIPE_BUF` on Linux. A write of at most this much
/// to a pipe is atomic: it waits until all of it fits and then copies all of it, so a line
/// counted as unwritten never reached the reader in part, and every write that returns is
/// progress a flush can see (a larger blocking write returns only once all of it is in).
const PIECE: usize = 4096;

/// One output stream (standard output, say) with its writer thread.
pub struct Output {
    shared: Arc<Shared>,
    /// Set when no writer thread could be started: lines are then written directly.
    direct: bool,
}

/// What the saying threads and the writer thread share.
struct Shared {
    state: Mutex<State>,
    /// Signalled when lines arrive (for the writer) and when the writer makes progress
    /// (for [`Output::flush`]).
    changed: Condvar,
    sink: Mutex<Box<dyn Write + Send>>,
    capacity: usize,
}

#[derive(Default)]
struct State {
    /// Lines waiting for the writer, and how many.
    pending: Vec<u8>,
    pending_lines: u64,
    /// What the writer has taken and not yet written.
    in_flight_bytes: usize,
    in_flight_lines: u64,
    /// Lines refused because the buffer was full, since the last flush.
    dropped: u64,
    /// Counts the writer's successful writes: a flush waits only while it moves.
    progress: u64,
    /// A write failed: the reader has gone.
    broken: bool,
    /// The owner dropped the `Output`: the writer thread ends.
    closing: bool,
}

impl Output {
    /// An output writing to `sink` through a writer thread named `name`, buffering at
    /// most `capacity` bytes.
    pub fn spawn(name: &str, sink: impl Write + Send + 'static, capacity: usize) -> Output {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            sink: Mutex::new(Box::new(sink)),
            capacity,
        });
        let writer = shared.clone();
        let spawned = thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || writer.run());
        // No thread to be had (a process limit): write in the caller, as `print` does,
        // rather than lose the output.
        let direct = spawned.is_err();
        Output { shared, direct }
    }

    // ANCHOR: line
    /// Queue one line (ending in `\n`) without blocking; `false` if it was dropped
    /// because the writer is [`CAPACITY`] bytes behind. A message of several lines (the
    /// loop's log of an error, say) is queued or dropped whole, and counted as its lines.
    pub fn line(&self, line: &str) -> bool {
        if self.direct {
            return self.shared.write_directly(line.as_bytes());
        }
        // The writer counts what it writes by `\n`, so lines are counted the same way.
        let lines = (line.bytes().filter(|&b| b == b'\n').count() as u64).max(1);
        let mut state = self.shared.lock();
        if state.broken {
            return false;
        }
        let queued = state.pending.len() + state.in_flight_bytes;
        if queued + line.len() > self.shared.capacity {
            state.dropped += lines;
            return false;
        }
        state.pending.extend_from_slice(line.as_bytes());
        state.pending_lines += lines;
        self.shared.changed.notify_all();
        true
    }
    // ANCHOR_END: line

    /// Wait until every queued line is written, for as long as the writer keeps making
    /// progress: give up once it has been stuck for `stall`. Returns how many lines were
    /// lost since the last flush: dropped, or still unwritten when it gave up (those are
    /// discarded, so that a later flush does not count them again).
    pub fn flush(&self, stall: Duration) -> u64 {
        let mut state = self.shared.lock();
        let mut seen = (state.progress, Instant::now());
        while !state.broken && state.pending_lines + state.in_flight_lines > 0 {
            if state.progress != seen.0 {
                seen = (state.progress, Instant::now());
            }
            let stuck_for = seen.1.elapsed();
            if stuck_for >= stall {
                state.dropped += state.pending_lines + state.in_flight_lines;
                state.pending.clear();
                state.pending_lines = 0;
                state.in_flight_lines = 0;
                break;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, stall - stuck_for)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        std::mem::take(&mut state.dropped)
    }
}

/// Flush `stdout`, then `stderr` (each for as long as it makes progress, giving up after
/// `stall` without), telling on `stderr` what each lost: standard output's losses first,
/// then standard error's own, last, for a reader that was only slow (one that reads
/// nothing loses that line too).
pub fn report(stdout: &Output, stderr: &Output, stall: Duration) {
    tell(stderr, stdout.flush(stall), "output", "standard output");
    if tell(stderr, stderr.flush(stall), "diagnostics", "standard error") {
        stderr.flush(stall);
    }
}

/// Queue `N lines of WHAT dropped: STREAM was not being read` on `stderr` if `lost > 0`.
fn tell(stderr: &Output, lost: u64, what: &str, stream: &str) -> bool {
    let lines = if lost == 1 { "line" } else { "lines" };
    let line = format!("{lost} {lines} of {what} dropped: {stream} was not being read\n");
    lost > 0 && stderr.line(&line)
}

/// The sink of an [`Output`], taken from its writer thread: while this lives the writer
/// writes nothing (its lines wait, as for a slow reader), and whoever holds it writes to the
/// sink directly. `--step` holds the terminal this way while it draws there.
pub struct Held<'a>(MutexGuard<'a, Box<dyn Write + Send>>);

impl Output {
    /// Take the sink from the writer thread until the [`Held`] is dropped; `None` when
    /// there is no writer thread (the caller writes directly, and would wait on itself).
    /// Release it before a [`Output::flush`], which would count the waiting lines lost.
    pub fn hold(&self) -> Option<Held<'_>> {
        (!self.direct).then(|| Held(self.shared.sink()))
    }
}

impl Write for Held<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.changed.notify_all();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the counters consistent enough to go on.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer thread: take everything queued, write it, repeat.
    fn run(&self) {
        let mut chunk = Vec::new();
        loop {
            let mut state = self.lock();
            while state.pending.is_empty() && !state.closing {
                state = self
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if state.pending.is_empty() {
                return; // closing, and nothing left to write
            }
            std::mem::swap(&mut chunk, &mut state.pending);
            state.in_flight_bytes = chunk.len();
            state.in_flight_lines = std::mem::take(&mut state.pending_lines);
            drop(state);
            self.write_chunk(&chunk);
            chunk.clear();
        }
    }

    /// Write `chunk`, in pieces of at most [`PIECE`] bytes, reporting progress after every
    /// write so that a flush can tell a slow reader from one that has stopped reading.
    fn write_chunk(&self, chunk: &[u8]) {
        let mut written = 0;
        while written < chunk.len() {
            let mut sink = self.sink();
            let end = chunk.len().min(written + PIECE);
            let result = sink
                .write(&chunk[written..end])
                .and_then(|n| sink.flush().map(|()| n));
            drop(sink);
            let mut state = self.lock();
            match result {
                // Part or all of it went out: count the lines it completed.
                Ok(n) if n > 0 => {
                    let lines = chunk[written..written + n]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count() as u64;
                    written += n;
                    state.in_flight_bytes = chunk.len() - written;
                    state.in_flight_lines = state.in_flight_lines.saturating_sub(lines);
                    state.progress += 1;
                }
                // A signal interrupted the write before anything was written: again.
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                // The reader is gone (a closed pipe) or the sink takes nothing more:
                // discard everything, now and from now on.
                Ok(_) | Err(_) => {
                    state.broken = true;
                    state.pending.clear();
                    state.pending_lines = 0;
                    state.in_flight_lines = 0;
                    state.in_flight_bytes = 0;
                    self.changed.notify_all();
                    return;
                }
            }
            self.changed.notify_all();
        }
    }

    fn sink(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        self.sink.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The fallback without a writer thread: the blocking write of the talk's `print`.
    fn write_directly(&self, line: &[u8]) -> bool {
        let mut sink = self.sink();
        sink.write_all(line).and_then(|()| sink.flush()).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A sink that records what it is given.
    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<u8>>>);

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A reader that has stopped reading: each write announces itself on `entered`, then
    /// waits until the test sends on `gate` (or drops it).
    struct Stuck {
        entered: mpsc::Sender<()>,
        gate: mpsc::Receiver<()>,
        out: Recorder,
    }

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.entered.send(()).expect("the test is waiting");
            // Either way the write goes through: a message opens the gate for one write,
            // a dropped gate (the error) for good.
            self.gate.recv().ok();
            self.out.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn lines(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("line {i:05}\n")).collect()
    }

    #[test]
    fn every_line_arrives_in_order_when_the_reader_reads() {
        let out = Recorder::default();
        let output = Output::spawn("test-output", out.clone(), CAPACITY);
        let all = lines(20_000);
        for line in &all {
            assert!(output.line(line));
        }
        assert_eq!(output.flush(Duration::from_secs(60)), 0);
        assert_eq!(*out.0.lock().unwrap(), all.concat().into_bytes());
    }

    /// The writer is stuck in its first write; with room for 12 lines of 11 bytes (the
    /// one in flight included), 12 are kept and 38 dropped, and `line` never waits.
    fn stuck_output() -> (Output, mpsc::Receiver<()>, mpsc::Sender<()>, Recorder) {
        let (entered, entering) = mpsc::channel();
        let (open, gate) = mpsc::channel();
        let out = Recorder::default();
        let sink = Stuck {
            entered,
            gate,
            out: out.clone(),
        };
        let output = Output::spawn("test-output", sink, 12 * 11);
        let all = lines(50);
        assert!(output.line(&all[0]));
        entering.recv().unwrap(); // the writer holds line 0 and is stuck
        let kept = all[1..].iter().filter(|line| output.line(line)).count();
        assert_eq!(kept, 11);
        (output, entering, open, out)
    }

    #[test]
    fn a_reader_that_stops_costs_dropped_lines_never_a_wait() {
        let (output, entering, open, out) = stuck_output();
        // The writer stays stuck: the flush gives up, and every line not written is lost.
        assert_eq!(output.flush(Duration::from_millis(50)), 50);
        assert_eq!(output.flush(Duration::from_millis(50)), 0, "counted once");
        open.send(()).unwrap();
        drop(output);
        drop(open);
        // Line 0 was in the sink's hands already; the 11 waiting ones were discarded.
        while entering.recv().is_ok() {}
        assert_eq!(*out.0.lock().unwrap(), b"line 00000\n");
    }

    #[test]
    fn a_reader_that_catches_up_gets_every_kept_line_in_order() {
        let (output, _entering, open, out) = stuck_output();
        drop(open); // the reader reads again
        assert_eq!(output.flush(Duration::from_secs(60)), 38);
        assert_eq!(*out.0.lock().unwrap(), lines(12).concat().into_bytes());
    }

    #[test]
    fn a_held_sink_keeps_the_lines_back_until_it_is_released() {
        let out = Recorder::default();
        let output = Output::spawn("test-output", out.clone(), CAPACITY);
        let mut held = output.hold().expect("a writer thread");
        assert!(output.line("kept back\n"));
        held.write_all(b"drawn\n").unwrap();
        std::thread::sleep(Duration::from_millis(20)); // a writer not held would write now
        assert_eq!(*out.0.lock().unwrap(), b"drawn\n");
        drop(held);
        assert_eq!(output.flush(Duration::from_secs(60)), 0);
        assert_eq!(*out.0.lock().unwrap(), b"drawn\nkept back\n");
    }

    #[test]
    fn a_message_of_several_lines_is_dropped_whole_and_counted_as_its_lines() {
        let out = Recorder::default();
        let output = Output::spawn("test-output", out.clone(), 8);
        let held = output.hold().expect("a writer thread");
        assert!(output.line("0123456\n")); // the whole buffer, written or not yet
        assert!(!output.line("ERROR:x\nreset\n"));
        drop(held);
        assert_eq!(output.flush(Duration::from_secs(60)), 2);
        assert_eq!(*out.0.lock().unwrap(), b"0123456\n");
    }

    /// A standard error that a reader catches up with gets, after what was kept, how many
    /// lines were dropped (here the second message, which did not fit beside the first).
    #[test]
    fn dropped_diagnostics_are_counted_last_on_standard_error() {
        let (out, err) = (Recorder::default(), Recorder::default());
        let stdout = Output::spawn("test-stdout", out.clone(), CAPACITY);
        // Room for the count's line, not for both messages at once.
        let stderr = Output::spawn("test-stderr", err.clone(), 100);
        let held = stderr.hold().expect("a writer thread");
        assert!(stderr.line("ERROR:asyncio:kept\n"));
        let reset = "Connection reset by peer (os error 104)";
        assert!(!stderr.line(&format!("ERROR:asyncio:lost\n{reset}: {reset}\n")));
        drop(held); // the reader reads again
        report(&stdout, &stderr, Duration::from_secs(60));
        let text = String::from_utf8(err.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "ERROR:asyncio:kept\n2 lines of diagnostics dropped: standard error was not being read\n"
        );
        assert!(
            out.0.lock().unwrap().is_empty(),
            "nothing on standard output"
        );
    }

    #[test]
    fn a_closed_pipe_ends_the_output_silently() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let output = Output::spawn("test-output", Closed, CAPACITY);
        output.line("first\n");
        assert_eq!(output.flush(Duration::from_secs(60)), 0);
        assert!(!output.line("second\n"));
        assert_eq!(output.flush(Duration::from_secs(60)), 0);
    }
}
