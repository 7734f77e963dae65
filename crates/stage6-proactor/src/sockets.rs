//! The socket operations as completions (book chapter 10, "Submit, then wait"; asyncio's
//! `BaseProactorEventLoop.sock_recv`, `sock_recv_into`, `sock_sendall`, `sock_accept`,
//! `sock_connect`, which call `IocpProactor.recv`, `send`, `accept`, `connect`).
//!
//! Stage 5's `sock_recv` tries the read and waits for readiness only if the socket says
//! `EWOULDBLOCK`. Here nothing is tried: the operation goes to the kernel with its buffer,
//! and the future returned is resolved by its completion. The buffer is passed in by value
//! and handed back in the result; the socket is held (an `Rc`) until the kernel answers,
//! so its number cannot be closed and reused under the operation.
//!
//! `sock_sendall` is asyncio's loop on `send`: a completion that sent less than the rest
//! submits the rest, under a new number, for the same future.

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::rc::Rc;

use socket2::SockAddr;
use stage5::Error;

use crate::event_loop::ProactorLoop;
use crate::op::{Continue, Op, Record, finish};
use crate::proactor::{Then, Uring};
use crate::ring::{Done, Op as RingOp, Peer};

/// An I/O error as the loop reports it; `ECANCELED` as a cancel.
fn error(error: io::Error) -> Error {
    match error.raw_os_error() {
        Some(libc::ECANCELED) => Error::Cancelled,
        _ => Error::Io(Rc::new(error)),
    }
}

impl ProactorLoop {
    /// Submit `op` on `socket`; `finish_with` makes the result of its completion.
    fn submit<T: 'static>(
        &self,
        socket: Rc<dyn AsRawFd>,
        op: RingOp,
        finish_with: fn(Done) -> Result<T, Error>,
    ) -> Op<T> {
        let (future, record) = Op::new(self, self.uring(), socket, Continue::Finish(finish_with));
        submit_under(self.uring(), &record, op);
        future
    }

    // ANCHOR: sock_recv
    /// Receive at most `n` bytes (asyncio's `sock_recv`): a buffer of `n` goes to the
    /// kernel, and comes back cut to what arrived; empty at the end of the stream.
    pub fn sock_recv<S: AsRawFd + 'static>(&self, sock: &Rc<S>, n: usize) -> Op<Vec<u8>> {
        let op = RingOp::Recv { buf: vec![0; n] };
        self.submit(sock.clone(), op, |done| match (done.result, done.op) {
            // Received: the buffer back, cut to what came.
            (Ok(got), RingOp::Recv { mut buf }) => {
                buf.truncate(got as usize);
                Ok(buf)
            }
            // Failed, cancelled (ECANCELED), or (never) another operation's answer.
            (Err(e), _) => Err(error(e)),
            (Ok(_), op) => Err(Error::msg(format!("recv answered as {op:?}"))),
        })
    }
    // ANCHOR_END: sock_recv

    /// Receive into `buf`, which is handed back with how much came (asyncio's
    /// `sock_recv_into`, with the buffer moved in and out instead of borrowed). On an
    /// error the buffer is dropped, once the kernel has given it back.
    pub fn sock_recv_into<S: AsRawFd + 'static>(
        &self,
        sock: &Rc<S>,
        buf: Vec<u8>,
    ) -> Op<(usize, Vec<u8>)> {
        self.submit(sock.clone(), RingOp::Recv { buf }, |done| {
            match (done.result, done.op) {
                // Received: how much, and the whole buffer back.
                (Ok(got), RingOp::Recv { buf }) => Ok((got as usize, buf)),
                // Failed or cancelled.
                (Err(e), _) => Err(error(e)),
                (Ok(_), op) => Err(Error::msg(format!("recv answered as {op:?}"))),
            }
        })
    }

    // ANCHOR: sock_sendall
    /// Send all of `buf` (asyncio's `sock_sendall`); the buffer is handed back when the
    /// last byte has gone, for the caller to use again.
    pub fn sock_sendall<S: AsRawFd + 'static>(&self, sock: &Rc<S>, buf: Vec<u8>) -> Op<Vec<u8>> {
        let (future, record) = Op::new(self, self.uring(), sock.clone(), Continue::Then(sent));
        send_rest(self.uring(), &record, buf, 0);
        future
    }
    // ANCHOR_END: sock_sendall

    /// Accept a connection (asyncio's `sock_accept`): the new socket is non-blocking and
    /// close-on-exec; the kernel writes the peer's address beside it.
    pub fn sock_accept(&self, listener: &Rc<TcpListener>) -> Op<(TcpStream, SocketAddr)> {
        let op = RingOp::Accept { peer: Peer::new() };
        self.submit(listener.clone(), op, |done| {
            match (done.result, done.accepted) {
                // A connection: its socket, and whom it is with (the kernel wrote the
                // address as it accepted: a peer that has reset since still has one).
                (Ok(_), Some((stream, Some(peer)))) => Ok((stream, peer)),
                (Ok(_), Some((_, None))) => Err(Error::msg("accept gave no address")),
                // Failed (EMFILE, ECONNABORTED...) or cancelled.
                (Err(e), _) => Err(error(e)),
                (Ok(_), None) => Err(Error::msg("accept answered without a socket")),
            }
        })
    }

    /// Connect `sock` to `addr` (asyncio's `sock_connect`).
    pub fn sock_connect<S: AsRawFd + 'static>(&self, sock: &Rc<S>, addr: SocketAddr) -> Op<()> {
        let op = RingOp::Connect {
            addr: Box::new(SockAddr::from(addr)),
        };
        // Connected, or refused, reset, cancelled.
        self.submit(sock.clone(), op, |done| {
            done.result.map(drop).map_err(error)
        })
    }
}

/// Submit `op` under `record`: its completion runs the record's continuation.
fn submit_under<T: 'static>(uring: &Rc<Uring>, record: &Rc<Record<T>>, op: RingOp) {
    let then: Then = record.clone();
    match uring.submit(record.socket.clone(), op, then) {
        Ok(submitted) => record.key.set(Some(submitted)),
        // Refused before the kernel saw it (the loop closed, the ring failed).
        Err(e) => finish(record, Err(error(e))),
    }
}

// ANCHOR: send_rest
/// Submit `buf[from..]`; its completion ([`sent`]) submits what is still left, for the
/// same future.
fn send_rest(uring: &Rc<Uring>, record: &Rc<Record<Vec<u8>>>, buf: Vec<u8>, from: usize) {
    if record.done() {
        return; // cancelled between two sends: the rest is not sent
    }
    submit_under(uring, record, RingOp::Send { buf, from });
}

/// A send completed: submit the rest, or hand the buffer back when nothing is left.
fn sent(uring: &Rc<Uring>, done: Done, record: &Rc<Record<Vec<u8>>>) {
    match (done.result, done.op) {
        // Sent some: the rest, or the buffer back when nothing is left.
        (Ok(sent), RingOp::Send { buf, from }) => {
            let from = from + sent as usize;
            if from >= buf.len() {
                finish(record, Ok(buf));
            } else {
                send_rest(uring, record, buf, from);
            }
        }
        // Failed (EPIPE, ECONNRESET) or cancelled.
        (Err(e), _) => finish(record, Err(error(e))),
        (Ok(_), op) => finish(record, Err(Error::msg(format!("send answered as {op:?}")))),
    }
}
// ANCHOR_END: send_rest
