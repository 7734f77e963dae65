//! Build it 8.3: a task writes 1.5 MiB to a Unix socket pair inside the process, whose peer
//! reads what has arrived once a second, on stage 5's loop on the virtual clock, once
//! through your `WriteBuffer` (`src/build/ch8.rs`) and once through stage 5's `Transport`;
//! the two runs must match line for line. Run it with `cargo run -p exercises -- run 8.3`
//! (or `cargo test -p exercises --test build_ch8 -- --ignored`).
//!
//! How many bytes the kernel takes at each `send` depends on the machine, so no line says
//! a count that depends on it: the lines are what the protocol was told and in what order,
//! whether bytes were left buffered after each write, which mark the buffer was on the
//! right side of when the protocol heard, and what the peer got in the end.

// Your code, compiled into this test alone (`src/build/ch8.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch8.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch8.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch8;

use std::cell::{Cell, RefCell};
use std::io::{ErrorKind, Read};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use ch8::WriteBuffer;
use exercises::build::{Log, assert_same_run};
use stage5::{Error, EventLoop, Future, Protocol, Transport, VirtualClock};

/// The water marks: asyncio's defaults, given to both.
const HIGH: usize = 64 << 10;
const LOW: usize = 16 << 10;

/// What the task writes, in order, and where it waits for `resume_writing` (`None`). The
/// big writes are far more than a Unix socket takes at once (about 200 KiB) plus `HIGH`,
/// so each leaves bytes buffered over the mark on any machine. Nothing is written after
/// the last resume: whether the few bytes left then are sent yet depends on the kernel.
const WRITES: &[Option<usize>] = &[
    Some(100),
    Some(1 << 20),
    Some(1000),
    None,
    Some(512 << 10),
    None,
];

/// The byte at offset `i` of the stream: the peer checks the order with it.
fn byte(i: usize) -> u8 {
    (i % 251) as u8
}

/// What the program needs of a transport: stage 5's and yours both have it.
trait Writes: Clone + 'static {
    fn open(lp: &EventLoop, sock: UnixStream, protocol: Rc<Flow>) -> Self;
    fn write(&self, data: &[u8]);
    fn buffered(&self) -> usize;
}

impl Writes for Transport {
    fn open(lp: &EventLoop, sock: UnixStream, protocol: Rc<Flow>) -> Self {
        let transport = lp
            .make_socket_transport(sock.into(), protocol, None)
            .unwrap();
        transport
            .set_write_buffer_limits(Some(HIGH), Some(LOW))
            .unwrap();
        transport
    }
    fn write(&self, data: &[u8]) {
        Transport::write(self, data).unwrap();
    }
    fn buffered(&self) -> usize {
        self.get_write_buffer_size()
    }
}

impl Writes for WriteBuffer {
    fn open(lp: &EventLoop, sock: UnixStream, protocol: Rc<Flow>) -> Self {
        WriteBuffer::new(lp, sock, protocol, HIGH, LOW).unwrap()
    }
    fn write(&self, data: &[u8]) {
        WriteBuffer::write(self, data);
    }
    fn buffered(&self) -> usize {
        self.get_write_buffer_size()
    }
}

/// The protocol: it notes what it is told, with the buffer's side of the mark, and wakes
/// the task waiting for `resume_writing`.
#[derive(Default)]
struct Flow {
    log: Log,
    size: RefCell<Option<Box<dyn Fn() -> usize>>>, // the transport's buffer size
    paused: Cell<bool>,
    resumed: RefCell<Option<Future<()>>>,
}

impl Flow {
    fn note(&self, line: String) {
        self.log.borrow_mut().push(line);
    }
    fn size(&self) -> usize {
        self.size.borrow().as_ref().map_or(0, |size| size())
    }
}

impl Protocol for Flow {
    fn pause_writing(&self) {
        self.paused.set(true);
        let over = self.size() > HIGH;
        self.note(format!(
            "pause_writing (buffer over the high-water mark: {over})"
        ));
    }
    fn resume_writing(&self) {
        self.paused.set(false);
        let down = self.size() <= LOW;
        self.note(format!(
            "resume_writing (buffer down to the low-water mark: {down})"
        ));
        if let Some(resumed) = self.resumed.take() {
            resumed.set_result_unless_done(());
        }
    }
}

