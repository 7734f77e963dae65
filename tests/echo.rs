//! Every stage's echo server against the same clients, on 127.0.0.1 (book chapters 1 to 4
//! and 7, "The echo server"). One harness for the five stages: each stage's row says how
//! its example's own `serve` runs (on a thread of its own, on the real clock: the polls of
//! stages 1 to 3 and the selects of 4 and 5 are the thing under test), and how many clients
//! it takes at once; the scenarios are `loadgen::scenario`'s. Tests only one stage has stay
//! in that stage's crate (stage 5's `sock_connect`, its shutdown, its memory). Out of file
//! descriptors, every stage says so about once a second, not once per poll. Stage 5 has
//! three rows: its `sock_*` server, and chapter 8's `--api protocol` and `--api streams`.

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
#[allow(dead_code)]
#[path = "../crates/stage6-proactor/examples/echo_server.rs"]
mod stage6_echo;

use std::cell::RefCell;
use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use loadgen::child::ChildTest;
use loadgen::{client, scenario};
use scaffold::net::Reply;
use scaffold::{Clock, Options, RealClock, Transcript, VirtualClock};

/// Steps a test takes on the server's own scheduler, each at its time on the server's
/// clock, beside the serving.
type Steps = Vec<(Duration, Box<dyn FnOnce()>)>;

/// How one stage's example serves `listener` on `clock` until `stop` is set, printing
/// where the console says (captured in a test, standard output in a child process), and
/// taking the test's `steps` on its scheduler.
type Run = fn(Rc<dyn Clock>, TcpListener, Arc<AtomicBool>, Reply, Steps);

/// One stage's echo server, and how hard the shared scenarios push it.
struct Server {
    run: Run,
    /// Clients at once: the polling servers of stages 1 to 3 wake every 10 ms per socket.
    clients: usize,
    /// Stage 5 says `clients served: N` when it shuts down.
    says_served: bool,
}

const STAGE1: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        let s = stage1::Scheduler::new(clock);
        s.call_soon(move |s| stage1_echo::serve(s, listener, reply, stop));
        for (at, step) in steps {
            s.call_later(at, move |_| step());
        }
        s.run();
    },
    clients: 8,
    says_served: false,
};

const STAGE2: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        let s = stage2::Scheduler::new(clock);
        stage2_echo::serve(&s, listener, reply, stop);
        for (at, step) in steps {
            s.new_task(async move {
                stage2::sleep(at).await;
                step();
            });
        }
        s.run();
    },
    clients: 8,
    says_served: false,
};

const STAGE3: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        let s = stage3::Scheduler::new(clock);
        stage3_echo::serve(&s, listener, reply, stop);
        for (at, step) in steps {
            s.call_later(at, move |_| step());
        }
        s.run();
    },
    clients: 8,
    says_served: false,
};

const STAGE4: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        let s = stage4::Scheduler::new(clock).expect("a selector");
        stage4_echo::serve(&s, listener, reply, stop);
        for (at, step) in steps {
            s.call_later(at, move |_| step());
        }
        s.run().expect("the server runs until stopped");
    },
    clients: 200,
    says_served: false,
};

const STAGE5: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        stage5_run(stage5_echo::Api::Sock, clock, listener, stop, reply, steps);
    },
    clients: 1000,
    says_served: true,
};

/// Stage 5's `echo_server --api protocol` (book chapter 8): a `Protocol` per connection.
const STAGE5_PROTOCOL: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        stage5_run(
            stage5_echo::Api::Protocol,
            clock,
            listener,
            stop,
            reply,
            steps,
        );
    },
    clients: 1000,
    says_served: true,
};

/// Stage 5's `echo_server --api streams` (book chapter 8): a `start_server` handler.
const STAGE5_STREAMS: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        stage5_run(
            stage5_echo::Api::Streams,
            clock,
            listener,
            stop,
            reply,
            steps,
        );
    },
    clients: 1000,
    says_served: true,
};

