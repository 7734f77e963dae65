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
//! warm-up is left out exactly) and that time per echoed message; with `--hold`, the
//! server's resident memory before the connections and once it has accepted them all,
//! reporting as soon as it has (at most S seconds) instead of holding for the whole S.
//!
//! One thread drives every connection through a `mio::Poll`, so a thousand connections do
//! not need a thousand threads, and the client's own overhead stays small beside the
//! server's. Everything is bounded: it stops by itself after the given time.

use std::io::{self, ErrorKind, Read, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

const USAGE: &str = "\
loadgen: drive an echo server and report throughput and round-trip latency as JSON

Options:
      --addr ADDR      server address (default 127.0.0.1:30000)
      --conns N        concurrent connections (default 50)
      --secs S         measured seconds (default 5)
      --warmup S       seconds before measuring starts (default 1)
      --size N         message size in bytes (default 64)
      --prefix TEXT    expect TEXT before each echo (e.g. Got: for the non-plain servers)
      --pause MS       wait MS milliseconds between a reply and the next message
                       (an interactive client; default 0: back to back)
      --hold S         open the connections, hold them idle for S seconds, report, exit
      --server-pid PID also report that process's CPU time in the measured window (echo
                       mode), or its memory before and while holding (--hold; then it
                       reports once the server has accepted every connection, within S);
                       Linux only (it reads /proc)
  -h, --help           print this help";

#[derive(Debug, Clone)]
struct Config {
    addr: SocketAddr,
    conns: usize,
    secs: f64,
    warmup: f64,
    size: usize,
    prefix: Vec<u8>,
    hold: Option<f64>,
    pause: Duration,
    server_pid: Option<u32>,
}

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
    Ok(Some(config))
}

/// One client connection and where it is in its current round trip.
struct Conn {
    stream: TcpStream,
    message: Vec<u8>,
    expected: Vec<u8>,
    received: usize,
    sent: usize,
    started: Instant,
}

