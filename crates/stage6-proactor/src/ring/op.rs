//! The operations the ring submits, and the submission entry of each (book chapter 10,
//! "Who owns the buffer"; asyncio's `IocpProactor.recv`, `send`, `accept`, `connect`, each
//! of which fills an `OVERLAPPED` and hands it to Windows).
//!
//! An [`Op`] owns what the kernel will use: a receive's buffer, a send's bytes, a connect's
//! address (boxed, so that it does not move with the table). [`entry_for`] takes the
//! pointers out of it; the parent module's invariant keeps them valid.

use std::os::fd::RawFd;

use io_uring::types::Fd;
use io_uring::{opcode, squeue};
use socket2::{SockAddr, SockAddrStorage};

// ANCHOR: op
/// An operation and what it owns while the kernel has it.
#[derive(Debug)]
pub enum Op {
    /// `recv` into the whole of `buf` (its length, not its capacity).
    Recv {
        /// Filled by the kernel from the start; its length is how much to read.
        buf: Vec<u8>,
    },
    /// `send` of `buf[from..]` (`MSG_NOSIGNAL`: a reset peer is an error, not `SIGPIPE`).
    Send {
        /// Read by the kernel.
        buf: Vec<u8>,
        /// Where the bytes not sent yet begin.
        from: usize,
    },
    /// `accept4`, the new socket close-on-exec and non-blocking; the kernel writes the
    /// peer's address into `peer`.
    Accept {
        /// Written by the kernel.
        peer: Box<Peer>,
    },
    /// `connect` to `addr`, boxed so that its address does not move with the table.
    Connect {
        /// Read by the kernel.
        addr: Box<SockAddr>,
    },
    /// `poll` for readability (the loop's selector, epoll's own descriptor).
    PollIn,
}
// ANCHOR_END: op

impl Op {
    /// The operation's name, for the trace.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Recv { .. } => "recv",
            Op::Send { .. } => "send",
            Op::Accept { .. } => "accept",
            Op::Connect { .. } => "connect",
            Op::PollIn => "poll",
        }
    }
}

/// Where an accept's peer address goes: the storage and its length, both the kernel's to
/// write until the completion.
pub struct Peer {
    pub(super) storage: SockAddrStorage,
    pub(super) len: libc::socklen_t,
}

impl Peer {
    /// Room for any address.
    pub fn new() -> Box<Peer> {
        let storage = SockAddrStorage::zeroed();
        let len = storage.size_of();
        Box::new(Peer { storage, len })
    }
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer").field("len", &self.len).finish()
    }
}

/// The submission entry for `op` on `fd`, its pointers into `op`'s own memory.
pub(super) fn entry_for(fd: RawFd, op: &mut Op) -> squeue::Entry {
    let fd = Fd(fd);
    match op {
        Op::Recv { buf } => {
            let len = u32::try_from(buf.len()).unwrap_or(u32::MAX);
            opcode::Recv::new(fd, buf.as_mut_ptr(), len).build()
        }
        Op::Send { buf, from } => {
            let rest = &buf[(*from).min(buf.len())..];
            let len = u32::try_from(rest.len()).unwrap_or(u32::MAX);
            opcode::Send::new(fd, rest.as_ptr(), len)
                .flags(libc::MSG_NOSIGNAL)
                .build()
        }
        Op::Accept { peer } => {
            let addr = (&raw mut peer.storage).cast::<libc::sockaddr>();
            opcode::Accept::new(fd, addr, &raw mut peer.len)
                .flags(libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK)
                .build()
        }
        Op::Connect { addr } => {
            opcode::Connect::new(fd, addr.as_ptr().cast::<libc::sockaddr>(), addr.len()).build()
        }
        Op::PollIn => opcode::PollAdd::new(fd, libc::POLLIN as u32).build(),
    }
}

impl std::fmt::Debug for super::Ring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("in_flight", &self.in_flight())
            .field("stats", &self.stats())
            .finish()
    }
}