/// Stage 6's server (book chapter 10): `sock_*` as io_uring completions.
const STAGE6: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        stage6_run(stage6_echo::Api::Sock, clock, listener, stop, reply, steps);
    },
    clients: 1000,
    says_served: true,
};

/// Stage 6's `echo_server --api protocol`: a `Protocol` on the proactor's transport.
const STAGE6_PROTOCOL: Server = Server {
    run: |clock, listener, stop, reply, steps| {
        stage6_run(
            stage6_echo::Api::Protocol,
            clock,
            listener,
            stop,
            reply,
            steps,
        );
    },
    clients: 1000,
    says_served: true,
};

/// True if io_uring is allowed here; if not, the reason, printed: stage 6's tests then
/// say why they did not run, and pass.
fn io_uring_here() -> bool {
    match stage6::setup::ring() {
        Ok(_) => true,
        Err(refused) => {
            eprintln!("skipped: {refused}");
            false
        }
    }
}

/// Stage 6's server with `api`, stopped by `stop`, taking `steps` on its loop.
fn stage6_run(
    api: stage6_echo::Api,
    clock: Rc<dyn Clock>,
    listener: TcpListener,
    stop: Arc<AtomicBool>,
    reply: Reply,
    steps: Steps,
) {
    let ring = stage6::setup::ring().expect("io_uring (the test checked it first)");
    let lp = stage6::ProactorLoop::new(ring, clock).expect("a loop");
    let settings = stage6_echo::Settings {
        api,
        stop: Some(stop),
        ..stage6_echo::Settings::new(reply)
    };
    let server = stage6_echo::serve_with(&lp, listener, settings).expect("a listener");
    for (at, step) in steps {
        lp.call_later(at.as_secs_f64(), move |_| step())
            .expect("an open loop");
    }
    lp.run_forever().expect("the server runs until stopped");
    stage6::say!("clients served: {}", server.served());
    drop((server, lp));
}

/// Stage 5's server with `api`, stopped by `stop`, taking `steps` on its loop.
fn stage5_run(
    api: stage5_echo::Api,
    clock: Rc<dyn Clock>,
    listener: TcpListener,
    stop: Arc<AtomicBool>,
    reply: Reply,
    steps: Steps,
) {
    let lp = stage5::EventLoop::with_clock(clock);
    let settings = stage5_echo::Settings {
        api,
        stop: Some(stop),
        ..stage5_echo::Settings::new(reply)
    };
    let server =
        stage5_echo::serve_with(&lp, listener, settings).expect("a listener the loop can watch");
    for (at, step) in steps {
        lp.call_later(at.as_secs_f64(), move |_| step())
            .expect("an open loop");
    }
    lp.run_forever().expect("the server runs until stopped");
    drop((server, lp));
}

