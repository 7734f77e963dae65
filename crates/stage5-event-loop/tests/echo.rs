//! `sock_connect`, the client side of stage 5, against the stage 5 echo server on 127.0.0.1
//! (book chapter 7, "Socket operations"). The scenarios every stage's echo server runs are
//! the root's `tests/echo.rs`.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::net::SocketAddr;

use loadgen::scenario::{self};
use scaffold::net::Reply;
use stage5::{EventLoop, RealClock};

/// Serve with `reply` while `clients` runs; the server's output and the connection count.
fn with_server(reply: Reply, clients: impl FnOnce(SocketAddr) -> usize) -> (String, usize) {
    scenario::with_server(
        move |listener, stop| {
            let clock = RealClock::new();
            let transcript = scaffold::Transcript::capture(clock.clone(), false);
            let lp = EventLoop::with_clock(clock);
            let server = echo_server::serve(&lp, listener, reply, Some(stop)).unwrap();
            lp.run_forever().unwrap();
            drop((server, lp));
            transcript.text()
        },
        clients,
    )
}

#[test]
fn sock_connect_talks_to_the_echo_server() {
    scenario::assert_all_closed(with_server(Reply::Got, |addr| {
        let lp = EventLoop::new();
        let l = lp.clone();
        let task = lp
            .create_task(async move {
                let sock =
                    socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
                l.sock_connect(&sock, addr).await?;
                let stream = std::net::TcpStream::from(sock);
                l.sock_sendall(&stream, b"ping").await?;
                let mut reply = Vec::new();
                while reply.len() < 8 {
                    let data = l.sock_recv(&stream, 100).await?;
                    if data.is_empty() {
                        break;
                    }
                    reply.extend(data);
                }
                Ok(reply)
            })
            .unwrap();
        let reply = lp.run_until_complete(&task).unwrap();
        assert_eq!(reply, b"Got:ping");
        lp.close().unwrap();
        1
    }));
}

#[test]
fn sock_connect_reports_a_refused_connection() {
    // A port nobody listens on: bind one, note it, close it.
    let addr = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let lp = EventLoop::new();
    let l = lp.clone();
    let task = lp
        .create_task(async move {
            let sock =
                socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
            Ok(l.sock_connect(&sock, addr).await.map_err(|e| e.kind()))
        })
        .unwrap();
    let outcome = lp.run_until_complete(&task).unwrap();
    assert_eq!(outcome, Err(std::io::ErrorKind::ConnectionRefused));
}

/// A careless caller: serving on a loop that is already closed is the loop's own error, not
/// a panic (the server used to `expect` that the listener could be watched).
#[test]
fn serving_on_a_closed_loop_is_an_error_not_a_panic() {
    let lp = EventLoop::with_clock(RealClock::new());
    lp.close().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let outcome = echo_server::serve(&lp, listener, Reply::Plain, None);
    let error = outcome.err().expect("a closed loop serves nothing");
    assert_eq!(error.to_string(), "Event loop is closed");
}
