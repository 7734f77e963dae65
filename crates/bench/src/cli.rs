//! The command line every `bench-SYSTEM` binary shares:
//!
//! ```text
//! bench-stage1                 run every in-process workload (W1-W4), one JSON line each
//! bench-stage1 W1 W3           run these
//! bench-stage1 --list          list the workloads and how this system does them
//! bench-tokio serve --addr 127.0.0.1:0 [--max-secs S]    the echo server of W5/W6
//! bench-stage5 serve --api protocol                      another of its echo servers
//! ```
//!
//! Sizes come from `bench/params.env` ([`Params::load`]). Each workload runs `REPEAT` times
//! and the best run is reported (the least wall time, the least CPU time): on a shared
//! machine interference only ever adds time. A workload that checks its own result and
//! finds it wrong panics: a wrong answer is never reported as a time.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use crate::measure::Sample;
use crate::params::Params;
use crate::systems::{Serve, System};

const USAGE: &str = "\
usage: bench-SYSTEM [W1 W2 W3 W4 ...]    run workloads (default: all), one JSON line each
       bench-SYSTEM --list               list the workloads of this system
       bench-SYSTEM serve [--addr ADDR] [--max-secs S] [--api NAME]
                                         echo server for W5/W6 (prints `listening on ADDR`
                                         to stderr; exits by itself after S seconds, default 600;
                                         --api: another of the system's servers, see --list)
Sizes come from bench/params.env (or $BENCH_PARAMS); environment variables override it.";

enum Command {
    Run(Vec<String>),
    List,
    Serve {
        addr: SocketAddr,
        max: Duration,
        api: Option<String>,
    },
    Help,
}

fn parse() -> Result<Command, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut ids = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("list") => return Ok(Command::List),
            Long("help") | Short('h') => return Ok(Command::Help),
            Value(v) if v == "serve" && ids.is_empty() => {
                let mut addr: SocketAddr = "127.0.0.1:0".parse().expect("a valid address");
                let mut max = 600.0;
                let mut api = None;
                while let Some(arg) = parser.next()? {
                    match arg {
                        Long("addr") => addr = parser.value()?.parse()?,
                        Long("max-secs") => max = parser.value()?.parse()?,
                        Long("api") => api = Some(parser.value()?.string()?),
                        Long("help") | Short('h') => return Ok(Command::Help),
                        _ => return Err(arg.unexpected()),
                    }
                }
                if !(0.0..=86_400.0).contains(&max) {
                    return Err("--max-secs must be between 0 and 86400".into());
                }
                return Ok(Command::Serve {
                    addr,
                    max: Duration::from_secs_f64(max),
                    api,
                });
            }
            Value(v) => ids.push(v.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(Command::Run(ids))
}

/// The echo server `serve --api api` names (none: the system's first).
fn pick(system: &System, api: Option<&str>) -> Option<Serve> {
    match api {
        None => system.serve,
        Some(api) => system
            .serve_apis
            .iter()
            .find(|(n, _)| *n == api)
            .map(|(_, s)| *s),
    }
}

/// The `main` of `bench-SYSTEM` for `system`.
pub fn main(system: &System) -> ExitCode {
    let command = match parse() {
        Ok(command) => command,
        Err(error) => {
            eprintln!("error: {error}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Command::List => {
            for w in system.workloads {
                println!("{} {}: {}", w.id, w.system, w.how);
            }
            if system.serve.is_some() {
                println!("serve: echo server for W5/W6");
            }
            for (api, _) in system.serve_apis {
                println!("serve --api {api}: echo server for W5/W6");
            }
            ExitCode::SUCCESS
        }
        Command::Serve { addr, max, api } => match pick(system, api.as_deref()) {
            Some(serve) => match serve(addr, max) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::FAILURE
                }
            },
            None => {
                let which = api.map_or(String::new(), |api| format!(" --api {api}"));
                eprintln!("error: {} has no echo server{which} here", system.name);
                ExitCode::from(2)
            }
        },
        Command::Run(ids) => {
            let params = match Params::load() {
                Ok(params) => params,
                Err(error) => {
                    eprintln!("error: {error}");
                    return ExitCode::from(2);
                }
            };
            if let Some(unknown) = ids
                .iter()
                .find(|id| !system.workloads.iter().any(|w| &w.id == id))
            {
                eprintln!("error: {} has no workload {unknown}", system.name);
                return ExitCode::from(2);
            }
            for w in system.workloads {
                if ids.is_empty() || ids.iter().any(|id| id == w.id) {
                    let runs = (0..params.repeat).map(|_| (w.run)(&params));
                    let best = Sample::best(runs).expect("at least one run");
                    println!("{}", best.json(w.system, w.id, w.how, params.repeat));
                }
            }
            ExitCode::SUCCESS
        }
    }
}