/// Serve with `reply`, output captured, while `clients` runs; the server's output and the
/// connection count.
fn with_server(
    server: &Server,
    reply: Reply,
    clients: impl FnOnce(SocketAddr) -> usize,
) -> (String, usize) {
    let (run, says_served) = (server.run, server.says_served);
    let (text, opened) = scenario::with_server(
        move |listener, stop| {
            let clock = RealClock::new();
            let transcript = Transcript::capture(clock.clone(), false);
            run(clock, listener, stop, reply, Vec::new());
            transcript.text()
        },
        clients,
    );
    if says_served {
        let last = format!("| clients served: {opened}\n");
        assert!(text.ends_with(&last), "{text}");
    }
    (text, opened)
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

#[test]
fn stage5_protocol_many_clients_a_reset_and_a_half_close() {
    many_clients_a_reset_and_a_half_close(&STAGE5_PROTOCOL);
}

#[test]
fn stage5_protocol_plain_bytes_unchanged() {
    plain_bytes_unchanged(&STAGE5_PROTOCOL);
}

#[test]
fn stage5_protocol_a_4_mib_message_comes_back_intact() {
    a_4_mib_message_comes_back_intact(&STAGE5_PROTOCOL);
}

#[test]
fn stage5_protocol_a_reset_mid_stream_stops_nothing() {
    a_reset_mid_stream_stops_nothing(&STAGE5_PROTOCOL);
}

#[test]
fn stage5_streams_many_clients_a_reset_and_a_half_close() {
    many_clients_a_reset_and_a_half_close(&STAGE5_STREAMS);
}

#[test]
fn stage5_streams_plain_bytes_unchanged() {
    plain_bytes_unchanged(&STAGE5_STREAMS);
}

#[test]
fn stage5_streams_a_4_mib_message_comes_back_intact() {
    a_4_mib_message_comes_back_intact(&STAGE5_STREAMS);
}

#[test]
fn stage5_streams_a_reset_mid_stream_stops_nothing() {
    a_reset_mid_stream_stops_nothing(&STAGE5_STREAMS);
}

#[test]
fn stage6_many_clients_a_reset_and_a_half_close() {
    if io_uring_here() {
        many_clients_a_reset_and_a_half_close(&STAGE6);
    }
}

#[test]
fn stage6_plain_bytes_unchanged() {
    if io_uring_here() {
        plain_bytes_unchanged(&STAGE6);
    }
}

#[test]
fn stage6_a_4_mib_message_comes_back_intact() {
    if io_uring_here() {
        a_4_mib_message_comes_back_intact(&STAGE6);
    }
}

#[test]
fn stage6_a_reset_mid_stream_stops_nothing() {
    if io_uring_here() {
        a_reset_mid_stream_stops_nothing(&STAGE6);
    }
}

#[test]
fn stage6_protocol_many_clients_a_reset_and_a_half_close() {
    if io_uring_here() {
        many_clients_a_reset_and_a_half_close(&STAGE6_PROTOCOL);
    }
}

#[test]
fn stage6_protocol_plain_bytes_unchanged() {
    if io_uring_here() {
        plain_bytes_unchanged(&STAGE6_PROTOCOL);
    }
}

#[test]
fn stage6_protocol_a_4_mib_message_comes_back_intact() {
    if io_uring_here() {
        a_4_mib_message_comes_back_intact(&STAGE6_PROTOCOL);
    }
}

#[test]
fn stage6_protocol_a_reset_mid_stream_stops_nothing() {
    if io_uring_here() {
        a_reset_mid_stream_stops_nothing(&STAGE6_PROTOCOL);
    }
}

/// How many connect/echo/close cycles the unread-output test makes: far more than a pipe's
/// 64 KiB holds in `Connection closed` lines (about 3,600).
const CYCLES: usize = 5_000;

/// A server whose standard output nobody reads (`echo_server --plain | sleep 600`) goes on
/// serving (book, "Going further", "Output that never blocks the loop"). The server runs
/// in a child process (this test again, see `loadgen::child`) whose standard output is a
/// pipe nobody reads; 5,000 clients each get their echo, and every line the server said
/// either reached the pipe or was counted as dropped.
fn stdout_unread_serves_every_client(server: &Server, test: &str, child: &str) {
    if std::env::var_os(child).is_some() {
        return serve_with_stdout_unread(server);
    }
    let limit = Duration::from_secs(120);
    let finished = ChildTest::new(test, child, limit)
        .unread_stdout()
        .run()
        .unwrap();
    let served = CYCLES + 1; // the stop knock included
    let said = format!("child: {served} connections served");
    assert!(finished.stderr.contains(&said), "{}", finished.stderr);
    let last = format!("clients served: {served}");
    if server.says_served {
        // One line per connection, and the count when the server stops.
        finished.assert_said_lines_written_or_dropped(&["Connection closed", &last], served + 1);
    } else {
        finished.assert_said_lines_written_or_dropped(&["Connection closed"], served);
    }
}

/// The child: the server prints as the example does with no flags, to the unread pipe.
fn serve_with_stdout_unread(server: &Server) {
    let run = server.run;
    let (_, opened) = scenario::with_server(
        move |listener, stop| {
            run(
                Options::default().install(),
                listener,
                stop,
                Reply::Plain,
                Vec::new(),
            );
            String::new() // its lines went to standard output
        },
        |addr| {
            scenario::connect_close_cycles(addr, CYCLES).unwrap_or_else(|error| {
                // Exit at once: the test harness's own report would block on the full pipe.
                eprintln!("child: a client failed: {error}");
                std::process::exit(1)
            })
        },
    );
    eprintln!("child: {opened} connections served");
    // Not back to the harness, whose report would go to the full pipe.
    std::process::exit(0);
}

#[test]
fn stage4_a_server_whose_stdout_nobody_reads_serves_every_client() {
    stdout_unread_serves_every_client(
        &STAGE4,
        "stage4_a_server_whose_stdout_nobody_reads_serves_every_client",
        "STAGE4_UNREAD_STDOUT_CHILD",
    );
}

#[test]
fn stage5_a_server_whose_stdout_nobody_reads_serves_every_client() {
    stdout_unread_serves_every_client(
        &STAGE5,
        "stage5_a_server_whose_stdout_nobody_reads_serves_every_client",
        "STAGE5_UNREAD_STDOUT_CHILD",
    );
}

#[test]
fn stage6_a_server_whose_stdout_nobody_reads_serves_every_client() {
    if io_uring_here() {
        stdout_unread_serves_every_client(
            &STAGE6,
            "stage6_a_server_whose_stdout_nobody_reads_serves_every_client",
            "STAGE6_UNREAD_STDOUT_CHILD",
        );
    }
}

/// How long, on the virtual clock, the out-of-descriptors scenario keeps the server out of
/// file descriptors.
const OUT_OF_DESCRIPTORS: Duration = Duration::from_secs(3);

/// A server out of file descriptors (`ulimit -n 64`): `accept` fails with EMFILE, and
/// fails again at every try while the connection waits. The server must say so about once
/// a second (each stage pauses accepting for a second, as asyncio does), not at every
/// poll: a server that retried every 10 ms wrote 100 lines a second for as long as it
/// lasted. The scenario runs in a child process with 64 descriptors (this test again, see
/// `loadgen::child`), on the virtual clock, so it counts lines per virtual second and
/// times nothing. `says` is what the stage's line contains.
fn out_of_descriptors_says_so_once_a_second(server: &Server, says: &str, test: &str, child: &str) {
    if std::env::var_os(child).is_some() {
        return out_of_descriptors(server);
    }
    let finished = ChildTest::new(test, child, Duration::from_secs(120))
        .nofile(64)
        .run()
        .unwrap();
    finished.assert_success();
    let stderr = &finished.stderr;
    assert!(stderr.contains("child: scenario complete"), "{stderr}");
    let lines = stderr.lines().filter(|l| l.contains(says)).count();
    // At 0, 1 and 2 s; at 3 s too if the retry comes before the descriptors are freed.
    let most = OUT_OF_DESCRIPTORS.as_secs() as usize + 1;
    assert!(
        (1..=most).contains(&lines),
        "{lines} lines in {OUT_OF_DESCRIPTORS:?}, at most {most} expected:\n{stderr}"
    );
}

/// The child, with at most 64 descriptors. At 0 s (virtual) the test fills the descriptor
/// table, keeping one for client B, which connects: the server cannot accept it. At
/// [`OUT_OF_DESCRIPTORS`] the test frees the table, closes B, sets the stop flag and
/// knocks; the server stops at its next look at the flag.
fn out_of_descriptors(server: &Server) {
    let listener = scaffold::net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    // The same listening socket, for the test to see B's connection arrive.
    let listening = listener.try_clone().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // What the scenario holds until it frees everything: the files filling the table, B,
    // and the listener's clone (kept, lest dropping it free a descriptor).
    type Held = (Vec<File>, Option<TcpStream>, Option<TcpListener>);
    let held: Rc<RefCell<Held>> = Rc::default();
    let (fill, free, flag) = (held.clone(), held, stop.clone());
    let steps: Steps = vec![
        (
            Duration::ZERO,
            Box::new(move || {
                let mut fill = fill.borrow_mut();
                while let Ok(file) = File::open("/dev/null") {
                    fill.0.push(file);
                }
                fill.0.pop();
                fill.1 = Some(TcpStream::connect(addr).unwrap());
                // B waits to be accepted before the virtual clock moves on.
                let queued = loadgen::ready::wait_readable(&listening, Duration::from_secs(10));
                assert!(queued.unwrap(), "B's connection not delivered");
                fill.2 = Some(listening);
            }),
        ),
        (
            OUT_OF_DESCRIPTORS,
            Box::new(move || {
                free.take();
                flag.store(true, Ordering::Relaxed);
                // A server waiting for a connection looks at the flag after the next.
                client::knock(addr).unwrap();
            }),
        ),
    ];
    (server.run)(VirtualClock::new(), listener, stop, Reply::Plain, steps);
    eprintln!("child: scenario complete");
}

#[test]
fn stage1_out_of_descriptors_says_so_once_a_second() {
    out_of_descriptors_says_so_once_a_second(
        &STAGE1,
        "accept failed",
        "stage1_out_of_descriptors_says_so_once_a_second",
        "STAGE1_EMFILE_CHILD",
    );
}

#[test]
fn stage2_out_of_descriptors_says_so_once_a_second() {
    out_of_descriptors_says_so_once_a_second(
        &STAGE2,
        "accept failed",
        "stage2_out_of_descriptors_says_so_once_a_second",
        "STAGE2_EMFILE_CHILD",
    );
}

#[test]
fn stage3_out_of_descriptors_says_so_once_a_second() {
    out_of_descriptors_says_so_once_a_second(
        &STAGE3,
        "accept failed",
        "stage3_out_of_descriptors_says_so_once_a_second",
        "STAGE3_EMFILE_CHILD",
    );
}

#[test]
fn stage4_out_of_descriptors_says_so_once_a_second() {
    out_of_descriptors_says_so_once_a_second(
        &STAGE4,
        "accept failed",
        "stage4_out_of_descriptors_says_so_once_a_second",
        "STAGE4_EMFILE_CHILD",
    );
}

#[test]
fn stage5_out_of_descriptors_says_so_once_a_second() {
    out_of_descriptors_says_so_once_a_second(
        &STAGE5,
        "out of system resource",
        "stage5_out_of_descriptors_says_so_once_a_second",
        "STAGE5_EMFILE_CHILD",
    );
}

#[test]
fn stage6_out_of_descriptors_says_so_once_a_second() {
    if io_uring_here() {
        out_of_descriptors_says_so_once_a_second(
            &STAGE6,
            "out of system resource",
            "stage6_out_of_descriptors_says_so_once_a_second",
            "STAGE6_EMFILE_CHILD",
        );
    }
}

/// The kernel buffers of the never-reading client's connection, each way and at each end,
/// as asked with `SO_RCVBUF` and `SO_SNDBUF` (the kernel doubles the figure).
const SMALL_BUFFER: usize = 16 << 10;

/// The most a server may hold for one client that does not read, on top of the kernel's
/// buffers: a chunk it read and the answer it owes (64 KiB each in stages 4 and 5).
const MOST_HELD: usize = 256 << 10;

/// A client that sends without reading gets only so far: the server stops reading from it
/// once it owes it an answer, so all it holds for it is bounded, per connection; when the
/// client reads at last, every byte comes back, once, in order. The kernel's buffers are
/// pinned small (the accepted socket inherits the listener's; the client sets its own), so
/// that what gets through is mostly what the server holds.
fn a_client_that_never_reads_gets_only_so_far(server: &Server) {
    let run = server.run;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let sock = socket2::SockRef::from(&listener);
    sock.set_recv_buffer_size(SMALL_BUFFER).unwrap();
    sock.set_send_buffer_size(SMALL_BUFFER).unwrap();
    let (text, opened) = scenario::with_server_on(
        listener,
        move |listener, stop| {
            let clock = RealClock::new();
            let transcript = Transcript::capture(clock.clone(), false);
            run(clock, listener, stop, Reply::Plain, Vec::new());
            transcript.text()
        },
        |addr| {
            let mut stream = client::connect(addr).unwrap();
            let sock = socket2::SockRef::from(&stream);
            sock.set_recv_buffer_size(SMALL_BUFFER).unwrap();
            sock.set_send_buffer_size(SMALL_BUFFER).unwrap();
            let kernel = 4 * 2 * SMALL_BUFFER; // two sockets, two buffers each, doubled
            let sent = scenario::never_reads_then_reads(&mut stream, 64 << 20).unwrap();
            eprintln!("got {} KiB in before the buffers filled", sent >> 10);
            assert!(
                sent <= kernel + MOST_HELD,
                "{} KiB got through: the server holds more than {} KiB for a client that \
                 does not read",
                sent >> 10,
                MOST_HELD >> 10
            );
            client::round_trip(&mut client::connect(addr).unwrap(), b"", b"next").unwrap();
            2
        },
    );
    scenario::assert_all_closed((text, opened));
}

#[test]
fn stage1_a_client_that_never_reads_gets_only_so_far() {
    a_client_that_never_reads_gets_only_so_far(&STAGE1);
}

#[test]
fn stage2_a_client_that_never_reads_gets_only_so_far() {
    a_client_that_never_reads_gets_only_so_far(&STAGE2);
}

#[test]
fn stage3_a_client_that_never_reads_gets_only_so_far() {
    a_client_that_never_reads_gets_only_so_far(&STAGE3);
}

#[test]
fn stage4_a_client_that_never_reads_gets_only_so_far() {
    a_client_that_never_reads_gets_only_so_far(&STAGE4);
}

#[test]
fn stage5_a_client_that_never_reads_gets_only_so_far() {
    a_client_that_never_reads_gets_only_so_far(&STAGE5);
}

#[test]
fn stage5_protocol_a_client_that_never_reads_gets_only_so_far() {
    a_client_that_never_reads_gets_only_so_far(&STAGE5_PROTOCOL);
}

#[test]
fn stage5_streams_a_client_that_never_reads_gets_only_so_far() {
    a_client_that_never_reads_gets_only_so_far(&STAGE5_STREAMS);
}

#[test]
fn stage6_a_client_that_never_reads_gets_only_so_far() {
    if io_uring_here() {
        a_client_that_never_reads_gets_only_so_far(&STAGE6);
    }
}

#[test]
fn stage6_protocol_a_client_that_never_reads_gets_only_so_far() {
    if io_uring_here() {
        a_client_that_never_reads_gets_only_so_far(&STAGE6_PROTOCOL);
    }
}

/// A 10 MiB message: far more than the transport's high-water mark and the kernel's
/// buffers; it comes back whole through stage 6's flow control.
fn a_10_mib_message_comes_back_intact(server: &Server) {
    scenario::assert_all_closed(with_server(server, Reply::Plain, |addr| {
        scenario::big_message(addr, 10 << 20).unwrap();
        1
    }));
}

#[test]
fn stage6_a_10_mib_message_comes_back_intact() {
    if io_uring_here() {
        a_10_mib_message_comes_back_intact(&STAGE6);
    }
}

#[test]
fn stage6_protocol_a_10_mib_message_comes_back_intact() {
    if io_uring_here() {
        a_10_mib_message_comes_back_intact(&STAGE6_PROTOCOL);
    }
}
