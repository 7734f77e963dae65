//! Chapter 8's deliberate behaviours that the conformance scenarios do not show: a
//! transport's descriptor is refused to `add_reader` (asyncio's `_ensure_fd_no_transport`)
//! until the transport closes, and `write` after `write_eof` is an error. And each
//! deliberate difference from asyncio that the chapter's table names, pinned by a test
//! named after it (`deviation_...`).

#[path = "support/protocol_echo.rs"]
mod protocol_echo;

use std::cell::{Cell, RefCell};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use stage5::streams::LimitOverrunError;
use stage5::transports::FdUsedByTransport;
use stage5::{Error, EventLoop, Protocol, StreamReader, Transport, VirtualClock, sleep};

struct Quiet;
impl Protocol for Quiet {}

#[test]
fn add_reader_on_a_transports_descriptor_is_refused_until_it_closes() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (a, _b) = UnixStream::pair().unwrap();
    let fd = a.as_raw_fd();
    let transport = lp
        .make_socket_transport(a.into(), Rc::new(Quiet), None)
        .unwrap();
    for refused in [lp.add_reader(fd, |_| {}), lp.add_writer(fd, |_| {})] {
        let Err(Error::Custom(error)) = refused else {
            panic!("accepted")
        };
        assert!(error.downcast_ref::<FdUsedByTransport>().is_some());
    }
    transport.close();
    assert!(transport.is_closing());
    // Closing: asyncio lets it through (the descriptor is about to be closed).
    let handle = lp.add_reader(fd, |_| {}).unwrap();
    handle.cancel();
    lp.remove_reader(fd);
    lp.close().unwrap();
}

#[test]
fn write_after_write_eof_is_an_error_and_nothing_is_sent() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (a, _b) = UnixStream::pair().unwrap();
    let transport = lp
        .make_socket_transport(a.into(), Rc::new(Quiet), None)
        .unwrap();
    transport.write_eof().unwrap();
    let error = transport.write(b"late").unwrap_err();
    assert_eq!(error.to_string(), "Cannot call write() after write_eof()");
    assert_eq!(transport.get_write_buffer_size(), 0);
    transport.abort();
    lp.close().unwrap();
}

/// Run `lp` until the callbacks scheduled so far, and those they schedule, have run
/// (a few iterations: `sleep(0)` each).
fn settle(lp: &EventLoop) {
    for _ in 0..4 {
        let l = lp.clone();
        let task = lp.create_task(async move { sleep(&l, 0.0).await }).unwrap();
        lp.run_until_complete(&task).unwrap();
    }
}

/// A protocol that says what it was told, through `&self` (its state in cells).
#[derive(Default)]
struct Says(RefCell<Vec<String>>);

impl Protocol for Says {
    fn connection_made(&self, _transport: &Transport) {
        self.0.borrow_mut().push("made".into());
    }
    fn data_received(&self, data: &[u8]) {
        let data = String::from_utf8_lossy(data);
        self.0.borrow_mut().push(format!("data {data}"));
    }
    fn eof_received(&self) -> bool {
        self.0.borrow_mut().push("eof".into());
        false
    }
    fn connection_lost(&self, exc: Option<Error>) {
        self.0.borrow_mut().push(format!("lost {exc:?}"));
    }
}

/// A protocol that pauses reading in `connection_made`, and says what it gets.
#[derive(Default)]
struct PausesAtOnce(Says);

impl Protocol for PausesAtOnce {
    fn connection_made(&self, transport: &Transport) {
        transport.pause_reading();
        self.0.connection_made(transport);
    }
    fn data_received(&self, data: &[u8]) {
        self.0.data_received(data);
    }
}

