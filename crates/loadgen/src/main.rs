//! `loadgen`: the echo load generator of the benchmarks (W5, W6) and of the polling-cost
//! measurements in chapters 1 and 4.
//!
//! It opens `--conns` connections to `--addr`, and on each one sends a `--size`-byte
//! message, waits for the whole echo (checking every byte), and sends the next, for
//! `--warmup` + `--secs` seconds; round trips finished during the warm-up are not counted.
//! With `--hold S` it instead opens the connections and keeps them idle for S seconds (to
//! measure a server's memory per idle connection). Either way it prints one JSON line.
//!
//! With `--server-pid PID` it also reads the server's own figures from `/proc` (so only on
//! Linux): in echo mode, the CPU time the server used during the measured window (so the
//! warm-up is left out exactly) and that time per echoed message, and the same for
//! `loadgen` itself (is the client the limit?); with `--hold`, the
//! server's resident memory before the connections and once it has accepted them all,
//! reporting as soon as it has (at most S seconds) instead of holding for the whole S.
//!
//! The work itself is the library's [`loadgen::load`]; this file is its command line.

use std::process::ExitCode;
use std::time::Duration;

use loadgen::load::{self, Config};

const USAGE: &str = "\
loadgen: drive an echo server and report throughput and round-trip latency as JSON

Options:
      --addr ADDR      server address (default 127.0.0.1:30000)
      --conns N        concurrent connections (default 50)
      --secs S         measured seconds (default 5)
      --warmup S       seconds before measuring starts (default 1)
      --size N         message size in bytes (default 64, at most 16 MiB; --conns times
                       --size at most 1 GiB)
      --prefix TEXT    expect TEXT before each echo (e.g. Got: for the non-plain servers)
      --pause MS       wait MS milliseconds between a reply and the next message
                       (an interactive client; default 0: back to back)
      --hold S         open the connections, hold them idle for S seconds, report, exit
      --server-pid PID also report that process's CPU time in the measured window, and
                       loadgen's own (echo mode), or its memory before and while holding
                       (--hold; then it reports once the server has accepted every
                       connection, within S); Linux only (it reads /proc)
  -h, --help           print this help";

/// The largest `--size`, in bytes.
const MAX_SIZE: usize = 16 << 20;

/// The most `--conns` times `--size` may come to, in bytes.
const MAX_TOTAL: usize = 1 << 30;

fn parse() -> Result<Option<Config>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut config = Config {
        addr: "127.0.0.1:30000".parse().expect("valid default"),
        conns: 50,
        secs: 5.0,
        warmup: 1.0,
        size: 64,
        prefix: Vec::new(),
        hold: None,
        pause: Duration::ZERO,
        server_pid: None,
    };
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("addr") => config.addr = parser.value()?.parse()?,
            Long("conns") => config.conns = parser.value()?.parse()?,
            Long("secs") => config.secs = parser.value()?.parse()?,
            Long("warmup") => config.warmup = parser.value()?.parse()?,
            Long("size") => config.size = parser.value()?.parse()?,
            Long("prefix") => config.prefix = parser.value()?.string()?.into_bytes(),
            Long("hold") => config.hold = Some(parser.value()?.parse()?),
            Long("pause") => {
                let ms: u64 = parser.value()?.parse()?;
                config.pause = Duration::from_millis(ms.min(10_000));
            }
            Long("server-pid") => config.server_pid = Some(parser.value()?.parse()?),
            Long("help") | Short('h') => return Ok(None),
            _ => return Err(arg.unexpected()),
        }
    }
    let durations = [config.secs, config.warmup, config.hold.unwrap_or(0.0)];
    if durations
        .iter()
        .any(|d| !d.is_finite() || *d < 0.0 || *d > 3600.0)
    {
        return Err("durations must be between 0 and 3600 seconds".into());
    }
    if config.conns == 0 || config.size == 0 {
        return Err("--conns and --size must be at least 1".into());
    }
    // Every connection holds its message: refuse what memory cannot hold, rather than
    // abort on a failed allocation or crawl through swap.
    if config.size > MAX_SIZE {
        return Err(format!("--size must be at most {MAX_SIZE} bytes (16 MiB)").into());
    }
    if config.conns.saturating_mul(config.size) > MAX_TOTAL {
        return Err("--conns times --size must be at most 1 GiB".into());
    }
    // A process that is not there: say which, not the bare error of reading `/proc`.
    #[cfg(target_os = "linux")]
    if let Some(pid) = config.server_pid
        && !std::path::Path::new(&format!("/proc/{pid}")).exists()
    {
        return Err(format!("--server-pid {pid}: no such process").into());
    }
    Ok(Some(config))
}

fn main() -> ExitCode {
    let config = match parse() {
        Ok(Some(config)) => config,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("error: {error}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match config.hold {
        Some(seconds) => load::hold(&config, seconds),
        None => load::run(&config),
    };
    match result {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
