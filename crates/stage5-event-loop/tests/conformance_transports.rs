//! Conformance of chapter 8's transports, protocols and streams with CPython 3.11's asyncio.
//!
//! As `tests/conformance.rs`: each scenario runs on the virtual clock with `--trace`, its
//! transcript is a snapshot, and, where `python3` is installed, the script of the same name
//! in `conformance/` runs the same scenario on CPython's own `SelectorEventLoop` on a
//! virtual clock (`conformance/vloop_io.py`) and its lines must equal our notes, iteration
//! numbers and times included (the snapshot writes descriptor numbers as `fd N`). The sockets are Unix socket pairs: what one end sends is
//! readable at the other before the next select, on both loops alike.

#[path = "support/cpython.rs"]
mod cpython;
use cpython::{compare_with_cpython, compare_with_cpython_by, without_spawning};

use std::cell::RefCell;
use std::fmt::Display;
use std::io::{ErrorKind, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use stage5::streams::open_connection_on;
use stage5::{
    EventLoop, Future, IncompleteReadError, LimitOverrunError, Protocol, Transport, say, sleep,
    transcript,
};

fn note(lp: &EventLoop, text: impl Display) {
    say!("[{}] {text}", lp.iteration());
}

fn py(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// `scenario`'s transcript, traced, on a loop on the virtual clock that it closes after.
fn run(scenario: impl FnOnce(&EventLoop)) -> String {
    without_spawning(|| {
        transcript(true, |clock| {
            let lp = EventLoop::with_clock(clock);
            scenario(&lp);
            lp.close().unwrap();
        })
    })
}

/// Run `scenario` on a loop on the virtual clock, snapshot its transcript, compare its
/// notes with `conformance/<name>.py`.
fn check(name: &str, scenario: impl FnOnce(&EventLoop)) {
    let text = run(scenario);
    let ours: Vec<&str> = text.lines().filter(|l| l.contains(" | ")).collect();
    compare_with_cpython(name, &ours);
    insta::assert_snapshot!(name, without_fd_numbers(&text));
}

/// [`check`] for a scenario paced by the kernel: how many bytes a Unix socket takes per
/// write depends on how the kernel accounts its buffers at that moment (memory pressure
/// changes it), and so do the rounds a full buffer takes to drain. Both sides' notes are
/// compared, and snapshotted, without their times, iterations and buffer sizes (a 0 kept):
/// the order of the protocol's calls is what must agree.
fn check_paced(name: &str, scenario: impl FnOnce(&EventLoop)) {
    let text = run(scenario);
    let ours: Vec<String> = text
        .lines()
        .filter(|l| l.contains(" | "))
        .map(paced)
        .collect();
    compare_with_cpython_by(name, &ours, paced);
    insta::assert_snapshot!(name, ours.join("\n"));
}

/// A note without its time and iteration, and with `buffer 16448` as `buffer N`.
fn paced(line: &str) -> String {
    let note = line.split_once(" | ").map_or(line, |(_, note)| note);
    let note = note.split_once("] ").map_or(note, |(_, rest)| rest);
    let mut out = String::new();
    let mut rest = note;
    while let Some(i) = rest.find("buffer ") {
        out.push_str(&rest[..i + "buffer ".len()]);
        rest = &rest[i + "buffer ".len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && &rest[..digits] != "0" {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// The transcript with every `fd 12` as `fd N`: descriptor numbers depend on the tests that
/// run beside this one in the same process.
fn without_fd_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("fd ") {
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// `vloop_io.Recorder`: notes every call.
struct Recorder {
    lp: EventLoop,
    keep_open: bool,
    transport: RefCell<Option<Transport>>,
    lost: Future<()>,
}

impl Recorder {
    fn new(lp: &EventLoop, keep_open: bool) -> Rc<Recorder> {
        Rc::new(Recorder {
            lp: lp.clone(),
            keep_open,
            transport: RefCell::new(None),
            lost: lp.create_future(),
        })
    }

    fn buffer(&self) -> usize {
        self.transport
            .borrow()
            .as_ref()
            .map_or(0, Transport::get_write_buffer_size)
    }
}

impl Protocol for Recorder {
    fn connection_made(&self, transport: &Transport) {
        *self.transport.borrow_mut() = Some(transport.clone());
        note(&self.lp, "connection_made");
    }
    fn data_received(&self, data: &[u8]) {
        note(&self.lp, format!("data_received {} bytes", data.len()));
    }
    fn eof_received(&self) -> bool {
        note(&self.lp, format!("eof_received -> {}", py(self.keep_open)));
        self.keep_open
    }
    fn connection_lost(&self, exc: Option<stage5::Error>) {
        let what = if exc.is_none() { "None" } else { "error" };
        note(&self.lp, format!("connection_lost {what}"));
        self.lost.set_result(()).unwrap();
        self.transport.borrow_mut().take(); // the cycle through us ends here
    }
    fn pause_writing(&self) {
        note(&self.lp, format!("pause_writing, buffer {}", self.buffer()));
    }
    fn resume_writing(&self) {
        note(
            &self.lp,
            format!("resume_writing, buffer {}", self.buffer()),
        );
    }
}

/// `vloop_io.small_pair`: the first end has a small send buffer; the second is the peer.
fn small_pair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    socket2::SockRef::from(&a)
        .set_send_buffer_size(4096)
        .unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

/// `vloop_io.drain_peer`: read what the peer end has; (bytes, eof).
fn drain_peer(mut b: &UnixStream) -> (usize, bool) {
    let mut buf = vec![0; 65536];
    let mut total = 0;
    loop {
        match b.read(&mut buf) {
            // The end of the stream.
            Ok(0) => return (total, true),
            Ok(n) => total += n,
            // Nothing more for now.
            Err(e) if e.kind() == ErrorKind::WouldBlock => return (total, false),
            Err(e) => panic!("peer read: {e}"),
        }
    }
}

/// Run `main` as a task until it completes.
fn run_main<F>(lp: &EventLoop, main: impl FnOnce(EventLoop) -> F)
where
    F: std::future::Future<Output = Result<(), stage5::Error>> + 'static,
{
    let task = lp.create_task(main(lp.clone())).unwrap();
    lp.run_until_complete(&task).unwrap();
}

#[test]
fn test_transport_order() {
    check("test_transport_order", |lp| {
        let (a, mut b) = UnixStream::pair().unwrap();
        b.set_nonblocking(true).unwrap();
        run_main(lp, |lp| async move {
            let (transport, proto) = lp
                .connect_accepted_socket(|| Recorder::new(&lp, false), a)
                .await?;
            note(&lp, "connected");
            b.write_all(b"hello").unwrap();
            sleep(&lp, 1.0).await?;
            b.write_all(b"world!").unwrap();
            b.shutdown(Shutdown::Write).unwrap();
            proto.lost.clone().await?;
            note(&lp, format!("closing {}", py(transport.is_closing())));
            Ok(())
        });
    });
}

#[test]
fn test_transport_water_marks() {
    check_paced("test_transport_water_marks", |lp| {
        let (a, b) = small_pair();
        run_main(lp, |lp| async move {
            let (transport, proto) = lp
                .connect_accepted_socket(|| Recorder::new(&lp, false), a)
                .await?;
            transport.set_write_buffer_limits(Some(16384), Some(4096))?;
            let (low, high) = transport.get_write_buffer_limits();
            note(&lp, format!("limits ({low}, {high})"));
            let mut written = 0;
            for _ in 0..1000 {
                transport.write(&[b'x'; 4096])?;
                written += 4096;
                if transport.get_write_buffer_size() > 16384 {
                    break;
                }
            }
            let size = transport.get_write_buffer_size();
            note(&lp, format!("wrote {written}, buffer {size}"));
            let mut received = 0;
            for _ in 0..1000 {
                sleep(&lp, 1.0).await?;
                received += drain_peer(&b).0;
                if received == written {
                    break;
                }
            }
            let size = transport.get_write_buffer_size();
            let all = py(received == written);
            note(&lp, format!("peer received all: {all}, buffer {size}"));
            transport.close();
            proto.lost.clone().await
        });
    });
}

#[test]
fn test_transport_close_full_buffer() {
    check_paced("test_transport_close_full_buffer", |lp| {
        let (a, b) = small_pair();
        run_main(lp, |lp| async move {
            let (transport, proto) = lp
                .connect_accepted_socket(|| Recorder::new(&lp, false), a)
                .await?;
            transport.write(&vec![b'y'; 100_000])?;
            transport.close();
            let buffered = py(transport.get_write_buffer_size() > 0);
            note(
                &lp,
                format!(
                    "closing {}, buffered {buffered}",
                    py(transport.is_closing())
                ),
            );
            let (mut received, mut eof) = (0, false);
            for _ in 0..1000 {
                sleep(&lp, 1.0).await?;
                let (got, end) = drain_peer(&b);
                received += got;
                eof = end;
                if eof {
                    break;
                }
            }
            note(&lp, format!("peer received {received}, eof {}", py(eof)));
            proto.lost.clone().await
        });
    });
}

#[test]
fn test_transport_abort() {
    check_paced("test_transport_abort", |lp| {
        let (a, b) = small_pair();
        run_main(lp, |lp| async move {
            let (transport, proto) = lp
                .connect_accepted_socket(|| Recorder::new(&lp, false), a)
                .await?;
            transport.write(&vec![b'z'; 100_000])?;
            transport.abort();
            note(
                &lp,
                format!("aborted, buffer {}", transport.get_write_buffer_size()),
            );
            proto.lost.clone().await?;
            let (received, eof) = drain_peer(&b);
            let less = py(received < 100_000);
            note(&lp, format!("peer received less: {less}, eof {}", py(eof)));
            Ok(())
        });
    });
}

#[test]
fn test_transport_half_close() {
    check("test_transport_half_close", |lp| {
        let (a, mut b) = UnixStream::pair().unwrap();
        b.set_nonblocking(true).unwrap();
        run_main(lp, |lp| async move {
            let (transport, proto) = lp
                .connect_accepted_socket(|| Recorder::new(&lp, true), a)
                .await?;
            transport.write(b"ping")?;
            transport.write_eof()?;
            sleep(&lp, 1.0).await?;
            let (n, eof) = drain_peer(&b);
            note(&lp, format!("peer: ({n}, {})", py(eof)));
            b.write_all(b"pong").unwrap();
            b.shutdown(Shutdown::Write).unwrap();
            sleep(&lp, 1.0).await?;
            let (closing, reading) = (transport.is_closing(), transport.is_reading());
            note(
                &lp,
                format!("closing {}, reading {}", py(closing), py(reading)),
            );
            transport.close();
            proto.lost.clone().await
        });
    });
}

/// Python's `repr` of bytes that are printable ASCII.
fn repr(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes).replace('\n', "\\n");
    format!("b'{text}'")
}

#[test]
fn test_stream_readuntil_limit() {
    check("test_stream_readuntil_limit", |lp| {
        let (a, mut b) = UnixStream::pair().unwrap();
        b.set_nonblocking(true).unwrap();
        run_main(lp, |lp| async move {
            let (reader, writer) = open_connection_on(&lp, a, 16).await?;
            let mut data = vec![b'a'; 40];
            data.extend_from_slice(b"\nshort\nbbbbbbbbbb\ntail");
            b.write_all(&data).unwrap();
            let error = reader.readuntil(b"\n").await.unwrap_err();
            let e = LimitOverrunError::of(&error).unwrap();
            let (message, consumed) = (e.message, e.consumed);
            note(
                &lp,
                format!("readuntil: LimitOverrunError '{message}' consumed {consumed}"),
            );
            let error = reader.readline().await.unwrap_err();
            note(&lp, format!("readline: {error}"));
            note(
                &lp,
                format!("readline: {}", repr(&reader.readline().await?)),
            );
            note(
                &lp,
                format!("readexactly: {}", repr(&reader.readexactly(11).await?)),
            );
            b.shutdown(Shutdown::Write).unwrap();
            let error = reader.readexactly(10).await.unwrap_err();
            let e = IncompleteReadError::of(&error).unwrap();
            let (partial, expected) = (repr(&e.partial), e.expected.unwrap());
            note(
                &lp,
                format!("readexactly: IncompleteReadError {partial} expected {expected}"),
            );
            note(&lp, format!("at_eof {}", py(reader.at_eof())));
            writer.close();
            writer.wait_closed().await?;
            note(&lp, "closed");
            Ok(())
        });
    });
}
