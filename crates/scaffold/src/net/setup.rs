//! An echo server's command line: its flags, the flags it refuses, and its listening
//! socket made from them (book chapter 1, "A polling echo server"; Beazley's talk,
//! its `tcp_server`, whose address was fixed: the flags are the project's own). A child of
//! `net`, which makes the socket.

use std::net::{SocketAddr, TcpListener};
use std::rc::Rc;

use super::{ListenError, Reply, listen};
use crate::cli::{self, Options};
use crate::clock::Clock;

/// Where the echo servers listen unless told otherwise: loopback only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:30000";

/// The `--addr`/`--plain` usage lines the echo servers add to the common flags.
pub const ECHO_USAGE: &str = concat!(
    "      --addr ADDR      listen on ADDR (default 127.0.0.1:30000; port 0 picks a free port)\n",
    "      --plain          echo the bytes unchanged instead of replying `Got:` + data",
);

/// The echo servers' own flags, `--addr` and `--plain`, with their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EchoArgs {
    /// Where to listen.
    pub addr: SocketAddr,
    /// How to answer.
    pub reply: Reply,
}

impl Default for EchoArgs {
    fn default() -> Self {
        EchoArgs {
            addr: DEFAULT_ADDR.parse().expect("the default address parses"),
            reply: Reply::Got,
        }
    }
}

