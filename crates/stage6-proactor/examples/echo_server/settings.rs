//! How stage 6's echo server is set up: [`Settings`], and `--grace SECS` and
//! `--api sock|protocol` (book chapter 10, "The echo server on the proactor"; no public
//! source: the talk's server takes no flags).

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use scaffold::cli::lexopt;
use scaffold::net::Reply;

/// How long a shutdown waits for the open connections, unless `--grace` says otherwise.
pub const DEFAULT_GRACE: f64 = 5.0;

/// How the server is written (`--api`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Api {
    /// A task per connection awaiting `sock_recv_into` and `sock_sendall`.
    #[default]
    Sock,
    /// A `Protocol` on a transport that keeps one receive submitted (asyncio's
    /// `_ProactorSocketTransport`).
    Protocol,
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
    /// If given, shut down after the first connection accepted once it is set (a test
    /// sets it, then connects once).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Settings {
    /// Answer with `reply`; the default API and grace period, no stop flag.
    pub fn new(reply: Reply) -> Settings {
        Settings {
            reply,
            api: Api::Sock,
            grace: DEFAULT_GRACE,
            stop: None,
        }
    }
}

/// `--grace SECS` and `--api`, this server's own flags.
pub struct Flags {
    /// `--api sock|protocol`.
    pub api: Cell<Api>,
    /// `--grace SECS`.
    pub grace: Cell<f64>,
}

/// Their lines in `--help`.
pub const USAGE: &str = concat!(
    "      --grace SECS     on Ctrl-C, SIGTERM or SIGHUP, give open connections SECS seconds\n",
    "                       to finish (default 5)\n",
    "      --api API        sock (a task per connection on sock_recv_into and sock_sendall,\n",
    "                       the default) or protocol (a Protocol on a proactor transport)",
);

impl Default for Flags {
    fn default() -> Flags {
        Flags {
            api: Cell::new(Api::Sock),
            grace: Cell::new(DEFAULT_GRACE),
        }
    }
}

impl Flags {
    /// Take `--grace` or `--api` if `flag` is one of them. A bad `--api` is a one-line
    /// error and exit code 2.
    pub fn take(&self, flag: &str, args: &mut lexopt::Parser) -> Result<bool, lexopt::Error> {
        use lexopt::ValueExt;
        match flag {
            "grace" => match args.value()?.parse::<f64>()? {
                secs if (0.0..=3600.0).contains(&secs) => self.grace.set(secs),
                _ => return Err("--grace must be between 0 and 3600 seconds".into()),
            },
            "api" => match args.value()?.string()?.as_str() {
                "sock" => self.api.set(Api::Sock),
                "protocol" => self.api.set(Api::Protocol),
                other => {
                    eprintln!("error: --api must be sock or protocol, not {other:?}");
                    std::process::exit(2);
                }
            },
            _ => return Ok(false),
        }
        Ok(true)
    }
}
