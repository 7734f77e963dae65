//! `loadgen`: the echo load generator of the benchmarks (W5, W6) and of the polling-cost
//! measurements in chapters 1 and 4.
//!
//! It opens `--conns` connections to `--addr`, and on each one sends a `--size`-byte
//! message, waits for the whole echo (checking every byte), and sends the next, for
//! `--warmup` + `--secs` seconds; round trips finished during the warm-up are not counted.
//! With `--hold S` it instead opens the connections and keeps them idle for S seconds (to
//! measure a server's memory per idle connection). Either way it prints one JSON line.
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

fn connect_all(config: &Config, poll: &Poll) -> io::Result<Vec<Conn>> {
    let mut conns = Vec::with_capacity(config.conns);
    for i in 0..config.conns {
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
    let conns = connect_all(config, &poll)?;
    std::thread::sleep(Duration::from_secs_f64(seconds));
    Ok(format!(
        "{{\"mode\":\"hold\",\"addr\":\"{}\",\"conns\":{},\"held_secs\":{seconds}}}",
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
    loop {
        let now = Instant::now();
        if now >= end {
            break;
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
        let wake = paused
            .iter()
            .map(|(at, _)| *at)
            .min()
            .unwrap_or(end)
            .min(end);
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
         \"pause_ms\":{},\"messages\":{measured},\"msgs_per_sec\":{:.1},\"p50_us\":{},\"p99_us\":{},\"max_us\":{}}}",
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
