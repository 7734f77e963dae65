//! Chapter 8's hostile clients, on loopback with the real clock: a client that never
//! reads makes a protocol server pause, not grow; a 10 MiB line is an error within the
//! limit, not an allocation; a half-close and a reset lose nothing the server read. Every
//! test is bounded by counts and a generous watchdog (the loop stops after 30 s); none
//! asserts a duration.

use std::cell::{Cell, RefCell};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::rc::Rc;
use std::thread;
use std::time::Duration;

use stage5::streams::DEFAULT_LIMIT;
use stage5::transports::MAX_SIZE;
use stage5::{EventLoop, LimitOverrunError, Protocol, Transport, sleep, start_server};

#[path = "support/poll_until.rs"]
mod poll_until;
use poll_until::poll_until;

const WATCHDOG: f64 = 30.0;

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// A client socket whose reads and writes give up after a generous while: a test whose
/// server stopped early fails instead of leaving its client blocked for ever.
fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    let patience = Some(Duration::from_secs(60));
    stream.set_read_timeout(patience).unwrap();
    stream.set_write_timeout(patience).unwrap();
    stream
}

/// Writes 16 KiB chunks on connection until told to pause (at most 10 000).
#[derive(Default)]
struct Flood {
    paused: Cell<bool>,
    chunks: Cell<usize>,
    peak: Cell<usize>,
    transport: RefCell<Option<Transport>>,
}

impl Protocol for Flood {
    fn connection_made(&self, transport: &Transport) {
        for _ in 0..10_000 {
            if self.paused.get() {
                break;
            }
            transport.write(&[b'f'; 16 * 1024]).unwrap();
            self.chunks.set(self.chunks.get() + 1);
            self.peak
                .set(self.peak.get().max(transport.get_write_buffer_size()));
        }
        *self.transport.borrow_mut() = Some(transport.clone());
    }
    fn pause_writing(&self) {
        self.paused.set(true);
    }
}

#[test]
fn a_client_that_never_reads_pauses_the_protocol_and_the_buffer_stays_bounded() {
    let lp = EventLoop::new();
    let flood = Rc::new(Flood::default());
    let f = flood.clone();
    let server = lp
        .run_until_complete(
            &lp.create_task({
                let l = lp.clone();
                async move { l.create_server(move || f.clone(), any_port()).await }
            })
            .unwrap(),
        )
        .unwrap();
    let _client = TcpStream::connect(server.local_addr().unwrap()).unwrap(); // never reads
    let (f, l) = (flood.clone(), lp.clone());
    lp.call_later(WATCHDOG, EventLoop::stop).unwrap();
    lp.call_soon(move |_| poll_until(&l, move || f.paused.get()))
        .unwrap();
    lp.run_forever().unwrap();
    assert!(flood.paused.get(), "pause_writing was called");
    assert!(
        flood.chunks.get() < 10_000,
        "the writes stopped at the pause"
    );
    let transport = flood.transport.borrow().clone().unwrap();
    assert!(
        flood.peak.get() <= 64 * 1024 + 16 * 1024,
        "over the mark by one write at most"
    );
    transport.abort();
    server.close(&lp);
}

#[test]
fn a_ten_mib_line_is_an_error_within_the_limit_not_an_allocation() {
    let lp = EventLoop::new();
    let outcome = Rc::new(RefCell::new(None));
    let o = outcome.clone();
    let l = lp.clone();
    let server = lp
        .run_until_complete(
            &lp.create_task(async move {
                start_server(
                    &l,
                    move |reader, writer| {
                        let o = o.clone();
                        async move {
                            let error = reader.readuntil(b"\n").await.unwrap_err();
                            let over = LimitOverrunError::of(&error).is_some();
                            let buffered = reader.buffered();
                            let line = reader.readline().await;
                            *o.borrow_mut() = Some((over, buffered, line.is_err()));
                            writer.transport().abort();
                            Ok(())
                        }
                    },
                    any_port(),
                    DEFAULT_LIMIT,
                )
                .await
            })
            .unwrap(),
        )
        .unwrap();
    let addr = server.local_addr().unwrap();
    let client = thread::spawn(move || {
        let mut stream = connect(addr);
        let line = vec![b'a'; 10 * 1024 * 1024];
        // The server gives up and resets: the rest of the line is refused, as it should be.
        let sent = stream.write_all(&line);
        drop(sent);
    });
    let o = outcome.clone();
    let l = lp.clone();
    lp.call_later(WATCHDOG, EventLoop::stop).unwrap();
    lp.call_soon(move |_| poll_until(&l, move || o.borrow().is_some()))
        .unwrap();
    lp.run_forever().unwrap();
    // The handler's abort closes the socket one iteration later (asyncio's
    // `_call_connection_lost` is scheduled with `call_soon`), and the loop may have stopped
    // first: one more short run lets it happen, and the client's blocked write ends.
    let l = lp.clone();
    let flush = lp.create_task(async move { sleep(&l, 0.0).await }).unwrap();
    lp.run_until_complete(&flush).unwrap();
    let (over, buffered, line_failed) = outcome.borrow().unwrap();
    assert!(over, "readuntil fails with LimitOverrunError");
    assert!(
        buffered <= 2 * DEFAULT_LIMIT + MAX_SIZE,
        "buffered {buffered}"
    );
    assert!(line_failed, "readline fails too");
    server.close(&lp);
    client.join().unwrap();
}

