//! The echo scenarios every stage's echo test runs, written once.

use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::client;

/// Run an echo server on its own thread while `clients` talks to it, then stop it.
///
/// `server` gets a listener on a free 127.0.0.1 port and a stop flag; it serves until the
/// flag is set, then returns what it printed. Every stage's server checks the flag after
/// each accepted connection, so stopping is: set the flag, connect once more ([`knock`]).
/// `clients` gets the address and returns how many connections it opened. Returns the
/// server's output and the number of connections it saw, the knock included.
///
/// [`knock`]: client::knock
pub fn with_server(
    server: impl FnOnce(TcpListener, Arc<AtomicBool>) -> String + Send + 'static,
    clients: impl FnOnce(SocketAddr) -> usize,
) -> (String, usize) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
    with_server_on(listener, server, clients)
}

/// [`with_server`] on a listener of the caller's, set up before any client connects (say,
/// with small buffers, which the sockets it accepts inherit).
pub fn with_server_on(
    listener: TcpListener,
    server: impl FnOnce(TcpListener, Arc<AtomicBool>) -> String + Send + 'static,
    clients: impl FnOnce(SocketAddr) -> usize,
) -> (String, usize) {
    listener
        .set_nonblocking(true)
        .expect("a non-blocking listener");
    let addr = listener.local_addr().expect("the listener's address");
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let running = thread::spawn(move || server(listener, flag));
    let opened = clients(addr);
    stop.store(true, Ordering::Relaxed);
    client::knock(addr).expect("the server still listens");
    (
        running.join().expect("the server thread panicked"),
        opened + 1,
    )
}

/// Several clients at once, a reset and a half-close:
///
/// 1. a client that exchanges one message, then resets the connection (RST);
/// 2. `clients` clients at once, each holding its connection through five round trips with
///    its own messages;
/// 3. a client that sends, half-closes, and must still get its whole reply.
///
/// `prefix` is what the server puts before each echo (`b"Got:"`, or `b""` for `--plain`).
/// Returns how many connections it opened, each of which the server should report closed.
pub fn several_clients_reset_and_half_close(
    addr: SocketAddr,
    prefix: &'static [u8],
    clients: usize,
) -> io::Result<usize> {
    let mut rude = client::connect(addr)?;
    client::round_trip(&mut rude, prefix, b"hello")?;
    client::reset(rude)?;

    let handles: Vec<_> = (0..clients)
        .map(|c| {
            thread::spawn(move || -> io::Result<()> {
                let mut stream = client::connect(addr)?;
                for n in 0..5 {
                    client::round_trip(&mut stream, prefix, &client::message(c, n, 40))?;
                }
                Ok(())
            })
        })
        .collect();
    for handle in handles {
        handle
            .join()
            .map_err(|_| io::Error::other("a client thread panicked"))??;
    }

    let reply = client::send_and_half_close(client::connect(addr)?, b"last words")?;
    if reply != [prefix, b"last words"].concat() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "half-closed client got {:?}",
                String::from_utf8_lossy(&reply)
            ),
        ));
    }
    Ok(clients + 2)
}

/// How many `Connection closed` lines a server transcript has.
pub fn closed_count(transcript: &str) -> usize {
    transcript
        .lines()
        .filter(|l| l.ends_with("| Connection closed"))
        .count()
}

/// Echo one `size`-byte message (use `--plain`): one thread writes it while this one reads
/// the echo back and checks every byte, so neither side can deadlock on full buffers. A
/// message of several MiB makes the server's writes partial.
pub fn big_message(addr: SocketAddr, size: usize) -> io::Result<()> {
    use std::io::{Read, Write};
    let stream = client::connect(addr)?;
    let mut writer = stream.try_clone()?;
    let message: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    let expected = message.clone();
    let sending = thread::spawn(move || writer.write_all(&message));
    let mut reader = stream;
    let mut echoed = vec![0; size];
    reader.read_exact(&mut echoed)?;
    sending
        .join()
        .map_err(|_| io::Error::other("the writer thread panicked"))??;
    if echoed != expected {
        let at = echoed.iter().zip(&expected).position(|(a, b)| a != b);
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the echo differs from the message at byte {at:?}"),
        ));
    }
    Ok(())
}