impl Conn {
    /// Write as much of the message as the socket takes.
    fn send(&mut self) -> io::Result<()> {
        while self.sent < self.message.len() {
            match self.stream.write(&self.message[self.sent..]) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Read what has arrived; `Ok(true)` when the whole echo is in and correct.
    fn receive(&mut self, buffer: &mut [u8]) -> io::Result<bool> {
        loop {
            match self.stream.read(buffer) {
                Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    let end = self.received + n;
                    if end > self.expected.len() || buffer[..n] != self.expected[self.received..end]
                    {
                        return Err(io::Error::new(
                            ErrorKind::InvalidData,
                            "echo differs from what was sent",
                        ));
                    }
                    self.received = end;
                    if end == self.expected.len() {
                        return Ok(true);
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Start the next round trip, with a message different from the last.
    fn restart(&mut self, n: usize, prefix: &[u8]) -> io::Result<()> {
        self.message.rotate_left(1);
        self.message[0] = b'0' + (n % 10) as u8;
        self.expected.clear();
        self.expected.extend_from_slice(prefix);
        self.expected.extend_from_slice(&self.message);
        self.received = 0;
        self.sent = 0;
        self.started = Instant::now();
        self.send()
    }
}

/// With `--server-pid`, how many connections may be ahead of the server's `accept`s.
/// Servers listen with backlogs of 100 (asyncio) to 1024 (mio, tokio); connecting faster
/// than the server accepts overflows the backlog, and the kernel then drops the SYN, which
/// the client only resends a second later: thousands of connections would take minutes.
const PACE: usize = 64;

fn connect_all(config: &Config, poll: &Poll) -> io::Result<Vec<Conn>> {
    let mut conns = Vec::with_capacity(config.conns);
    let server_fds = match config.server_pid {
        Some(pid) => Some((pid, loadgen::procstat::open_fds(pid)?)),
        None => None,
    };
    for i in 0..config.conns {
        if let (Some((pid, before)), true) = (server_fds, i > 0 && i % PACE == 0) {
            // Let the server accept what is queued (for at most 10 s, then go on anyway).
            let give_up = Instant::now() + Duration::from_secs(10);
            while loadgen::procstat::open_fds(pid)? < before + i && Instant::now() < give_up {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        let std_stream =
            std::net::TcpStream::connect_timeout(&config.addr, Duration::from_secs(10))?;
        std_stream.set_nodelay(true)?;
        std_stream.set_nonblocking(true)?;
        let mut stream = TcpStream::from_std(std_stream);
        poll.registry().register(
            &mut stream,
            Token(i),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        let message = loadgen::client::message(i, 0, config.size);
        conns.push(Conn {
            stream,
            expected: Vec::new(),
            message,
            received: 0,
            sent: 0,
            started: Instant::now(),
        });
    }
    Ok(conns)
}

fn hold(config: &Config, seconds: f64) -> io::Result<String> {
    let poll = Poll::new()?;
    let Some(pid) = config.server_pid else {
        let conns = connect_all(config, &poll)?;
        std::thread::sleep(Duration::from_secs_f64(seconds));
        return Ok(format!(
            "{{\"mode\":\"hold\",\"addr\":\"{}\",\"conns\":{},\"held_secs\":{seconds}}}",
            config.addr,
            conns.len()
        ));
    };
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let rss_before = loadgen::procstat::rss_kib(pid)?;
    let fds_before = loadgen::procstat::open_fds(pid)?;
    let conns = connect_all(config, &poll)?;
    // Connected is not accepted: wait until the server holds a descriptor for every
    // connection, then give it a moment to finish setting each one up.
    let mut fds_held = loadgen::procstat::open_fds(pid)?;
    while fds_held < fds_before + conns.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        fds_held = loadgen::procstat::open_fds(pid)?;
    }
    let all_accepted = fds_held >= fds_before + conns.len();
    std::thread::sleep(
        Duration::from_millis(500).min(deadline.saturating_duration_since(Instant::now())),
    );
    let rss_held = loadgen::procstat::rss_kib(pid)?;
    let per_conn = (rss_held as f64 - rss_before as f64) * 1024.0 / conns.len() as f64;
    Ok(format!(
        "{{\"mode\":\"hold\",\"addr\":\"{}\",\"conns\":{},\"server_pid\":{pid},\
         \"all_accepted\":{all_accepted},\"server_fds_before\":{fds_before},\
         \"server_fds_held\":{fds_held},\"rss_before_kib\":{rss_before},\
         \"rss_held_kib\":{rss_held},\"rss_per_conn_bytes\":{per_conn:.0}}}",
        config.addr,
        conns.len()
    ))
}

fn run(config: &Config) -> io::Result<String> {
    let mut poll = Poll::new()?;
    let mut conns = connect_all(config, &poll)?;
    let begin = Instant::now();
    let measure_from = begin + Duration::from_secs_f64(config.warmup);
    let end = measure_from + Duration::from_secs_f64(config.secs);
    let mut latencies: Vec<u32> = Vec::new();
    let mut round_trips = 0usize;
    for conn in &mut conns {
        conn.restart(0, &config.prefix)?;
    }
    let mut events = Events::with_capacity(1024);
    let mut buffer = vec![0; 64 * 1024];
    // Connections pausing between round trips (`--pause`), with when to resume each.
    let mut paused: Vec<(Instant, usize)> = Vec::new();
    // The server's CPU time when the measured window opened (with `--server-pid`).
    let mut server_cpu_start: Option<u64> = None;
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if let (Some(pid), None, true) = (config.server_pid, server_cpu_start, now >= measure_from)
        {
            server_cpu_start = Some(loadgen::procstat::cpu_ns(pid)?);
        }
        let mut i = 0;
        while i < paused.len() {
            if paused[i].0 <= now {
                let (_, index) = paused.swap_remove(i);
                round_trips += 1;
                conns[index].restart(round_trips, &config.prefix)?;
            } else {
                i += 1;
            }
        }
        let mut wake = paused
            .iter()
            .map(|(at, _)| *at)
            .min()
            .unwrap_or(end)
            .min(end);
        if config.server_pid.is_some() && server_cpu_start.is_none() {
            wake = wake.min(measure_from);
        }
        poll.poll(&mut events, Some(wake.saturating_duration_since(now)))?;
        for event in &events {
            let conn = &mut conns[event.token().0];
            if event.is_writable() {
                conn.send()?;
            }
            if event.is_readable() {
                // mio is edge-triggered: read until WouldBlock, and start the next round
                // trip at once, so no readiness is left unconsumed.
                while conn.receive(&mut buffer)? {
                    let done = Instant::now();
                    if done >= measure_from && done < end {
                        let micros = (done - conn.started).as_micros();
                        latencies.push(u32::try_from(micros).unwrap_or(u32::MAX));
                    }
                    if !config.pause.is_zero() {
                        paused.push((done + config.pause, event.token().0));
                        break;
                    }
                    round_trips += 1;
                    conn.restart(round_trips, &config.prefix)?;
                }
            }
        }
    }
    let server = match (config.server_pid, server_cpu_start) {
        (Some(pid), Some(start)) => {
            let used = loadgen::procstat::cpu_ns(pid)?.saturating_sub(start);
            let per_msg = used as f64 / 1000.0 / latencies.len().max(1) as f64;
            format!(
                ",\"server_pid\":{pid},\"server_cpu_ns\":{used},\"server_cpu_us_per_msg\":{per_msg:.3}"
            )
        }
        _ => String::new(),
    };
    latencies.sort_unstable();
    let pct = |p: f64| -> u32 {
        if latencies.is_empty() {
            return 0;
        }
        let rank = ((p / 100.0) * latencies.len() as f64).ceil() as usize;
        latencies[rank.clamp(1, latencies.len()) - 1]
    };
    let measured = latencies.len();
    Ok(format!(
        "{{\"mode\":\"echo\",\"addr\":\"{}\",\"conns\":{},\"size\":{},\"secs\":{},\"warmup\":{},\
         \"pause_ms\":{},\"messages\":{measured},\"msgs_per_sec\":{:.1},\"p50_us\":{},\"p99_us\":{},\"max_us\":{}{server}}}",
        config.addr,
        config.conns,
        config.size,
        config.secs,
        config.warmup,
        config.pause.as_millis(),
        measured as f64 / config.secs.max(f64::MIN_POSITIVE),
        pct(50.0),
        pct(99.0),
        latencies.last().copied().unwrap_or(0),
    ))
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
        Some(seconds) => hold(&config, seconds),
        None => run(&config),
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