/// Reading paused in `connection_made` stays paused: the reader the transport schedules
/// to start after `connection_made` is not added (asyncio's `_add_reader` asks
/// `is_reading()` first), and `resume_reading` brings the bytes.
#[test]
fn reading_paused_in_connection_made_stays_paused() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (a, mut b) = UnixStream::pair().unwrap();
    let protocol = Rc::new(PausesAtOnce::default());
    let transport = lp
        .make_socket_transport(a.into(), protocol.clone(), None)
        .unwrap();
    b.write_all(b"early").unwrap();
    settle(&lp);
    assert_eq!(*protocol.0.0.borrow(), ["made"]);
    assert!(!transport.is_reading());
    transport.resume_reading();
    settle(&lp);
    assert_eq!(*protocol.0.0.borrow(), ["made", "data early"]);
    transport.abort();
    lp.close().unwrap();
}

/// Deviation 1: protocol methods take `&self` (the transport holds an `Rc<dyn Protocol>`
/// and the program may hold another), so a protocol keeps its state in cells; and
/// `connection_lost` gets the loop's `Error`, here none.
#[test]
fn deviation_protocol_methods_take_shared_self() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (a, mut b) = UnixStream::pair().unwrap();
    let says = Rc::new(Says::default());
    let protocol: Rc<dyn Protocol> = says.clone(); // ours stays usable beside the transport's
    lp.make_socket_transport(a.into(), protocol, None).unwrap();
    b.write_all(b"hi").unwrap();
    b.shutdown(std::net::Shutdown::Write).unwrap();
    settle(&lp);
    assert_eq!(*says.0.borrow(), ["made", "data hi", "eof", "lost None"]);
    lp.close().unwrap();
}

/// Deviation 2: `readline` past the limit returns the `LimitOverrunError` itself (asyncio
/// raises a `ValueError` with the same message), and the long line is thrown away.
#[test]
fn deviation_readline_past_the_limit_returns_limit_overrun_error() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let reader = StreamReader::with_limit(&lp, 4);
    reader.feed_data(b"0123456789\nnext\n");
    let r = reader.clone();
    let task = lp
        .create_task(async move { Ok(r.readline().await) })
        .unwrap();
    let error = lp.run_until_complete(&task).unwrap().unwrap_err();
    let overrun = LimitOverrunError::of(&error).expect("the LimitOverrunError itself");
    assert_eq!(
        overrun.message,
        "Separator is found, but chunk is longer than limit"
    );
    let r = reader.clone();
    let task = lp.create_task(async move { r.readline().await }).unwrap();
    assert_eq!(lp.run_until_complete(&task).unwrap(), b"next\n");
    lp.close().unwrap();
}

/// Deviation 3: `remove_reader` and `remove_writer` on a transport's descriptor are not
/// refused: they answer a bool (asyncio raises `RuntimeError`). The transport's reader was
/// there, so `remove_reader` answers `true`; it had no writer.
#[test]
fn deviation_remove_reader_on_a_transports_descriptor_is_not_refused() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (a, _b) = UnixStream::pair().unwrap();
    let fd = a.as_raw_fd();
    let transport = lp
        .make_socket_transport(a.into(), Rc::new(Quiet), None)
        .unwrap();
    settle(&lp); // the reader is in place
    assert!(lp.remove_reader(fd));
    assert!(!lp.remove_writer(fd));
    transport.abort();
    settle(&lp);
    lp.close().unwrap();
}

/// Deviation 4: writes after the connection was lost are dropped, all of them silently
/// (asyncio logs a warning from the fifth on); nothing reaches the exception handler.
#[test]
fn deviation_writes_after_connection_lost_are_dropped_silently() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let reported = Rc::new(Cell::new(0));
    let r = reported.clone();
    lp.set_exception_handler(Some(Rc::new(move |_, _| r.set(r.get() + 1))));
    let (a, mut b) = UnixStream::pair().unwrap();
    let says = Rc::new(Says::default());
    let transport = lp
        .make_socket_transport(a.into(), says.clone(), None)
        .unwrap();
    transport.abort();
    settle(&lp);
    assert_eq!(says.0.borrow().last().unwrap(), "lost None");
    for _ in 0..10 {
        assert!(transport.write(b"late").is_ok());
    }
    assert_eq!(transport.get_write_buffer_size(), 0);
    assert_eq!(reported.get(), 0);
    let mut got = Vec::new();
    b.read_to_end(&mut got).unwrap();
    assert!(got.is_empty(), "{got:?}");
    lp.close().unwrap();
}

