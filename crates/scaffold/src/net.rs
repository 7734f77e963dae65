//! The echo servers' shared plumbing: a listening socket with a clear error, and the
//! reply (book chapter 1, "A polling echo server"; Beazley's talk, its `tcp_server`).
//!
//! Every stage's `echo_server` example listens on 127.0.0.1:30000 by default, answers
//! `Got:` + data as the talk's does (or the bytes unchanged with `--plain`), and turns a
//! port in use into one readable line and exit code 1. That part never changes from stage
//! to stage, so it lives here once. Stage 5's server, which can run several event loops,
//! adds flags of its own and listens with `SO_REUSEPORT` ([`listen_reuse_port`]; the
//! book's "Beyond one core").

use std::fmt;
use std::io;
use std::net::{SocketAddr, TcpListener};

mod setup;

pub use setup::{DEFAULT_ADDR, ECHO_USAGE, EchoArgs, EchoSetup, Ends, PRODUCER_USAGE, refused};

/// Why a server could not start listening.
#[derive(Debug)]
pub struct ListenError {
    /// The address we tried.
    pub addr: SocketAddr,
    /// What the operating system said.
    pub source: io::Error,
}

impl fmt::Display for ListenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hint = match self.source.kind() {
            io::ErrorKind::AddrInUse => " (is another server already running there?)",
            io::ErrorKind::AddrNotAvailable => " (not an address of this machine)",
            io::ErrorKind::PermissionDenied => " (ports below 1024 need privileges)",
            _ => "",
        };
        write!(f, "cannot listen on {}: {}{hint}", self.addr, self.source)
    }
}

impl std::error::Error for ListenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// How many connections a listening socket queues until the server accepts them
/// (`listen(2)`'s backlog; the kernel caps it at `net.core.somaxconn`). std's, mio's and
/// tokio's `TcpListener::bind` ask for 128 (`ss -ltn` shows 128 for `bench-tokio serve`):
/// a burst of more while the server is busy elsewhere (a polling server between two polls,
/// a loop running callbacks) and the kernel drops the rest, whose clients wait a second or
/// more for their retransmission. The echo servers that listen here ask for 1024, as stage
/// 5's does (its `BACKLOG`, for `listen` and for its `Server`).
pub const BACKLOG: i32 = 1024;

/// Bind a non-blocking TCP listener on `addr`, queueing up to [`BACKLOG`] connections.
pub fn listen(addr: SocketAddr) -> Result<TcpListener, ListenError> {
    use socket2::{Domain, Socket, Type};
    let bind = || -> io::Result<TcpListener> {
        let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
        #[cfg(unix)]
        socket.set_reuse_address(true)?; // as std's `bind` does on Unix (not on Windows)
        socket.bind(&addr.into())?;
        socket.listen(BACKLOG)?;
        socket.set_nonblocking(true)?;
        Ok(socket.into())
    };
    bind().map_err(|source| ListenError { addr, source })
}

// ANCHOR: listen_reuse_port
/// Bind a non-blocking TCP listener on `addr` with `SO_REUSEPORT`: several sockets, each
/// made this way, may listen on the same port, and the kernel spreads new connections
/// between them (on Linux, by a hash of each connection's addresses and ports). A port
/// already taken by a socket without the option is still an error. Unix only.
#[cfg(unix)]
pub fn listen_reuse_port(addr: SocketAddr) -> Result<TcpListener, ListenError> {
    use socket2::{Domain, Socket, Type};
    let bind = || -> io::Result<TcpListener> {
        let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
        socket.set_reuse_address(true)?; // as std's `bind` does on Unix
        socket.set_reuse_port(true)?;
        socket.bind(&addr.into())?;
        socket.listen(BACKLOG)?;
        socket.set_nonblocking(true)?;
        Ok(socket.into())
    };
    bind().map_err(|source| ListenError { addr, source })
}
// ANCHOR_END: listen_reuse_port

/// How an echo server answers a chunk of data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reply {
    /// `Got:` + data, as the talk's server does.
    #[default]
    Got,
    /// The bytes unchanged (`--plain`), for standard echo clients and benchmarks.
    Plain,
}

impl Reply {
    /// Append the answer to `data` to `out`.
    pub fn write(self, data: &[u8], out: &mut Vec<u8>) {
        if self == Reply::Got {
            out.extend_from_slice(b"Got:");
        }
        out.extend_from_slice(data);
    }
}

/// True for errors that mean "the peer went away" (reset, broken pipe, aborted) rather
/// than a fault of ours: a server reports `Connection closed` and goes on.
pub fn is_disconnect(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::NotConnected
            | io::ErrorKind::UnexpectedEof
    )
}

/// How long an echo server stops accepting after [`out_of_resources`] (asyncio's
/// `ACCEPT_RETRY_DELAY`): long enough that a connection closing meanwhile can free a
/// descriptor, short enough that a waiting client is not given up on.
pub const ACCEPT_RETRY_DELAY: std::time::Duration = std::time::Duration::from_secs(1);