/// A client that floods the server without reading the replies until the socket takes no
/// more, then resets the connection while the server is in the middle of answering.
pub fn reset_mid_stream(addr: SocketAddr) -> io::Result<()> {
    use std::io::Write;
    let mut stream = client::connect(addr)?;
    stream.set_nonblocking(true)?;
    let chunk = vec![b'z'; 64 * 1024];
    let mut sent = 0usize;
    // Bounded: at most 64 MiB, though the buffers fill long before that.
    while sent < 64 << 20 {
        match stream.write(&chunk) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) => return Err(e),
        }
    }
    client::reset(stream)
}

/// A client that sends and never reads (use `--plain`): it sends a stream of `(i % 251)`
/// bytes, without reading, until the server stops taking them (no progress for half a
/// second: every buffer between the two is full) or `limit` bytes are out. Then it reads
/// the whole echo back, checking every byte, half-closes, and reads to the end. Returns
/// how many bytes it got in before the buffers filled: the kernel's buffers plus what the
/// server holds for it.
pub fn never_reads_then_reads(stream: &mut TcpStream, limit: usize) -> io::Result<usize> {
    use std::io::{ErrorKind, Read, Write};
    let byte = |i: usize| (i % 251) as u8;
    let pattern: Vec<u8> = (0..251 * 256).map(byte).collect();
    stream.set_nonblocking(true)?;
    let (mut sent, mut last_progress) = (0, Instant::now());
    while sent < limit && last_progress.elapsed() < Duration::from_millis(500) {
        let at = sent % 251;
        match stream.write(&pattern[at..(at + (limit - sent)).min(pattern.len())]) {
            Ok(n) => (sent, last_progress) = (sent + n, Instant::now()),
            // Full: wait a little for the server to take some.
            Err(e) if e.kind() == ErrorKind::WouldBlock => thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(e),
        }
    }
    stream.set_nonblocking(false)?;
    stream.shutdown(Shutdown::Write)?;
    let mut echoed = Vec::with_capacity(sent);
    stream.read_to_end(&mut echoed)?;
    if echoed.len() != sent || echoed.iter().enumerate().any(|(i, &b)| b != byte(i)) {
        let at = echoed.iter().enumerate().position(|(i, &b)| b != byte(i));
        return Err(io::Error::new(
            ErrorKind::InvalidData,
            format!(
                "{sent} bytes sent, {} echoed, first difference at {at:?}",
                echoed.len()
            ),
        ));
    }
    Ok(sent)
}

/// `cycles` clients one after the other, each of which connects, sends a message,
/// half-closes, and waits for the whole echo and the server's close (use `--plain`):
/// every cycle is over only once the server has closed the connection, and so once it has
/// said `Connection closed`. Returns how many connections it opened.
pub fn connect_close_cycles(addr: SocketAddr, cycles: usize) -> io::Result<usize> {
    for n in 0..cycles {
        let message = client::message(n, 0, 24);
        let reply = client::send_and_half_close(client::connect(addr)?, &message)?;
        if reply != message {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("cycle {n}: got {:?}", String::from_utf8_lossy(&reply)),
            ));
        }
    }
    Ok(cycles)
}

/// One client, one round trip with a server in `--plain` mode; returns 1 connection.
pub fn one_plain_round_trip(addr: SocketAddr) -> usize {
    let mut stream = client::connect(addr).expect("the server accepts");
    client::round_trip(&mut stream, b"", b"plain bytes").expect("the bytes come back unchanged");
    1
}

/// Check what [`with_server`] returned: the server printed `Connection closed` once for
/// every connection made to it, the stop knock included. Hands the result back, for
/// further checks.
pub fn assert_all_closed((transcript, opened): (String, usize)) -> (String, usize) {
    assert_eq!(
        closed_count(&transcript),
        opened,
        "every connection must be reported closed once; the server printed:\n{transcript}"
    );
    (transcript, opened)
}
