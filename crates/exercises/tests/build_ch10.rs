//! Build it 10.3: four tasks receive on four Unix socket pairs inside the process, whose
//! peers write from timers in another order than the receives were submitted; one receive
//! times out, and a fifth then receives on its socket. On stage 5's loop on the virtual
//! clock, once with your `MiniProactor` (`src/build/ch10.rs`) in its selector's place and
//! once with stage 6's proactor. The two runs must match line for line. Run it with
//! `cargo run -p exercises -- run 10.3` (or
//! `cargo test -p exercises --test build_ch10 -- --ignored`).
//!
//! Where io_uring is refused (an old kernel, `io_uring_disabled`, a seccomp filter,
//! `STAGE6_IO_URING=refuse`), the test says why and does not run. io_uring is Linux's:
//! elsewhere this file compiles to nothing.
#![cfg(target_os = "linux")]

// Your code, compiled into this test alone (`src/build/ch10.rs`; with the `solutions`
// feature, its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch10.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch10.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch10;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::rc::Rc;

use ch10::MiniProactor;
use exercises::build::{Log, assert_same_run};
use stage5::{Error, EventLoop, VirtualClock, wait_for};
use stage6::{ProactorLoop, Ring};

/// A receive's result, whichever proactor made it.
type Received = Pin<Box<dyn std::future::Future<Output = Result<Vec<u8>, Error>>>>;

/// What the program needs of a proactor: stage 6's and yours both have it.
trait Receives: Clone + 'static {
    fn install(lp: &EventLoop, ring: Ring) -> Self;
    /// Receive at most 32 bytes on `sock`, for at most `secs` seconds.
    fn recv(&self, lp: &EventLoop, sock: &Rc<UnixStream>, secs: f64) -> Received;
    fn in_flight(&self) -> usize;
}

impl Receives for ProactorLoop {
    fn install(lp: &EventLoop, ring: Ring) -> Self {
        ProactorLoop::install(lp, ring)
    }
    fn recv(&self, lp: &EventLoop, sock: &Rc<UnixStream>, secs: f64) -> Received {
        let op = self.sock_recv(sock, 32);
        let (lp, future) = (lp.clone(), op.future().clone());
        Box::pin(async move {
            let slot = wait_for(&lp, future, secs).await?;
            drop(op); // done: dropping it cancels nothing
            slot.take()
                .ok_or(Error::msg("the result was taken already"))
        })
    }
    fn in_flight(&self) -> usize {
        ProactorLoop::in_flight(self)
    }
}

impl Receives for Rc<MiniProactor> {
    fn install(lp: &EventLoop, ring: Ring) -> Self {
        MiniProactor::install(lp, ring)
    }
    fn recv(&self, lp: &EventLoop, sock: &Rc<UnixStream>, secs: f64) -> Received {
        let future = MiniProactor::recv(self, lp, sock, 32);
        let lp = lp.clone();
        Box::pin(async move { wait_for(&lp, future, secs).await })
    }
    fn in_flight(&self) -> usize {
        MiniProactor::in_flight(self)
    }
}

/// Note `what` on `log`, at the loop's time.
fn note(log: &Log, lp: &EventLoop, what: String) {
    log.borrow_mut().push(format!("{:.3} {what}", lp.time()));
}

/// A task that receives on `sock` for at most `secs` and notes what it got.
fn receiver<P: Receives>(
    lp: &EventLoop,
    p: &P,
    log: &Log,
    name: &'static str,
    sock: Rc<UnixStream>,
    secs: f64,
) {
    let received = p.recv(lp, &sock, secs);
    let (l, log, p) = (lp.clone(), log.clone(), p.clone());
    note(&log, lp, format!("{name}: receive submitted"));
    let task = lp.create_task(async move {
        match received.await {
            Ok(bytes) => {
                let said = String::from_utf8_lossy(&bytes).into_owned();
                note(&log, &l, format!("{name}: got {said:?}"));
            }
            Err(error) => note(
                &log,
                &l,
                format!("{name}: {error}; the kernel holds {}", p.in_flight()),
            ),
        }
        Ok::<_, Error>(())
    });
    task.expect("the loop takes the task");
}

/// At `at` seconds, the peer `peer` writes `bytes`.
fn write_at(lp: &EventLoop, at: f64, mut peer: UnixStream, bytes: &'static [u8]) {
    lp.call_later(at, move |_| peer.write_all(bytes).expect("the peer writes"))
        .expect("the loop takes the timer");
}

/// Run the program with proactor `P` on a fresh loop, and return its lines.
fn run<P: Receives>(ring: Ring) -> Vec<String> {
    const ITERATIONS: usize = 200;
    let lp = EventLoop::with_clock(VirtualClock::new());
    let p = P::install(&lp, ring);
    let log = Log::default();
    // A watchdog at 6 s: the virtual clock jumps to it whatever happens, and the run ends.
    lp.call_later(6.0, |_| {})
        .expect("the loop takes the timer");
    let pairs: Vec<(Rc<UnixStream>, UnixStream)> = (0..4)
        .map(|_| {
            let (ours, peer) = UnixStream::pair().expect("a socket pair");
            (Rc::new(ours), peer)
        })
        .collect();
    let mut pairs = pairs.into_iter();
    let mut next = || pairs.next().expect("four pairs");
    let (first, second, late, after) = (next(), next(), next(), next());
    receiver(&lp, &p, &log, "first", first.0, 10.0);
    receiver(&lp, &p, &log, "second", second.0, 10.0);
    receiver(&lp, &p, &log, "late", late.0.clone(), 3.0);
    write_at(&lp, 1.0, second.1, b"for the second");
    write_at(&lp, 2.0, first.1, b"for the first");
    write_at(&lp, 4.0, late.1, b"after the timeout");
    write_at(&lp, 5.0, after.1, b"for the last");
    // At 4.5 s a new receive on the socket whose receive timed out: the cancelled one
    // took nothing, and this one gets what came at 4 s.
    let (l, q, lg, sock) = (lp.clone(), p.clone(), log.clone(), late.0);
    lp.call_later(4.5, move |_| receiver(&l, &q, &lg, "again", sock, 10.0))
        .expect("the loop takes the timer");
    receiver(&lp, &p, &log, "last", after.0, 10.0);
    let mut iterations = 0;
    while lp.time() < 6.0 && iterations < ITERATIONS {
        if let Err(error) = lp.run_once() {
            note(&log, &lp, format!("the loop failed: {error}"));
            break;
        }
        iterations += 1;
    }
    note(&log, &lp, format!("the kernel holds {}", p.in_flight()));
    lp.close().expect("the loop closes");
    log.take()
}

/// Two rings, or why not.
fn rings() -> Option<(Ring, Ring)> {
    match (stage6::setup::ring(), stage6::setup::ring()) {
        (Ok(a), Ok(b)) => Some((a, b)),
        (Err(refused), _) | (_, Err(refused)) => {
            eprintln!("not run: {refused}");
            None
        }
    }
}

#[test]
#[ignore = "exercise 10.3: the completion dispatch"]
fn ex10_3_each_completion_resolves_its_own_future_as_stage_6s() {
    let Some((theirs, yours)) = rings() else {
        return;
    };
    let expected = run::<ProactorLoop>(theirs);
    let got = run::<Rc<MiniProactor>>(yours);
    assert_same_run("stage 6", &expected, &got);
}
