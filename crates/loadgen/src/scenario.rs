//! The echo scenarios every stage's echo test runs, written once.

use std::io;
use std::net::SocketAddr;
use std::thread;

use crate::client;

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
