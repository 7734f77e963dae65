//! After 10,000 connect/close cycles the process has no more open file descriptors than
//! before (book chapter 7, "The echo server"). A test binary of its own, because it counts
//! the descriptors of the whole process (the server runs on a thread of it).

// It reads `/proc`, which only Linux has.
#![cfg(target_os = "linux")]

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::time::{Duration, Instant};

use loadgen::client;
use loadgen::scenario::{self, closed_count};
use scaffold::net::Reply;
use stage5::{EventLoop, RealClock};

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Count the descriptors until they are down to `at_most` (the server closes its side a
/// moment after the client; on a busy machine, many moments). Gives up only once the
/// count has not moved for 10 s: a server that still closes connections, however slowly,
/// is waited for, and one that leaks does not hang the test.
fn settle(at_most: usize) -> usize {
    let mut last = (open_fds(), Instant::now());
    loop {
        let now = open_fds();
        if now <= at_most {
            return now;
        }
        if now != last.0 {
            last = (now, Instant::now());
        } else if last.1.elapsed() > Duration::from_secs(10) {
            return now;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn ten_thousand_connect_close_cycles_leave_no_descriptor_behind() {
    const CYCLES: usize = 10_000;
    let (text, opened) = scenario::with_server(
        |listener, stop| {
            let clock = RealClock::new();
            let transcript = scaffold::Transcript::capture(clock.clone(), false);
            let lp = EventLoop::with_clock(clock);
            let _server = echo_server::serve(&lp, listener, Reply::Plain, Some(stop)).unwrap();
            lp.run_forever().unwrap();
            lp.close().unwrap();
            transcript.text()
        },
        |addr| {
            // One full exchange first, so that everything lazily made exists. It ends when
            // the server has closed its side: no descriptor of it is counted below.
            let first = client::connect(addr).unwrap();
            let reply = client::send_and_half_close(first, b"first").unwrap();
            assert_eq!(reply, b"first");
            let before = open_fds();
            let start = Instant::now();
            for _ in 0..CYCLES {
                // Closed with a reset, which leaves no TIME_WAIT behind: ten thousand of
                // those per run would slowly use up the ephemeral ports.
                client::reset(std::net::TcpStream::connect(addr).unwrap()).unwrap();
            }
            let clients = start.elapsed();
            let after = settle(before);
            eprintln!(
                "{CYCLES} cycles: clients done in {clients:?}, server done in {:?}; \
                 open descriptors {before} -> {after}",
                start.elapsed()
            );
            assert!(after <= before, "{} descriptors leaked", after - before);
            1 + CYCLES
        },
    );
    // Every connection the server accepted is closed again: as many `Connection closed`
    // lines as the server says it served. Not necessarily every one the clients opened:
    // when ten thousand connections arrive faster than a busy server accepts them, the
    // kernel may drop one from the full accept queue after the client already saw it
    // connected (and reset it), and the server never hears of it.
    let closed = closed_count(&text);
    let last = text.lines().last().unwrap_or("");
    let served: usize = last
        .rsplit_once("clients served: ")
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of clients served at the end: {last:?}"));
    assert_eq!(closed, served, "{last}");
    assert!(served <= opened, "{served} served of {opened} opened");
}