/// Deviation 5: `create_connection` takes a resolved address (a `SocketAddr`, no host
/// name, no `getaddrinfo` in a thread); connected to it, the transport's peer is it.
#[test]
fn deviation_create_connection_takes_a_resolved_address() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let lp = EventLoop::with_clock(VirtualClock::new());
    let l = lp.clone();
    let task = lp
        .create_task(async move { l.create_connection(|| Rc::new(Quiet), addr).await })
        .unwrap();
    let (transport, _) = lp.run_until_complete(&task).unwrap();
    assert_eq!(transport.peername(), Some(addr));
    let (_accepted, peer) = listener.accept().unwrap();
    assert_eq!(transport.sockname(), Some(peer));
    transport.abort();
    settle(&lp);
    lp.close().unwrap();
}

/// Chapter 8's echo, client and server on one loop, as its timeline draws it: every line
/// comes back, the half-close closes the server, and both ends learn it, in that order.
#[test]
fn the_protocol_echo_of_chapter_8() {
    let text = stage5::transcript(false, |clock| {
        let lp = EventLoop::with_clock(clock);
        protocol_echo::scenario(&lp);
        lp.close().unwrap();
    });
    insta::assert_snapshot!(text);
}

/// A protocol that writes when told to pause or to resume writing, as asyncio lets one
/// do (the bytes join the buffer).
#[derive(Default)]
struct WritesWhenTold {
    transport: RefCell<Option<Transport>>,
}

impl WritesWhenTold {
    fn write(&self, data: &[u8]) {
        if let Some(transport) = self.transport.borrow().as_ref() {
            transport.write(data).unwrap();
        }
    }
}

impl Protocol for WritesWhenTold {
    fn connection_made(&self, transport: &Transport) {
        *self.transport.borrow_mut() = Some(transport.clone());
    }
    fn pause_writing(&self) {
        self.write(b"P");
    }
    fn resume_writing(&self) {
        self.write(b"R");
    }
}

/// `pause_writing` and `resume_writing` may write: the transport held its buffer borrowed
/// while it told the protocol, and the write inside panicked ("already borrowed"; the
/// handler got "protocol.pause_writing() failed", and the bytes were lost).
#[test]
fn a_protocol_may_write_when_told_to_pause_or_to_resume_writing() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let failed = Rc::new(Cell::new(0));
    let f = failed.clone();
    lp.set_exception_handler(Some(Rc::new(move |_, _: &_| f.set(f.get() + 1))));
    let (a, mut peer) = UnixStream::pair().unwrap();
    let protocol = Rc::new(WritesWhenTold::default());
    let transport = lp
        .make_socket_transport(a.into(), protocol.clone(), None)
        .unwrap();
    settle(&lp);
    transport.set_write_buffer_limits(Some(1), Some(0)).unwrap();
    let sent = vec![b'x'; 1 << 20];
    transport.write(&sent).unwrap(); // more than the socket takes: paused
    peer.set_nonblocking(true).unwrap();
    let mut got = Vec::new();
    let mut chunk = vec![0; 1 << 16];
    for _ in 0..10_000 {
        match peer.read(&mut chunk) {
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            // Nothing more yet: let the transport's writer send.
            Err(_) => settle(&lp),
        }
        if got.len() >= sent.len() + 2 {
            break;
        }
    }
    assert_eq!(failed.get(), 0, "a protocol call failed");
    assert_eq!(got.len(), sent.len() + 2);
    assert_eq!(&got[sent.len()..], b"PR");
    protocol.transport.borrow_mut().take();
    transport.abort();
    settle(&lp);
    lp.close().unwrap();
}