/// The peer: once a second it reads all that has arrived and checks the order, until it
/// has everything, the order is wrong, or a minute passed with nothing new; then it
/// notes what it got and completes `done`.
fn peer(lp: &EventLoop, sock: UnixStream, flow: Rc<Flow>, done: Future<()>) {
    let total: usize = WRITES.iter().flatten().sum();
    let (mut got, mut idle) = (0, 0);
    let round = move || -> bool {
        let mut buf = vec![0; 64 << 10];
        let before = got;
        loop {
            match (&sock).read(&mut buf) {
                Ok(0) => break, // the end of the stream (the writer never ends it)
                Ok(n) => {
                    if let Some(i) = (0..n).find(|&i| buf[i] != byte(got + i)) {
                        flow.note(format!("the peer: byte {} is out of order", got + i));
                        done.set_result_unless_done(());
                        return false;
                    }
                    got += n;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break, // all there is now
                Err(e) => panic!("the peer reads: {e}"),
            }
        }
        idle = if got == before { idle + 1 } else { 0 };
        if got == total || idle == 60 {
            flow.note(format!("the peer got {got} of {total} bytes, in order"));
            done.set_result_unless_done(());
            return false;
        }
        true
    };
    fn again(lp: &EventLoop, mut round: impl FnMut() -> bool + 'static) {
        lp.call_later(1.0, move |lp| {
            if round() {
                again(lp, round);
            }
        })
        .unwrap();
    }
    again(lp, round);
}

/// The task: each write, then whether bytes were left buffered; at each `None`, wait for
/// `resume_writing` if paused; at the end, wait for the peer, and say whether the buffer is
/// empty and whether a writer is still added.
async fn writer<W: Writes>(
    lp: EventLoop,
    w: W,
    flow: Rc<Flow>,
    peer: Future<()>,
) -> Result<(), Error> {
    let mut offset = 0;
    for step in WRITES {
        let Some(n) = *step else {
            if flow.paused.get() {
                flow.note("the task waits for resume_writing".into());
                let resumed = lp.create_future();
                *flow.resumed.borrow_mut() = Some(resumed.clone());
                resumed.await?;
                flow.note("the task goes on".into());
            }
            continue;
        };
        let data: Vec<u8> = (offset..offset + n).map(byte).collect();
        offset += n;
        w.write(&data);
        let left = if w.buffered() > 0 { "some" } else { "none" };
        flow.note(format!("wrote {n} bytes; left buffered: {left}"));
    }
    peer.await?;
    flow.note(format!("then the buffer holds {} bytes", w.buffered()));
    Ok(())
}

/// Run the program with transport `W` on a fresh loop until the task is done (at most
/// `ITERATIONS` iterations), and return its lines.
fn run<W: Writes>() -> Vec<String> {
    const ITERATIONS: usize = 20_000;
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (a, b) = UnixStream::pair().unwrap();
    b.set_nonblocking(true).unwrap();
    let fd = a.as_raw_fd();
    let flow = Rc::new(Flow::default());
    let w = W::open(&lp, a, flow.clone());
    let size = w.clone();
    *flow.size.borrow_mut() = Some(Box::new(move || size.buffered()));
    let done = lp.create_future();
    peer(&lp, b, flow.clone(), done.clone());
    let task = lp
        .create_task(writer(lp.clone(), w, flow.clone(), done))
        .unwrap();
    let mut iterations = 0;
    while !task.done() && iterations < ITERATIONS {
        lp.run_once().unwrap();
        iterations += 1;
    }
    if task.done() {
        task.result().unwrap();
        // A writer left behind would be called in every iteration from now on.
        let left = lp.remove_writer(fd);
        flow.note(format!("a writer still added: {left}"));
    } else {
        flow.note(format!(
            "the task was not done after {ITERATIONS} iterations"
        ));
    }
    flow.size.take(); // it holds the transport, which holds the protocol
    flow.log.take()
}

#[test]
#[ignore = "exercise 8.3: a transport's write buffer"]
fn ex8_3_the_write_buffer_matches_stage_5() {
    assert_same_run("stage 5", &run::<Transport>(), &run::<WriteBuffer>());
}
