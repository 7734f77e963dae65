//! How stage 5's echo server is set up: its [`Settings`], and `--grace SECS` and `--loops
//! N`, the flags it adds to the ones every echo server has (book chapter 7, "The echo
//! server", and "Beyond one core"; no seed section: the seed's server takes no flags).

use std::cell::Cell;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use scaffold::cli::lexopt;
use scaffold::net::{ListenError, Reply};

/// How long a shutdown waits for the open connections, unless `--grace` says otherwise.
pub const DEFAULT_GRACE: f64 = 5.0;

/// How a server answers, and how it stops.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How to answer.
    pub reply: Reply,
    /// Seconds a shutdown gives the open connections to finish (`--grace`).
    pub grace: f64,
    /// Put before `clients served: N`: `loop 1: ` when there are several loops.
    pub name: String,
    /// If given, shut down after the first connection accepted once it is set (a test
    /// sets it, then connects once).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Settings {
    /// Answer with `reply`; the default grace period, no name, no stop flag.
    pub fn new(reply: Reply) -> Settings {
        let (grace, name, stop) = (DEFAULT_GRACE, String::new(), None);
        Settings {
            reply,
            grace,
            name,
            stop,
        }
    }

    /// The listening socket for `loops` loops: several loops need several listening
    /// sockets on one port, `SO_REUSEPORT`. (An associated function so that the tests'
    /// child server, which sees `Settings` only, listens as `--loops` does.)
    pub fn listen(addr: SocketAddr, loops: usize) -> Result<TcpListener, ListenError> {
        match loops {
            1 => scaffold::net::listen(addr),
            _ => scaffold::net::listen_reuse_port(addr),
        }
    }
}

/// `--grace SECS` and `--loops N`, this server's own flags.
pub struct Flags {
    /// `--grace SECS`.
    pub grace: Cell<f64>,
    /// `--loops N`.
    pub loops: Cell<usize>,
}

/// Their lines in `--help`.
pub const USAGE: &str = concat!(
    "      --grace SECS     on Ctrl-C, SIGTERM or SIGHUP, give open connections SECS seconds\n",
    "                       to finish (default 5)\n",
    "      --loops N        run N event loops on N threads, all accepting on one port",
);

impl Default for Flags {
    fn default() -> Flags {
        Flags {
            grace: Cell::new(DEFAULT_GRACE),
            loops: Cell::new(1),
        }
    }
}

impl Flags {
    /// Take `--grace` or `--loops` if `flag` is one of them.
    pub fn take(&self, flag: &str, args: &mut lexopt::Parser) -> Result<bool, lexopt::Error> {
        use lexopt::ValueExt;
        match flag {
            "grace" => match args.value()?.parse::<f64>()? {
                secs if (0.0..=3600.0).contains(&secs) => self.grace.set(secs),
                _ => return Err("--grace must be between 0 and 3600 seconds".into()),
            },
            "loops" => match args.value()?.parse::<usize>()? {
                n @ 1..=1024 => self.loops.set(n),
                _ => return Err("--loops must be between 1 and 1024".into()),
            },
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The listening socket for `--loops` loops (see [`Settings::listen`]).
    pub fn listen(&self, addr: SocketAddr) -> Result<TcpListener, ListenError> {
        Settings::listen(addr, self.loops.get())
    }
}