/// Counts what it reads; echoes it; notes the end.
#[derive(Default)]
struct Counter {
    read: Cell<usize>,
    eof: Cell<bool>,
    lost: Cell<u32>,
    error: Cell<bool>,
    transport: RefCell<Option<Transport>>,
}

impl Protocol for Counter {
    fn connection_made(&self, transport: &Transport) {
        *self.transport.borrow_mut() = Some(transport.clone());
    }
    fn data_received(&self, data: &[u8]) {
        self.read.set(self.read.get() + data.len());
        if let Some(t) = self.transport.borrow().as_ref() {
            t.write(data).unwrap();
        }
    }
    fn eof_received(&self) -> bool {
        self.eof.set(true);
        false
    }
    fn connection_lost(&self, exc: Option<stage5::Error>) {
        self.lost.set(self.lost.get() + 1);
        self.error.set(exc.is_some());
        self.transport.borrow_mut().take();
    }
}

/// A server of one `Counter`, a client thread running `client`, the loop until the
/// connection is lost (or the watchdog).
fn serve_one(client: impl FnOnce(TcpStream) + Send + 'static) -> Rc<Counter> {
    let lp = EventLoop::new();
    let counter = Rc::new(Counter::default());
    let c = counter.clone();
    let l = lp.clone();
    let server = lp
        .run_until_complete(
            &lp.create_task(async move { l.create_server(move || c.clone(), any_port()).await })
                .unwrap(),
        )
        .unwrap();
    let addr = server.local_addr().unwrap();
    let thread = thread::spawn(move || client(connect(addr)));
    let (c, l) = (counter.clone(), lp.clone());
    lp.call_later(WATCHDOG, EventLoop::stop).unwrap();
    lp.call_soon(move |_| poll_until(&l, move || c.lost.get() > 0))
        .unwrap();
    lp.run_forever().unwrap();
    thread.join().unwrap();
    server.close(&lp);
    counter
}

const SENT: usize = 1_000_000;

/// Read back `n` bytes of echo.
fn read_back(stream: &mut TcpStream, n: usize) {
    let mut buf = vec![0; 65536];
    let mut got = 0;
    while got < n {
        match stream.read(&mut buf) {
            Ok(0) => break, // the server closed: the caller's count says what came
            Ok(k) => got += k,
            Err(e) => panic!("client read: {e}"),
        }
    }
    assert_eq!(got, n);
}

#[test]
fn a_half_close_loses_nothing_read() {
    let counter = serve_one(|mut stream| {
        let mut reader = stream.try_clone().unwrap();
        let echo = thread::spawn(move || read_back(&mut reader, SENT));
        stream.write_all(&vec![b'h'; SENT]).unwrap();
        stream.shutdown(Shutdown::Write).unwrap();
        echo.join().unwrap();
    });
    assert_eq!(counter.read.get(), SENT);
    assert!(counter.eof.get());
    assert_eq!((counter.lost.get(), counter.error.get()), (1, false));
}

#[test]
fn a_reset_loses_nothing_read() {
    let counter = serve_one(|mut stream| {
        let mut reader = stream.try_clone().unwrap();
        let echo = thread::spawn(move || read_back(&mut reader, SENT));
        stream.write_all(&vec![b'r'; SENT]).unwrap();
        echo.join().unwrap();
        // Linger 0: closing sends a reset instead of the end of the stream.
        socket2::SockRef::from(&stream)
            .set_linger(Some(std::time::Duration::ZERO))
            .unwrap();
    });
    assert_eq!(
        counter.read.get(),
        SENT,
        "everything read before the reset counted"
    );
    assert_eq!(counter.lost.get(), 1, "connection_lost once");
    assert!(counter.error.get(), "with the reset");
}
