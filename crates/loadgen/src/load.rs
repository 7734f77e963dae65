//! The load generator's two modes (the `loadgen` binary parses the flags and calls one):
//! echo round trips on many connections, measured ([`run`]), and idle connections held
//! open while the server's memory is read ([`hold`]).
//!
//! One thread drives every connection through a `mio::Poll`, so a thousand connections do
//! not need a thousand threads, and the client's own overhead stays small beside the
//! server's. Everything is bounded: it stops by itself after the given time.

use std::io::{self, ErrorKind, Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

/// What to do: the flags, parsed.
#[derive(Debug, Clone)]
pub struct Config {
    /// The server's address (`--addr`).
    pub addr: SocketAddr,
    /// How many connections (`--conns`).
    pub conns: usize,
    /// Measured seconds (`--secs`).
    pub secs: f64,
    /// Seconds before measuring starts (`--warmup`).
    pub warmup: f64,
    /// Message size in bytes (`--size`).
    pub size: usize,
    /// What the server puts before each echo (`--prefix`).
    pub prefix: Vec<u8>,
    /// Hold the connections idle this many seconds instead of echoing (`--hold`).
    pub hold: Option<f64>,
    /// The wait between a reply and the next message (`--pause`).
    pub pause: Duration,
    /// The server's process, to read its CPU time and memory (`--server-pid`).
    pub server_pid: Option<u32>,
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
/// Backlogs are 100 (asyncio), 128 (std, mio, tokio) or 1024 (our servers); connecting faster
/// than the server accepts overflows it, and the kernel then drops the SYN, which the client
/// only resends a second later: thousands of connections would take minutes.
const PACE: usize = 64;

fn connect_all(config: &Config, poll: &Poll) -> io::Result<Vec<Conn>> {
    let mut conns = Vec::with_capacity(config.conns);
    let server_fds = match config.server_pid {
        Some(pid) => Some((pid, crate::procstat::open_fds(pid)?)),
        None => None,
    };
    for i in 0..config.conns {
        if let (Some((pid, before)), true) = (server_fds, i > 0 && i % PACE == 0) {
            // Let the server accept what is queued (for at most 10 s, then go on anyway).
            let give_up = Instant::now() + Duration::from_secs(10);
            while crate::procstat::open_fds(pid)? < before + i && Instant::now() < give_up {
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
        let message = crate::client::message(i, 0, config.size);
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

/// `--hold`: open the connections, keep them idle, report the server's memory (one JSON
/// line).
pub fn hold(config: &Config, seconds: f64) -> io::Result<String> {
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
    let rss_before = crate::procstat::rss_kib(pid)?;
    let fds_before = crate::procstat::open_fds(pid)?;
    let conns = connect_all(config, &poll)?;
    // Connected is not accepted: wait until the server holds a descriptor for every
    // connection, then give it a moment to finish setting each one up.
    let mut fds_held = crate::procstat::open_fds(pid)?;
    while fds_held < fds_before + conns.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        fds_held = crate::procstat::open_fds(pid)?;
    }
    let all_accepted = fds_held >= fds_before + conns.len();
    std::thread::sleep(
        Duration::from_millis(500).min(deadline.saturating_duration_since(Instant::now())),
    );
    let rss_held = crate::procstat::rss_kib(pid)?;
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

/// Echo mode: round trips on every connection for the warm-up and the measured window;
/// report throughput and latency (one JSON line).
pub fn run(config: &Config) -> io::Result<String> {
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
    // The server's and our own CPU time when the measured window opened (with
    // `--server-pid`): ours says whether the client, not the server, is the limit.
    let mut server_cpu_start: Option<u64> = None;
    let mut client_cpu_start = 0;
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if let (Some(pid), None, true) = (config.server_pid, server_cpu_start, now >= measure_from)
        {
            server_cpu_start = Some(crate::procstat::cpu_ns(pid)?);
            client_cpu_start = crate::procstat::cpu_ns(std::process::id())?;
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
            let used = crate::procstat::cpu_ns(pid)?.saturating_sub(start);
            let ours = crate::procstat::cpu_ns(std::process::id())?;
            let ours = ours.saturating_sub(client_cpu_start);
            let msgs = latencies.len().max(1) as f64;
            let (per_msg, ours_per_msg) =
                (used as f64 / 1000.0 / msgs, ours as f64 / 1000.0 / msgs);
            format!(
                ",\"server_pid\":{pid},\"server_cpu_ns\":{used},\"server_cpu_us_per_msg\":{per_msg:.3},\
                 \"client_cpu_ns\":{ours},\"client_cpu_us_per_msg\":{ours_per_msg:.3}"
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
