//! `--api sock`: a task per connection on the proactor's socket operations (book chapter
//! 10, "The echo server on the proactor"; asyncio's `sock_recv_into` and `sock_sendall`
//! on a `ProactorEventLoop`).
//!
//! One buffer per connection goes back and forth between the task and the kernel: moved
//! into `sock_recv_into`, handed back filled, moved into `sock_sendall` (`--plain`: the
//! same bytes, no copy), handed back sent. A shutdown drops the pending receive, which
//! cancels it; a cancelled receive takes no bytes.

use std::io;
use std::net::{Shutdown, TcpStream};
use std::rc::Rc;

use scaffold::net::Reply;
use stage6::{Error, First, Future, ProactorLoop, first_of};

// ANCHOR: handler
/// How many bytes one receive asks for.
pub const CHUNK: usize = 64 * 1024;

/// Answer every chunk until the client leaves, or until `stop` is set.
pub async fn echo(
    lp: &ProactorLoop,
    sock: &Rc<TcpStream>,
    reply: Reply,
    stop: &Future<()>,
) -> Result<(), Error> {
    let mut buf = vec![0; CHUNK];
    let mut out = Vec::new();
    loop {
        // The stop request first: once it is made, no new data is read. The receive it
        // drops is cancelled, and the kernel's answer says it took nothing.
        let (n, mut got) = match first_of(stop.clone(), lp.sock_recv_into(sock, buf)).await {
            First::A(_stop) => return close_gracefully(lp, sock).await,
            First::B(received) => received?,
        };
        if n == 0 {
            return Ok(()); // the client closed its side
        }
        buf = match reply {
            // The bytes unchanged: the buffer itself goes to the kernel and comes back.
            Reply::Plain => {
                got.truncate(n);
                let mut sent = lp.sock_sendall(sock, got).await?;
                sent.resize(CHUNK, 0);
                sent
            }
            Reply::Got => {
                out.clear();
                reply.write(&got[..n], &mut out);
                out = lp.sock_sendall(sock, std::mem::take(&mut out)).await?;
                got
            }
        };
    }
}
// ANCHOR_END: handler

/// After a shutdown request: half-close, then read what the client still sends until it
/// closes its side, so that it gets no reset. The server's grace period bounds it.
async fn close_gracefully(lp: &ProactorLoop, sock: &Rc<TcpStream>) -> Result<(), Error> {
    match sock.shutdown(Shutdown::Write) {
        Ok(()) => {}
        // The client is gone already: nothing to drain.
        Err(e) if e.kind() == io::ErrorKind::NotConnected => return Ok(()),
        Err(e) => return Err(Error::Io(Rc::new(e))),
    }
    let mut buf = vec![0; CHUNK];
    loop {
        let (n, back) = lp.sock_recv_into(sock, buf).await?;
        if n == 0 {
            return Ok(());
        }
        buf = back;
    }
}
