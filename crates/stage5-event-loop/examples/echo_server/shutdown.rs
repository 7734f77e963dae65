//! The echo server's graceful shutdown (book chapter 7, "The echo server"; asyncio's
//! `Server.close` and `StreamWriter.close`, and the talk's servers, which had none).
//!
//! On SIGINT, SIGTERM or SIGHUP the server stops accepting and asks every connection to
//! stop reading. A connection waiting for data stops at once; one sending an answer stops
//! once the answer is out. Each then half-closes and drains what its client still sends
//! until the client closes its side ([`close_gracefully`]), so that no client is reset
//! while the end of its echo is still on its way. The grace period (`--grace`, 5 s by
//! default) bounds it all: what is still open then is closed as it is. When the last
//! connection is closed the server prints how many clients it served and stops the loop.
//!
//! A second SIGINT or SIGTERM during the grace period cuts what is still open at once
//! ([`EchoServer::cut`]), as servers people know do (a second Ctrl-C means "now").
//!
//! What changed since stage 4: stage 4's server ran until killed; the first stage 5
//! server cancelled every connection's task, which could cut an answer in half and close
//! sockets with unread input (a reset).

use std::io;
use std::net::{Shutdown, TcpStream};
use std::rc::Rc;

use stage5::{EventLoop, say};

use super::{CHUNK, Connection, EchoServer, Summary};

// ANCHOR: close_gracefully
/// The server is shutting down, and everything read from this client has been sent back.
/// Half-close (a FIN: the client sees the end of its echo), then read and drop what the
/// client still sends until it closes its side too: closing a socket with unread input
/// makes the kernel send a reset, and a reset can destroy the end of the echo before the
/// client has read it. The shutdown's grace period bounds the wait.
pub async fn close_gracefully(lp: &EventLoop, sock: &TcpStream) -> io::Result<()> {
    sock.shutdown(Shutdown::Write)?;
    let mut sink = vec![0; CHUNK];
    while lp.sock_recv_into(sock, &mut sink).await? > 0 {}
    Ok(())
}
// ANCHOR_END: close_gracefully

impl EchoServer {
    // ANCHOR: shutdown
    /// Shut down gracefully: stop accepting, ask every connection to stop reading (those
    /// waiting for data stop at once, those sending stop once their answer is out, then
    /// each closes gracefully), and give them `grace` seconds. When the last is closed,
    /// print how many clients were served and stop the loop.
    pub fn shutdown(self: &Rc<Self>, lp: &EventLoop) {
        if self.stopping.replace(true) {
            return;
        }
        if let Some(server) = self.server.borrow().as_ref() {
            if let Some(fd) = server.fd() {
                scaffold::trace!("shutdown: close the listener (fd {fd})");
            }
            server.close(lp);
        }
        for connection in self.open() {
            connection.stop();
        }
        if self.connections.borrow().is_empty() {
            return self.finish(lp);
        }
        let me = Rc::downgrade(self);
        let deadline = lp.call_later(self.settings.grace, move |_| {
            if let Some(me) = me.upgrade() {
                me.grace_over();
            }
        });
        // Only a closed loop refuses a timer, and a closed loop runs nothing more anyway.
        *self.deadline.borrow_mut() = deadline.ok();
    }
    // ANCHOR_END: shutdown

    /// The open connections (a copy: closing one changes the table).
    fn open(&self) -> Vec<Connection> {
        self.connections.borrow().values().cloned().collect()
    }

    /// The grace period is over: close what is still open as it is (cancel the tasks,
    /// whose futures are dropped and sockets closed; abort the transports).
    fn grace_over(&self) {
        let open = self.open();
        let (grace, n) = (self.settings.grace, open.len());
        let connections = if n == 1 { "connection" } else { "connections" };
        scaffold::warn!("shutdown: {n} {connections} still open after {grace} s: closed");
        for connection in open {
            connection.cut();
        }
    }

    // ANCHOR: cut
    /// A second SIGINT or SIGTERM during the shutdown: the user will not wait for the
    /// grace period. Close what is open at once and say how many; the program then exits
    /// with 1 (see `loops::run`). Before a shutdown, or again, it does nothing.
    pub fn cut(&self) {
        if !self.stopping.get() || self.cut.get() > 0 || self.connections.borrow().is_empty() {
            return;
        }
        let open = self.open();
        let n = open.len();
        let connections = if n == 1 { "connection" } else { "connections" };
        scaffold::warn!(
            "{}shutdown: second signal: {n} {connections} cut",
            self.settings.name
        );
        self.cut.set(n);
        for connection in open {
            connection.cut();
        }
    }
    // ANCHOR_END: cut

    /// How many connections are open.
    pub fn open_count(&self) -> usize {
        self.connections.borrow().len()
    }

    /// A connection's task has ended; after a shutdown, the last one ends the server.
    pub fn closed(&self, lp: &EventLoop, id: u64) {
        let mut connections = self.connections.borrow_mut();
        if connections.remove(&id).is_some() && connections.is_empty() && self.stopping.get() {
            drop(connections);
            self.finish(lp);
        }
    }

    /// Every connection is closed: say how many clients were served, and stop the loop.
    fn finish(&self, lp: &EventLoop) {
        if let Some(deadline) = self.deadline.take() {
            deadline.cancel();
        }
        let Summary {
            served,
            read,
            echoed,
            ..
        } = self.summary();
        scaffold::trace!("shutdown: {read} bytes read, {echoed} sent back");
        say!("{}clients served: {served}", self.settings.name);
        lp.stop();
    }
}
