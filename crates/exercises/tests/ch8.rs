//! Chapter 8's exercises: each test fails on the stub in `src/ch8.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 8.1`
//! (or `cargo test -p exercises --test ch8 -- --ignored ex8_1`). The sockets are Unix
//! socket pairs, inside the process; the loop runs on the virtual clock, every test is
//! bounded by counts, and a far timer stops a loop that would wait for ever.

// Your code, compiled into this test alone (`src/ch8.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch8.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch8.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch8;

use std::cell::Cell;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use ch8::{Drain, Lines};
use exercises::assert_yours;
use stage5::{EventLoop, Protocol, VirtualClock, sleep};

fn vloop() -> EventLoop {
    let lp = EventLoop::with_clock(VirtualClock::new());
    // A watchdog on the virtual clock: a loop with nothing else to do jumps to it.
    lp.call_later(1e6, |lp| lp.stop()).unwrap();
    lp
}

/// Run a few iterations: what was sent arrives, and the answers go out.
fn settle(lp: &EventLoop) {
    for _ in 0..4 {
        let l = lp.clone();
        let task = lp.create_task(async move { sleep(&l, 0.0).await }).unwrap();
        lp.run_until_complete(&task).unwrap();
    }
}

/// What `peer` can read now, without waiting.
fn available(peer: &mut UnixStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match peer.read(&mut buf) {
            Ok(0) => return got,                       // the end of the stream
            Ok(n) => got.extend_from_slice(&buf[..n]), // more
            Err(e) if e.kind() == ErrorKind::WouldBlock => return got, // all there is now
            Err(e) => panic!("reading: {e}"),
        }
    }
}

#[test]
#[ignore = "exercise 8.1: a line-based protocol"]
fn ex8_1_lines_are_answered_whole_however_they_arrive() {
    let lp = vloop();
    let (a, mut b) = UnixStream::pair().unwrap();
    b.set_nonblocking(true).unwrap();
    let lines = Rc::new(Lines::default());
    lp.make_socket_transport(a.into(), lines.clone(), None)
        .unwrap();
    settle(&lp);
    let mut answers = Vec::new();
    // Half a line, then the rest with half of the next, then its end and an empty line.
    for piece in [&b"hel"[..], b"lo\nwor", b"ld\n\n"] {
        b.write_all(piece).unwrap();
        settle(&lp);
        answers.extend(available(&mut b));
    }
    let answers = String::from_utf8_lossy(&answers);
    assert_yours!(answers, "1: hello\n2: world\n3: \n");
    assert_yours!(lines.count.get(), 3);
}

/// The protocol of exercise 8.2's writer: it passes the water marks on to the `Drain`.
struct Flow(Rc<Drain>);

impl Protocol for Flow {
    fn pause_writing(&self) {
        self.0.pause();
    }
    fn resume_writing(&self) {
        self.0.resume();
    }
}

/// Chunks the writer sends, and their size.
const CHUNKS: usize = 64;
const CHUNK: usize = 64 << 10;

#[test]
#[ignore = "exercise 8.2: drain by hand"]
fn ex8_2_drain_keeps_the_write_buffer_near_the_high_water_mark() {
    let lp = vloop();
    let (a, b) = UnixStream::pair().unwrap();
    b.set_nonblocking(true).unwrap();
    let drain = Rc::new(Drain::new(&lp));
    let transport = lp
        .make_socket_transport(a.into(), Rc::new(Flow(drain.clone())), None)
        .unwrap();
    settle(&lp);
    let (_low, high) = transport.get_write_buffer_limits(); // asyncio's order
    // A slow reader: 16 KiB each time the loop calls it; the bytes are checked in order.
    let (received, done) = (Rc::new(Cell::new(0usize)), lp.create_future::<()>());
    let (r, d, fd) = (received.clone(), done.clone(), b.as_raw_fd());
    lp.add_reader(fd, move |lp| {
        let mut buf = vec![0u8; 16 << 10];
        match (&b).read(&mut buf) {
            // The end: the writer closed its transport.
            Ok(0) => {
                lp.remove_reader(fd);
                d.set_result_unless_done(()); // false: done already
            }
            // Each byte is its chunk's number.
            Ok(n) => {
                for (i, &byte) in buf[..n].iter().enumerate() {
                    assert_yours!(byte as usize, (r.get() + i) / CHUNK, "out of order");
                }
                r.set(r.get() + n);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {} // nothing after all
            Err(e) => panic!("reading: {e}"),
        }
    })
    .unwrap();
    let most = Rc::new(Cell::new(0usize));
    let (t, m, dr) = (transport.clone(), most.clone(), drain.clone());
    let writer = lp
        .create_task(async move {
            for i in 0..CHUNKS {
                t.write(&vec![i as u8; CHUNK])?;
                m.set(m.get().max(t.get_write_buffer_size()));
                dr.drain().await?;
            }
            t.close();
            Ok(())
        })
        .unwrap();
    lp.run_until_complete(&writer).unwrap();
    lp.run_until_complete(&done).unwrap();
    assert_yours!(received.get(), CHUNKS * CHUNK);
    let most = most.get();
    assert!(
        most <= high + CHUNK,
        "the write buffer held {} KiB: more than the high-water mark ({} KiB) and a chunk",
        most >> 10,
        high >> 10
    );
}
