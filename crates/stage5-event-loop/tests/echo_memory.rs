//! A client that sends 64 MiB and never reads (book chapter 7, "The echo server"): the
//! server's task waits in `sock_sendall` and reads nothing meanwhile, so the server's
//! memory stays bounded. A test binary of its own, because it measures the resident
//! memory of the whole process (the server runs on a thread of it).

// It reads `/proc`, which only Linux has.
#![cfg(target_os = "linux")]

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::io::{self, Write};
use std::time::{Duration, Instant};

use loadgen::client;
use loadgen::scenario::{self, closed_count};
use scaffold::net::Reply;
use stage5::{EventLoop, RealClock};

/// This process's resident memory, in KiB (VmRSS in /proc/self/status).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_client_that_sends_64_mib_and_never_reads_cannot_grow_the_server() {
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
            // Warm up: one ordinary exchange, so the server's buffers exist already.
            let mut warm = client::connect(addr).unwrap();
            client::round_trip(&mut warm, b"", &vec![b'w'; 64 * 1024]).unwrap();
            drop(warm);
            let before = rss_kib();
            let mut flood = client::connect(addr).unwrap();
            flood.set_nonblocking(true).unwrap();
            let chunk = vec![b'z'; 64 * 1024];
            let mut sent = 0usize;
            let mut last_progress = Instant::now();
            // Bounded: 64 MiB, or half a second without progress (the buffers are full).
            while sent < 64 << 20 && last_progress.elapsed() < Duration::from_millis(500) {
                match flood.write(&chunk) {
                    Ok(n) => {
                        sent += n;
                        last_progress = Instant::now();
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            let after = rss_kib();
            let grown = after.saturating_sub(before);
            eprintln!(
                "sent {} KiB before the buffers filled; resident memory {before} -> {after} KiB (+{grown} KiB)",
                sent / 1024
            );
            assert!(sent < 64 << 20, "the server never stopped reading");
            assert!(grown < 8 * 1024, "the server's memory grew by {grown} KiB");
            client::reset(flood).unwrap();
            // The server goes on.
            let mut next = client::connect(addr).unwrap();
            client::round_trip(&mut next, b"", b"after the flood").unwrap();
            3
        },
    );
    assert_eq!(closed_count(&text), opened);
}