impl EchoArgs {
    /// Take `--addr ADDR` or `--plain` if `name` is one of them: plug this into
    /// [`Options::parse_with`](crate::Options::parse_with).
    pub fn flag(&mut self, name: &str, parser: &mut lexopt::Parser) -> Result<bool, lexopt::Error> {
        use lexopt::ValueExt;
        match name {
            "addr" => self.addr = parser.value()?.parse()?,
            "plain" => self.reply = Reply::Plain,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `--with-producer N`, for the servers that run the talk's producer and consumer beside
/// themselves (stage 4 onwards).
pub const PRODUCER_USAGE: &str = concat!(
    "      --with-producer N\n",
    "                       also run producer(q, N) and a consumer, as the talk does",
);

/// Everything an echo server's `main` needs before it can serve: parsed flags, the
/// installed console, and a listening socket.
pub struct EchoSetup {
    /// The clock the flags asked for.
    pub clock: Rc<dyn Clock>,
    /// How to answer.
    pub reply: Reply,
    /// The listening socket, non-blocking.
    pub listener: TcpListener,
    /// `--with-producer N`, if given (only accepted when asked for).
    pub with_producer: Option<u32>,
    /// The common flags, for a server that installs a console on another thread too.
    pub options: Options,
}

impl EchoSetup {
    /// Parse this process's flags (the common ones, `--addr`, `--plain`, and
    /// `--with-producer N` if `producer` is true), install the console and listen. A bad
    /// flag exits with 2; an address that cannot be listened on exits with 1 and one line
    /// saying why.
    pub fn from_args(about: &str, producer: bool) -> EchoSetup {
        let no_flags = |_: &str, _: &mut lexopt::Parser| Ok(false);
        let (ends, refuse) = (Ends::WhenKilled, |_: &Options| None);
        EchoSetup::setup(about, producer, ends, "", no_flags, refuse, listen)
    }

    /// [`EchoSetup::from_args`] for the polling servers of stages 1 to 3, which also
    /// refuse `--virtual-time` (see [`refused`]).
    pub fn from_args_polling(about: &str) -> EchoSetup {
        let no_flags = |_: &str, _: &mut lexopt::Parser| Ok(false);
        let (ends, refuse) = (Ends::Polling, |_: &Options| None);
        EchoSetup::setup(about, false, ends, "", no_flags, refuse, listen)
    }

    /// [`EchoSetup::from_args`] for a server with flags of its own that shuts down
    /// gracefully on a signal (stage 5's), so that it may write `--timeline` and
    /// `--record` when it ends: `extra_usage` lists the flags and `extra` takes them, as in
    /// [`Options::parse_with`]; once every flag is parsed, `refuse` says why the flags
    /// cannot go together, if they cannot (one line, exit code 2, before any file is
    /// created), and `listen_on` makes the listening socket (say,
    /// [`listen_reuse_port`](super::listen_reuse_port) when the flags ask for several
    /// listeners on one port).
    pub fn from_args_with(
        about: &str,
        producer: bool,
        extra_usage: &str,
        extra: impl FnMut(&str, &mut lexopt::Parser) -> Result<bool, lexopt::Error>,
        refuse: impl FnOnce(&Options) -> Option<&'static str>,
        listen_on: impl FnOnce(SocketAddr) -> Result<TcpListener, ListenError>,
    ) -> EchoSetup {
        let ends = Ends::Gracefully;
        EchoSetup::setup(about, producer, ends, extra_usage, extra, refuse, listen_on)
    }

    fn setup(
        about: &str,
        producer: bool,
        ends: Ends,
        extra_usage: &str,
        mut extra: impl FnMut(&str, &mut lexopt::Parser) -> Result<bool, lexopt::Error>,
        refuse: impl FnOnce(&Options) -> Option<&'static str>,
        listen_on: impl FnOnce(SocketAddr) -> Result<TcpListener, ListenError>,
    ) -> EchoSetup {
        let mut echo = EchoArgs::default();
        let mut with_producer = None;
        let mut usage = ECHO_USAGE.to_owned();
        for more in [if producer { PRODUCER_USAGE } else { "" }, extra_usage] {
            if !more.is_empty() {
                usage = format!("{usage}\n{more}");
            }
        }
        let options = Options::parse_with(about, &usage, |flag, args| {
            if producer && flag == "with-producer" {
                use lexopt::ValueExt;
                with_producer = Some(args.value()?.parse::<u32>()?);
                return Ok(true);
            }
            Ok(echo.flag(flag, args)? || extra(flag, args)?)
        });
        if let Some(why) = refused(&options, ends).or_else(|| refuse(&options)) {
            eprintln!("error: {why}");
            std::process::exit(2);
        }
        let clock = options.install();
        let listener = listen_on(echo.addr).unwrap_or_else(|error| cli::exit_with_error(error));
        if let Ok(addr) = listener.local_addr() {
            eprintln!("listening on {addr} (Ctrl-C to stop)");
        }
        EchoSetup {
            clock,
            reply: echo.reply,
            listener,
            with_producer,
            options,
        }
    }
}

/// How an echo server ends, which decides the flags it can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ends {
    /// Only when it is killed, and it polls its sockets (stages 1 to 3).
    Polling,
    /// Only when it is killed (stage 4).
    WhenKilled,
    /// Gracefully, on a signal (stage 5): then it writes its timeline and recording.
    Gracefully,
}

/// Why an echo server that ends as `ends` says refuses the flags in `options`, if it does.
pub fn refused(options: &Options, ends: Ends) -> Option<&'static str> {
    if ends != Ends::Gracefully && (options.timeline.is_some() || options.record.is_some()) {
        // A picture (or a recording) is written when a program ends, and this server ends
        // only when it is killed: refuse the flag rather than promise a file that never comes.
        return Some(
            "--timeline, --record: this echo server serves until it is killed, so it would \
             never write their file (stage 5's writes them when Ctrl-C stops it; stage 4's \
             scripted I/O test draws a timeline)",
        );
    }
    if options.step {
        return Some(crate::step::SERVERS_REFUSE);
    }
    if ends == Ends::Polling && options.virtual_time {
        // The polls' 10 ms sleeps would take no time: the server would never wait, and
        // spin a core for as long as it runs (stages 4 and 5 wait in `select`, for real).
        return Some(
            "--virtual-time: a polling server on the virtual clock never waits between \
             polls, and would spin a whole core; it runs on the real clock only",
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which of `--step`, `--record`, `--timeline`, `--virtual-time` a server that ends as
    /// `ends` refuses, alone each.
    fn refuses(ends: Ends) -> Vec<&'static str> {
        let flags: [(&str, Options); 4] = [
            (
                "--step",
                Options {
                    step: true,
                    ..Options::default()
                },
            ),
            (
                "--record",
                Options {
                    record: Some("r.json".into()),
                    ..Options::default()
                },
            ),
            (
                "--timeline",
                Options {
                    timeline: Some("t.svg".into()),
                    ..Options::default()
                },
            ),
            (
                "--virtual-time",
                Options {
                    virtual_time: true,
                    ..Options::default()
                },
            ),
        ];
        let refused = flags
            .into_iter()
            .filter(|(_, options)| refused(options, ends).is_some());
        refused.map(|(flag, _)| flag).collect()
    }

    /// What the README says of the echo servers: every one refuses `--step`; stages 1 to
    /// 4's, which end only when killed, `--record` and `--timeline`; the polling ones of
    /// stages 1 to 3, `--virtual-time`; stage 5's takes the rest.
    #[test]
    fn the_servers_refuse_what_the_readme_says() {
        let all = ["--step", "--record", "--timeline", "--virtual-time"];
        assert_eq!(refuses(Ends::Polling), all);
        assert_eq!(refuses(Ends::WhenKilled), all[..3]);
        assert_eq!(refuses(Ends::Gracefully), ["--step"]);
        assert_eq!(refused(&Options::default(), Ends::Polling), None);
    }
}
