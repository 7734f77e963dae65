//! Build it 7.4: a task receives what a socket pair inside the process brings (one message
//! there before it asks, two sent by timers, then the end of the stream), on stage 5's loop
//! on the virtual clock, once with your `sock_recv` (`src/build/ch7.rs`) and once with
//! stage 5's; the two runs must match line for line. Run it with
//! `cargo run -p exercises -- run 7.4` (or
//! `cargo test -p exercises --test build_ch7 -- --ignored`).

// Your code, compiled into this test alone (`src/build/ch7.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch7.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch7.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch7;

use std::future::Future;
use std::io::Write;
use std::net::Shutdown;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use exercises::build::{Log, assert_same_run};
use stage5::{Error, EventLoop, VirtualClock};

/// How the task receives: stage 5's way or yours.
trait Recv {
    fn recv(
        lp: EventLoop,
        sock: Rc<UnixStream>,
        nbytes: usize,
    ) -> impl Future<Output = Result<Vec<u8>, Error>>;
}

struct Stage5;

impl Recv for Stage5 {
    async fn recv(lp: EventLoop, sock: Rc<UnixStream>, nbytes: usize) -> Result<Vec<u8>, Error> {
        Ok(lp.sock_recv(&*sock, nbytes).await?)
    }
}

struct Yours;

impl Recv for Yours {
    fn recv(
        lp: EventLoop,
        sock: Rc<UnixStream>,
        nbytes: usize,
    ) -> impl Future<Output = Result<Vec<u8>, Error>> {
        ch7::sock_recv(&lp, sock, nbytes)
    }
}

/// Write `time what` into `log`.
fn note(log: &Log, lp: &EventLoop, what: &str) {
    let line = format!("{:.3} {what}", lp.time());
    log.borrow_mut().push(line);
}

/// Run the program with `R`'s receive on a fresh loop, for at most 50 iterations, and
/// return its lines.
fn run<R: Recv>() -> Vec<String> {
    let log = Log::default();
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (client, server) = UnixStream::pair().unwrap();
    client.set_nonblocking(true).unwrap();
    server.set_nonblocking(true).unwrap();
    let (client, server) = (Rc::new(client), Rc::new(server));
    (&*client).write_all(b"zero").unwrap();
    for (secs, message) in [(1.0, "one"), (2.0, "two")] {
        let (l, c) = (log.clone(), client.clone());
        lp.call_later(secs, move |lp| {
            note(&l, lp, &format!("the client sends {message}"));
            (&*c).write_all(message.as_bytes()).unwrap();
        })
        .unwrap();
    }
    // Due at once: it runs right after the task's first step, in the same batch. A receive
    // that tries first has its bytes by then; one that waits for a reader, not yet.
    let l = log.clone();
    lp.call_later(0.0, move |lp| note(&l, lp, "a timer due at once"))
        .unwrap();
    let l = log.clone();
    lp.call_later(2.0, move |lp| note(&l, lp, "a timer due with the send"))
        .unwrap();
    let (l, c) = (log.clone(), client.clone());
    lp.call_later(3.0, move |lp| {
        note(&l, lp, "the client shuts its end");
        c.shutdown(Shutdown::Write).unwrap();
    })
    .unwrap();

    let (l, lp2) = (log.clone(), lp.clone());
    let task = lp
        .create_task(async move {
            let fd = server.as_raw_fd();
            loop {
                let bytes = R::recv(lp2.clone(), server.clone(), 64).await?;
                let what = match bytes.is_empty() {
                    true => "the end of the stream".to_owned(),
                    false => String::from_utf8_lossy(&bytes).into_owned(),
                };
                let reader = lp2.has_reader(fd);
                note(&l, &lp2, &format!("got {what}; a reader left: {reader}"));
                if bytes.is_empty() {
                    return Ok(());
                }
            }
        })
        .unwrap();
    for _ in 0..50 {
        if task.done() {
            break;
        }
        if let Err(error) = lp.run_once() {
            note(&log, &lp, &format!("the loop failed: {error}"));
            break;
        }
    }
    if let Ok(Some(error)) = task.exception() {
        note(&log, &lp, &format!("the task failed: {error}"));
    }
    drop(client);
    log.take()
}

#[test]
#[ignore = "exercise 7.4: a reader plus a future"]
fn ex7_4_sock_recv_matches_stage_5() {
    assert_same_run("stage 5", &run::<Stage5>(), &run::<Yours>());
}
