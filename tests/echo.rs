//! Every stage's echo server against the same clients, on 127.0.0.1 (book chapters 1 to 4
//! and 7, "The echo server"). One harness for the five stages: each stage's row says how
//! its example's own `serve` runs (on a thread of its own, on the real clock: the polls of
//! stages 1 to 3 and the selects of 4 and 5 are the thing under test), and how many clients
//! it takes at once; the scenarios are `loadgen::scenario`'s. Tests only one stage has stay
//! in that stage's crate (stage 5's `sock_connect`, its shutdown, its memory).

#[allow(dead_code)]
#[path = "../crates/stage1-callbacks/examples/echo_server.rs"]
mod stage1_echo;
#[allow(dead_code)]
#[path = "../crates/stage2-generators/examples/echo_server.rs"]
mod stage2_echo;
#[allow(dead_code)]
#[path = "../crates/stage3-tasks/examples/echo_server.rs"]
mod stage3_echo;
#[allow(dead_code)]
#[path = "../crates/stage4-select/examples/echo_server.rs"]
mod stage4_echo;
#[allow(dead_code)]
#[path = "../crates/stage5-event-loop/examples/echo_server.rs"]
mod stage5_echo;

use std::net::{SocketAddr, TcpListener};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use loadgen::{client, scenario};
use stage1::net::Reply;
use stage1::{RealClock, Transcript};

/// How one stage's example serves `listener` until `stop` is set; it returns what the
/// server printed.
type Serve = fn(TcpListener, Arc<AtomicBool>, Reply) -> String;

/// One stage's echo server, and how hard the shared scenarios push it.
struct Server {
    serve: Serve,
    /// Clients at once: the polling servers of stages 1 to 3 wake every 10 ms per socket.
    clients: usize,
}

/// Run `serve` on the real clock with its output captured.
fn captured(run: impl FnOnce(Rc<dyn stage1::Clock>)) -> String {
    let clock = RealClock::new();
    let transcript = Transcript::capture(clock.clone(), false);
    run(clock);
    transcript.text()
}

const STAGE1: Server = Server {
    serve: |listener, stop, reply| {
        captured(|clock| {
            let s = stage1::Scheduler::new(clock);
            s.call_soon(move |s| stage1_echo::serve(s, listener, reply, stop));
            s.run();
        })
    },
    clients: 8,
};

const STAGE2: Server = Server {
    serve: |listener, stop, reply| {
        captured(|clock| {
            let s = stage2::Scheduler::new(clock);
            stage2_echo::serve(&s, listener, reply, stop);
            s.run();
        })
    },
    clients: 8,
};

const STAGE3: Server = Server {
    serve: |listener, stop, reply| {
        captured(|clock| {
            let s = stage3::Scheduler::new(clock);
            stage3_echo::serve(&s, listener, reply, stop);
            s.run();
        })
    },
    clients: 8,
};

const STAGE4: Server = Server {
    serve: |listener, stop, reply| {
        captured(|clock| {
            let s = stage4::Scheduler::new(clock).expect("a selector");
            stage4_echo::serve(&s, listener, reply, stop);
            s.run().expect("the server runs until stopped");
        })
    },
    clients: 200,
};

const STAGE5: Server = Server {
    serve: |listener, stop, reply| {
        let mut served = 0;
        let text = captured(|clock| {
            let lp = stage5::EventLoop::with_clock(clock);
            let server = stage5_echo::serve(&lp, listener, reply, Some(stop))
                .expect("a listener the loop can watch");
            lp.run_forever().expect("the server runs until stopped");
            served = server.served();
        });
        // Stage 5's server says how many it served when it shuts down.
        let last = format!("| clients served: {served}\n");
        assert!(text.ends_with(&last), "{text}");
        text
    },
    clients: 1000,
};

/// Serve with `reply` while `clients` runs; the server's output and the connection count.
fn with_server(
    server: &Server,
    reply: Reply,
    clients: impl FnOnce(SocketAddr) -> usize,
) -> (String, usize) {
    let serve = server.serve;
    scenario::with_server(move |listener, stop| serve(listener, stop, reply), clients)
}

/// Many clients at once, each with messages of its own checked byte for byte, plus one that
/// resets and one that half-closes; every connection is closed at the end.
fn many_clients_a_reset_and_a_half_close(server: &Server) {
    let count = server.clients;
    scenario::assert_all_closed(with_server(server, Reply::Got, |addr| {
        scenario::several_clients_reset_and_half_close(addr, b"Got:", count).unwrap()
    }));
}

/// `--plain` echoes the bytes unchanged.
fn plain_bytes_unchanged(server: &Server) {
    scenario::assert_all_closed(with_server(
        server,
        Reply::Plain,
        scenario::one_plain_round_trip,
    ));
}

/// A 4 MiB message forces partial writes; it comes back whole, and the next client is
/// served.
fn a_4_mib_message_comes_back_intact(server: &Server) {
    scenario::assert_all_closed(with_server(server, Reply::Plain, |addr| {
        scenario::big_message(addr, 4 << 20).unwrap();
        let mut stream = client::connect(addr).unwrap();
        client::round_trip(&mut stream, b"", b"after the big one").unwrap();
        2
    }));
}

/// A client that resets in the middle of a stream stops nothing: the next one is served.
fn a_reset_mid_stream_stops_nothing(server: &Server) {
    scenario::assert_all_closed(with_server(server, Reply::Plain, |addr| {
        scenario::reset_mid_stream(addr).unwrap();
        let mut stream = client::connect(addr).unwrap();
        for n in 0..3 {
            client::round_trip(&mut stream, b"", &client::message(0, n, 100)).unwrap();
        }
        2
    }));
}

#[test]
fn stage1_many_clients_a_reset_and_a_half_close() {
    many_clients_a_reset_and_a_half_close(&STAGE1);
}

#[test]
fn stage1_plain_bytes_unchanged() {
    plain_bytes_unchanged(&STAGE1);
}

#[test]
fn stage2_many_clients_a_reset_and_a_half_close() {
    many_clients_a_reset_and_a_half_close(&STAGE2);
}

#[test]
fn stage2_plain_bytes_unchanged() {
    plain_bytes_unchanged(&STAGE2);
}

#[test]
fn stage3_many_clients_a_reset_and_a_half_close() {
    many_clients_a_reset_and_a_half_close(&STAGE3);
}

#[test]
fn stage3_plain_bytes_unchanged() {
    plain_bytes_unchanged(&STAGE3);
}

#[test]
fn stage4_many_clients_a_reset_and_a_half_close() {
    many_clients_a_reset_and_a_half_close(&STAGE4);
}

#[test]
fn stage4_a_4_mib_message_comes_back_intact() {
    a_4_mib_message_comes_back_intact(&STAGE4);
}

#[test]
fn stage4_a_reset_mid_stream_stops_nothing() {
    a_reset_mid_stream_stops_nothing(&STAGE4);
}

#[test]
fn stage5_many_clients_a_reset_and_a_half_close() {
    many_clients_a_reset_and_a_half_close(&STAGE5);
}

#[test]
fn stage5_plain_bytes_unchanged() {
    plain_bytes_unchanged(&STAGE5);
}

#[test]
fn stage5_a_4_mib_message_comes_back_intact() {
    a_4_mib_message_comes_back_intact(&STAGE5);
}

#[test]
fn stage5_a_reset_mid_stream_stops_nothing() {
    a_reset_mid_stream_stops_nothing(&STAGE5);
}
