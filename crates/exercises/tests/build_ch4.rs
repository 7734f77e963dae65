//! Build it 4.4: a scripted echo exchange on a socket pair inside the process, with timers
//! around it, on your `Scheduler::run` (`src/build/ch4.rs`) and on stage 4's scheduler,
//! both on the virtual clock; the two runs must match line for line. Run it with
//! `cargo run -p exercises -- run 4.4` (or
//! `cargo test -p exercises --test build_ch4 -- --ignored`).
//!
//! A Unix socket pair hands written bytes to the other end before `write` returns, so what
//! is ready when is the same on every machine, however busy.

// Your code, compiled into this test alone (`src/build/ch4.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch4.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch4.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch4;

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::time::Duration;

use ch4::Scheduler;
use exercises::assert_yours;
use exercises::build::{Log, first_difference};
use stage1::VirtualClock;

/// What the program needs of a scheduler: stage 4's and yours both have it.
trait IoSchedule: Sized + 'static {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static);
    fn later(&self, millis: u64, callback: impl FnOnce(&Self) + 'static);
    fn read_wait(&self, sock: &UnixStream, callback: impl FnOnce(&Self) + 'static);
    fn now(&self) -> Duration;
}

impl IoSchedule for stage4::Scheduler {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static) {
        self.call_soon(callback);
    }
    fn later(&self, millis: u64, callback: impl FnOnce(&Self) + 'static) {
        self.call_later(Duration::from_millis(millis), callback);
    }
    fn read_wait(&self, sock: &UnixStream, callback: impl FnOnce(&Self) + 'static) {
        stage4::Scheduler::read_wait(self, sock, callback).expect("stage 4's read_wait");
    }
    fn now(&self) -> Duration {
        self.time()
    }
}

impl IoSchedule for Scheduler {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static) {
        self.call_soon(callback);
    }
    fn later(&self, millis: u64, callback: impl FnOnce(&Self) + 'static) {
        self.call_later(Duration::from_millis(millis), callback);
    }
    fn read_wait(&self, sock: &UnixStream, callback: impl FnOnce(&Self) + 'static) {
        Scheduler::read_wait(self, sock, callback).expect("the skeleton's read_wait");
    }
    fn now(&self) -> Duration {
        self.time()
    }
}

/// Write `what`, with the time on `s`, into `log`.
fn note(log: &Log, s: &impl IoSchedule, what: &str) {
    let line = format!("{:.3} {what}", s.now().as_secs_f64());
    log.borrow_mut().push(line);
}

/// Read what is there (at most 64 bytes), as text; empty at the end of the stream.
fn receive(sock: &UnixStream) -> String {
    let mut buf = [0; 64];
    let n = (&*sock)
        .read(&mut buf)
        .expect("a socket reported readable reads");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// The server: echo each message and set a timer due at once, until `bye`; then close.
fn serve<S: IoSchedule>(s: &S, sock: Rc<UnixStream>, log: Log) {
    s.read_wait(&sock.clone(), move |s| {
        let message = receive(&sock);
        note(&log, s, &format!("server got {message}"));
        if message == "bye" {
            return; // `sock` is dropped: closed
        }
        (&*sock)
            .write_all(format!("echo {message}").as_bytes())
            .unwrap();
        // Due at once, like the echo: which runs first is the loop's order.
        let l = log.clone();
        s.later(0, move |s| note(&l, s, "server's timer"));
        serve(s, sock, log);
    });
}

/// The client's reader: note what comes, until the end of the stream. The echo of `ping`
/// makes it say `bye` a second later.
fn listen<S: IoSchedule>(s: &S, sock: Rc<UnixStream>, log: Log) {
    s.read_wait(&sock.clone(), move |s| {
        let message = receive(&sock);
        if message.is_empty() {
            return note(&log, s, "client: the server closed");
        }
        note(&log, s, &format!("client got {message}"));
        if message == "echo ping" {
            let (sock, log) = (sock.clone(), log.clone());
            s.later(1000, move |s| {
                note(&log, s, "client sends bye");
                (&*sock).write_all(b"bye").unwrap();
            });
        }
        listen(s, sock, log);
    });
}

/// A message waiting before the server waits, one sent by a timer due with another, timers
/// before and after the exchange, and a callback ready at the start.
fn program<S: IoSchedule>(s: &S, log: &Log) {
    let (client, server) = UnixStream::pair().unwrap();
    client.set_nonblocking(true).unwrap();
    server.set_nonblocking(true).unwrap();
    let client = Rc::new(client);
    (&*client).write_all(b"early").unwrap();
    serve(s, Rc::new(server), log.clone());
    listen(s, client.clone(), log.clone());
    let l = log.clone();
    s.soon(move |s| note(&l, s, "hello"));
    let l = log.clone();
    s.later(1000, move |s| {
        note(&l, s, "client sends ping");
        (&*client).write_all(b"ping").unwrap();
    });
    for (millis, what) in [(1000, "tick 1"), (500, "tick 0.5"), (3000, "tick 3")] {
        let l = log.clone();
        s.later(millis, move |s| note(&l, s, what));
    }
}

#[test]
#[ignore = "exercise 4.4: the run loop with select"]
fn ex4_4_select_loop_matches_stage_4() -> io::Result<()> {
    let expected = Log::default();
    let stage = stage4::Scheduler::new(VirtualClock::new())?;
    program(&stage, &expected);
    stage.run()?;

    let got = Log::default();
    let yours = Scheduler::new(VirtualClock::new())?;
    program(&yours, &got);
    let ran = yours.run();
    let difference = first_difference("stage 4", &expected.take(), &got.take());
    if let Err(error) = ran {
        panic!(
            "your run failed: {error}\n{}",
            difference.unwrap_or_default()
        );
    }
    if let Some(difference) = difference {
        panic!("{difference}");
    }
    assert_yours!(
        yours.pending(),
        (0, 0, 0),
        "nothing is left ready, asleep or waiting"
    );
    Ok(())
}
