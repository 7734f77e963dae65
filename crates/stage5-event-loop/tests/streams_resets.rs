//! Chapter 8's streams when clients reset (book chapter 8, "Streams"; asyncio's
//! `streams.py`, `StreamReaderProtocol.connection_lost` and `__del__`): a reset is how a
//! connection ends, so a `start_server` whose handler sees it in `read` logs nothing. On
//! loopback with the real clock, bounded by counts and a generous watchdog (the loop stops
//! after 30 s); nothing asserts a duration.

use std::cell::{Cell, RefCell};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::rc::Rc;
use std::thread;
use std::time::Duration;

use stage5::streams::DEFAULT_LIMIT;
use stage5::{Error, EventLoop, Level, start_server};

#[path = "support/poll_until.rs"]
mod poll_until;
use poll_until::poll_until;

const WATCHDOG: f64 = 30.0;

/// How many clients reset, one after the other.
const CLIENTS: usize = 50;

/// A client that sends a line, reads its echo back (so the server has accepted it and
/// waits in `read` again), then closes with linger 0: a reset, not an end of stream.
fn reset_after_one_echo(addr: SocketAddr) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream.write_all(b"hello\n").unwrap();
    let mut echo = [0; 6];
    stream.read_exact(&mut echo).unwrap();
    assert_eq!(&echo, b"hello\n");
    socket2::SockRef::from(&stream)
        .set_linger(Some(Duration::ZERO))
        .unwrap();
}

/// Before asyncio's `__del__` was retraced, each reset here logged "Future exception was
/// never retrieved" and "Connection reset by peer": `wait_closed`'s future, completed with
/// the reset, which a handler that met the reset in `read` never awaits.
#[test]
fn clients_that_reset_are_served_and_nothing_is_logged() {
    let lp = EventLoop::new();
    let logged = Rc::new(RefCell::new(Vec::new()));
    let log = logged.clone();
    lp.set_logger(move |_, level: Level, message: &str| {
        log.borrow_mut().push(format!("{level}: {message}"));
    });
    let (ended, resets) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    let (e, r) = (ended.clone(), resets.clone());
    let l = lp.clone();
    let handler = move |reader: stage5::StreamReader, writer: stage5::StreamWriter| {
        let (e, r) = (e.clone(), r.clone());
        async move {
            // The echo server's loop: read, write, drain, until the client leaves.
            let outcome = async {
                loop {
                    let data = reader.read(Some(1024)).await?;
                    if data.is_empty() {
                        return Ok::<(), Error>(());
                    }
                    writer.write(&data)?;
                    writer.drain().await?;
                }
            }
            .await;
            if let Err(Error::Io(error)) = &outcome
                && error.kind() == std::io::ErrorKind::ConnectionReset
            {
                r.set(r.get() + 1);
            }
            e.set(e.get() + 1);
            Ok(())
        }
    };
    let any_port: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let serving = lp
        .create_task(async move { start_server(&l, handler, any_port, DEFAULT_LIMIT).await })
        .unwrap();
    let server = lp.run_until_complete(&serving).unwrap();
    let addr = server.local_addr().unwrap();
    let clients = thread::spawn(move || (0..CLIENTS).for_each(|_| reset_after_one_echo(addr)));
    lp.call_later(WATCHDOG, EventLoop::stop).unwrap();
    let (e, l) = (ended.clone(), lp.clone());
    lp.call_soon(move |_| poll_until(&l, move || e.get() == CLIENTS))
        .unwrap();
    lp.run_forever().unwrap();
    clients.join().unwrap();
    server.close(&lp);
    // What the connections left behind goes now, and with it any report of theirs.
    drop(serving);
    lp.close().unwrap();
    assert_eq!(ended.get(), CLIENTS, "every handler ended");
    assert_eq!(resets.get(), CLIENTS, "each with the reset, in its `read`");
    assert_eq!(*logged.borrow(), Vec::<String>::new());
}