/// True for `accept` errors that mean "out of file descriptors or memory" (EMFILE,
/// ENFILE, ENOBUFS, ENOMEM): the connection stays queued, and accepting again at once
/// fails again at once. asyncio stops accepting for a second on these; so do stages 4
/// and 5.
pub fn out_of_resources(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Options;

    #[test]
    fn a_port_in_use_is_a_clear_error() {
        let first = listen("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = first.local_addr().unwrap();
        let error = listen(addr).unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with(&format!("cannot listen on {addr}: ")),
            "{text}"
        );
        assert!(text.contains("another server"), "{text}");
    }

    /// A burst of 300 connections while the server is busy elsewhere (here: never
    /// accepts) waits in the listener's queue. With std's backlog of 128, the kernel
    /// dropped every connection beyond the 129th, and each waited a second or more for
    /// its retransmission. Needs the system's cap (`net.core.somaxconn`, 4096 since Linux
    /// 5.4) to be at least 300; with a lower cap the test says so and checks nothing.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_burst_of_300_connections_waits_in_the_queue() {
        const BURST: usize = 300;
        let cap = std::fs::read_to_string("/proc/sys/net/core/somaxconn");
        let cap: usize = cap.ok().and_then(|c| c.trim().parse().ok()).unwrap_or(0);
        if cap < BURST {
            eprintln!("net.core.somaxconn is {cap}: the kernel caps every backlog below {BURST}");
            return;
        }
        let listener = listen("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = listener.local_addr().unwrap();
        let timeout = std::time::Duration::from_secs(3);
        let mut queued = Vec::new();
        for n in 0..BURST {
            match std::net::TcpStream::connect_timeout(&addr, timeout) {
                Ok(stream) => queued.push(stream),
                Err(error) => panic!("connection {n} of {BURST}: {error}"),
            }
        }
        assert_eq!(queued.len(), BURST);
    }

    #[test]
    #[cfg(unix)]
    fn reuse_port_listeners_share_a_port_and_others_are_refused() {
        let first = listen_reuse_port("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = first.local_addr().unwrap();
        let second = listen_reuse_port(addr).unwrap();
        assert_eq!(second.local_addr().unwrap(), addr);
        let error = listen(addr).unwrap_err();
        assert!(error.to_string().contains("another server"), "{error}");
    }

    /// On the virtual clock a polling server's 10 ms sleeps take no time: it never waits,
    /// and spins a core for as long as it runs. Stages 4 and 5 wait in `select`, which
    /// blocks for real whatever the clock.
    #[test]
    fn a_polling_server_refuses_virtual_time() {
        let virtual_time = Options {
            virtual_time: true,
            timestamps: true,
            ..Options::default()
        };
        let why = refused(&virtual_time, Ends::Polling).expect("refused");
        assert!(why.starts_with("--virtual-time: "), "{why}");
        assert_eq!(refused(&virtual_time, Ends::WhenKilled), None);
        assert_eq!(refused(&Options::default(), Ends::Polling), None);
    }

    /// A recording is written when the program ends: only a server that ends gracefully
    /// (stage 5's, on a signal) takes `--record` and `--timeline`.
    #[test]
    fn only_a_server_that_ends_gracefully_records() {
        let record = Options {
            record: Some("run.json".into()),
            ..Options::default()
        };
        for ends in [Ends::Polling, Ends::WhenKilled] {
            let why = refused(&record, ends).expect("refused");
            assert!(why.starts_with("--timeline, --record: "), "{why}");
        }
        assert_eq!(refused(&record, Ends::Gracefully), None);
    }

    #[test]
    fn echo_flags() {
        let mut echo = EchoArgs::default();
        let parsed = crate::Options::try_parse_from(["--plain", "--addr", "[::1]:7"], |f, p| {
            echo.flag(f, p)
        });
        assert!(parsed.is_ok());
        assert_eq!(echo.reply, Reply::Plain);
        assert_eq!(echo.addr, "[::1]:7".parse().unwrap());
        let mut echo = EchoArgs::default();
        let bad = crate::Options::try_parse_from(["--addr", "nowhere"], |f, p| echo.flag(f, p));
        assert!(bad.is_err());
    }

    #[test]
    fn running_out_of_descriptors_is_told_apart() {
        assert!(out_of_resources(&io::Error::from_raw_os_error(
            libc::EMFILE
        )));
        assert!(out_of_resources(&io::Error::from_raw_os_error(
            libc::ENOBUFS
        )));
        assert!(!out_of_resources(&io::Error::from_raw_os_error(
            libc::ECONNABORTED
        )));
        assert!(!out_of_resources(&io::ErrorKind::WouldBlock.into()));
    }

    #[test]
    fn replies() {
        let mut out = Vec::new();
        Reply::Got.write(b"hi", &mut out);
        Reply::Plain.write(b"hi", &mut out);
        assert_eq!(out, b"Got:hihi");
    }
}
