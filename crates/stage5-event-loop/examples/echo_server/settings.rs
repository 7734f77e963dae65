//! How stage 5's echo server is set up: its [`Settings`], and `--grace SECS`, `--loops N`
//! and `--api sock|protocol|streams`, the flags it adds to the ones every echo server has
//! (book chapter 7, "The echo server", "Beyond one core", and chapter 8, "Three echo
//! servers"; no public source: the talk's server takes no flags).

use std::cell::Cell;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use scaffold::cli::lexopt;
use scaffold::net::{ListenError, Reply};

/// How long a shutdown waits for the open connections, unless `--grace` says otherwise.
pub const DEFAULT_GRACE: f64 = 5.0;

/// Which of asyncio's three ways the server is written in (`--api`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Api {
    /// A task per connection awaiting `sock_recv` and `sock_sendall` (chapter 7).
    #[default]
    Sock,
    /// A `Protocol` whose `data_received` writes back (chapter 8, asyncio's
    /// `create_server`).
    Protocol,
    /// A `start_server` handler looping `read`, `write`, `drain` (chapter 8, streams).
    Streams,
}

impl Api {
    /// `--api`'s value, or `None` for a value it does not know.
    pub fn parse(value: &str) -> Option<Api> {
        match value {
            "sock" => Some(Api::Sock),
            "protocol" => Some(Api::Protocol),
            "streams" => Some(Api::Streams),
            _ => None,
        }
    }
}

/// How a server answers, and how it stops.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How to answer.
    pub reply: Reply,
    /// Which API serves (`--api`).
    pub api: Api,
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
            api: Api::Sock,
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

/// `--grace SECS`, `--loops N` and `--api`, this server's own flags.
pub struct Flags {
    /// `--api sock|protocol|streams`.
    pub api: Cell<Api>,
    /// `--grace SECS`.
    pub grace: Cell<f64>,
    /// `--loops N`.
    pub loops: Cell<usize>,
}

/// Their lines in `--help`.
pub const USAGE: &str = concat!(
    "      --grace SECS     on Ctrl-C, SIGTERM or SIGHUP, give open connections SECS seconds\n",
    "                       to finish (default 5)\n",
    "      --loops N        run N event loops on N threads, all accepting on one port\n",
    "                       (--record records every loop; --timeline draws one, and is\n",
    "                       refused with more than one)\n",
    "      --api API        how the server is written: sock (a task per connection on\n",
    "                       sock_recv and sock_sendall, the default), protocol (a Protocol\n",
    "                       whose data_received writes back) or streams (a start_server\n",
    "                       handler looping read, write, drain)",
);

impl Default for Flags {
    fn default() -> Flags {
        Flags {
            api: Cell::new(Api::Sock),
            grace: Cell::new(DEFAULT_GRACE),
            loops: Cell::new(1),
        }
    }
}

impl Flags {
    /// Take `--grace`, `--loops` or `--api` if `flag` is one of them. A bad `--api` is a
    /// one-line error and exit code 2.
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
            "api" => {
                let value = args.value()?.string()?;
                match Api::parse(&value) {
                    Some(api) => self.api.set(api),
                    None => {
                        eprintln!("error: --api must be sock, protocol or streams, not {value:?}");
                        std::process::exit(2);
                    }
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Why these flags refuse `options`, if they do: a timeline draws one loop, and with
    /// several it would leave the others out (`--record` keeps every loop).
    pub fn refused(&self, options: &scaffold::Options) -> Option<&'static str> {
        (self.loops.get() > 1 && options.timeline.is_some()).then_some(
            "--timeline draws one loop's run, and with --loops above 1 would leave the \
             others out; --record keeps every loop, a track group each",
        )
    }

    /// The listening socket for `--loops` loops (see [`Settings::listen`]).
    pub fn listen(&self, addr: SocketAddr) -> Result<TcpListener, ListenError> {
        Settings::listen(addr, self.loops.get())
    }
}
