//! The ring: io_uring's submission and completion queues, and the table of what the kernel
//! holds (book chapter 10, "Who owns the buffer"; asyncio's `IocpProactor`, its `_cache` of
//! overlapped operations, `_register` and `_poll`, in `windows_events.py`).
//!
//! This is the one module of the project that needs `unsafe`, and that is the chapter's
//! lesson: a submission hands the kernel a raw pointer into a buffer, and the kernel
//! writes there (or reads from there) *later*, whenever the operation completes. No
//! borrow can express "until the kernel says so", so the compiler cannot check it; this
//! module keeps it true by one rule, the ownership invariant:
//!
//! > Every pointer in a submitted entry points into heap memory owned by that operation's
//! > `InFlight` in `ops`, and an `InFlight` leaves `ops` only when the kernel's
//! > completion for it has been read (`reap`), or, if the ring is dropped, after every
//! > operation has completed (`Drop`), or else it is leaked, never freed.
//!
//! asyncio's IOCP proactor keeps the same rule in its `_cache`: the `OVERLAPPED` structure
//! and its buffer stay referenced until `GetQueuedCompletionStatus` returns them, even
//! for a cancelled future (`_poll` pops it then, and skips its callback), and `close`
//! waits for the cache to empty.
//!
//! Operations take their buffer by value ([`Op::Recv`], [`Op::Send`]) and [`Done`] hands it
//! back, as tokio-uring's and monoio's APIs do: the caller cannot touch it in between
//! because it does not have it.

#![allow(unsafe_code)] // the chapter's subject: the kernel holds the buffer (see above)

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use io_uring::types::{SubmitArgs, Timespec};
use io_uring::{IoUring, opcode, squeue};
use socket2::{SockAddr, SockAddrStorage};

mod op; // the operations, and the submission entry each makes
mod slab; // the table itself: slots found by the key, not a hash ("What it costs")
use op::entry_for;
pub use op::{Op, Peer};
use slab::Slab;
pub use slab::{Beside, Key};

/// The `user_data` of cancel requests: their own completions only say the request was
/// seen. No key is this: its slot would be the 4,294,967,295th.
const CANCEL: u64 = u64::MAX;

/// How many submissions the queue holds; more are submitted early to make room.
const ENTRIES: u32 = 256;

/// How many waits of [`CLOSE_PATIENCE`] a dropped ring gives the kernel before it leaks.
const DROP_ROUNDS: u32 = 10;

/// How long a close waits for the kernel between two complaints (asyncio's `msg_update`).
pub const CLOSE_PATIENCE: Duration = Duration::from_secs(1);

/// What the kernel holds: the operation with its memory, and its socket, kept open so
/// that its number is not reused before the kernel has it.
struct InFlight {
    op: Op,
    _socket: Option<Rc<dyn AsRawFd>>,
    cancelled: bool,
}

/// A completed operation, and what it owned, handed back.
#[derive(Debug)]
pub struct Done {
    /// Its number.
    pub key: Key,
    /// The kernel's answer: bytes moved, or the error (`ECANCELED` once cancelled).
    pub result: io::Result<u32>,
    /// The operation, its buffer in it.
    pub op: Op,
    /// For an accept that succeeded: the new socket, and the peer's address.
    pub accepted: Option<(TcpStream, Option<SocketAddr>)>,
}

/// What the ring has done so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RingStats {
    /// `io_uring_enter` calls: one per wait.
    pub enters: u64,
    /// Operations submitted (cancel requests not counted).
    pub submitted: u64,
    /// Their completions read.
    pub completed: u64,
    /// Cancel requests submitted.
    pub cancels: u64,
}

/// io_uring and the table of its operations in flight.
pub struct Ring {
    uring: IoUring,
    ops: Slab<InFlight>,
    stats: RingStats,
}

impl Ring {
    /// A ring, or the kernel's refusal (`ENOSYS`: too old; `EPERM`: `io_uring_disabled`
    /// or a seccomp filter). A kernel without timed waits (before 5.11) is refused too.
    pub fn new() -> io::Result<Ring> {
        let uring = IoUring::new(ENTRIES)?;
        if !uring.params().is_feature_ext_arg() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "io_uring without timed waits (IORING_FEAT_EXT_ARG, Linux 5.11)",
            ));
        }
        Ok(Ring {
            uring,
            ops: Slab::default(),
            stats: RingStats::default(),
        })
    }

    // ANCHOR: submit
    /// Queue `op` on `fd` (submitted by the next [`enter`](Ring::enter)). The table owns
    /// the operation's memory from now until its completion is reaped.
    pub fn submit(
        &mut self,
        fd: RawFd,
        socket: Option<Rc<dyn AsRawFd>>,
        op: Op,
    ) -> io::Result<Key> {
        let flight = InFlight {
            op,
            _socket: socket,
            cancelled: false,
        };
        // Into the table first: the entry's pointers are taken from where it will stay.
        let (key, flight) = self.ops.insert(flight);
        let entry = entry_for(fd, &mut flight.op).user_data(key.user_data());
        if let Err(error) = self.push(&entry) {
            self.ops.remove(key); // the kernel never saw it: the memory is ours again
            return Err(error);
        }
        self.stats.submitted += 1;
        Ok(key)
    }
    // ANCHOR_END: submit

    // ANCHOR: cancel
    /// Ask the kernel to cancel `key`. The operation stays in the table, its buffer with
    /// it, until its completion arrives (`ECANCELED`, or its result if it won the race),
    /// as a cancelled overlapped stays in asyncio's `_cache` until `_poll` pops it. False
    /// if `key` is not in flight or already cancelled.
    pub fn cancel(&mut self, key: Key) -> io::Result<bool> {
        match self.ops.get_mut(key) {
            Some(flight) if !flight.cancelled => flight.cancelled = true,
            _ => return Ok(false), // completed already, or asked once
        }
        let entry = opcode::AsyncCancel::new(key.user_data())
            .build()
            .user_data(CANCEL);
        self.push(&entry)?;
        self.stats.cancels += 1;
        Ok(true)
    }
    // ANCHOR_END: cancel

    /// Put `entry` in the submission queue, submitting what is there first if it is full.
    fn push(&mut self, entry: &squeue::Entry) -> io::Result<()> {
        if self.uring.submission().is_full() {
            self.uring.submit()?;
        }
        // SAFETY: every pointer in `entry` points into memory owned by an `InFlight` in
        // `self.ops` (a `Vec`'s heap buffer or a `Box`, which do not move when the table
        // does), and that `InFlight` stays there until the kernel's completion for it is
        // reaped, or the ring's drop has waited for it (the module's invariant). A cancel
        // request holds no pointer.
        unsafe { self.uring.submission().push(entry) }
            .map_err(|_| io::Error::other("io_uring submission queue full"))
    }

    // ANCHOR: enter
    /// Submit what is queued and wait at most `timeout` (`None`: without limit) for one
    /// completion, in one `io_uring_enter`. Timing out or a signal is no error.
    pub fn enter(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        self.stats.enters += 1;
        let entered = match timeout {
            Some(Duration::ZERO) => self.uring.submit(),
            Some(timeout) => {
                let ts = Timespec::from(timeout);
                let args = SubmitArgs::new().timespec(&ts);
                self.uring.submitter().submit_with_args(1, &args)
            }
            None => self.uring.submit_and_wait(1),
        };
        match entered {
            Ok(_) => Ok(()),
            // The timeout passed (ETIME), a signal came (EINTR), the completion queue is
            // full (EBUSY): no error, the caller reaps what there is.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME | libc::EINTR | libc::EBUSY)
                ) =>
            {
                Ok(())
            }
            // The ring itself failed: the loop reports it.
            Err(e) => Err(e),
        }
    }
    // ANCHOR_END: enter

    // ANCHOR: reap
    /// Move every completion to `out`, each with what its operation owned: only now does
    /// the memory leave the table.
    pub fn reap(&mut self, out: &mut Vec<Done>) {
        // Read in place: the queue and the table are two fields, borrowed side by side.
        for cqe in self.uring.completion() {
            let (data, result) = (cqe.user_data(), cqe.result());
            if data == CANCEL {
                continue; // a cancel request's own answer: its operation answers for itself
            }
            let key = Key::from_user_data(data);
            let Some(mut flight) = self.ops.remove(key) else {
                continue; // (no operation has another number)
            };
            self.stats.completed += 1;
            let result = u32::try_from(result).map_err(|_| io::Error::from_raw_os_error(-result));
            let accepted = match (&mut flight.op, &result) {
                // SAFETY: a successful accept's result is a new descriptor the kernel just
                // opened for this operation; nothing else owns it. The kernel wrote the
                // peer's address and its length into `peer`, which it no longer holds.
                (Op::Accept { peer }, Ok(fd)) => Some(unsafe {
                    let storage = std::mem::replace(&mut peer.storage, SockAddrStorage::zeroed());
                    let addr = SockAddr::new(storage, peer.len);
                    (TcpStream::from_raw_fd(*fd as RawFd), addr.as_socket())
                }),
                _ => None,
            };
            out.push(Done {
                key,
                result,
                op: flight.op,
                accepted,
            });
        }
    }
    // ANCHOR_END: reap

    /// How many operations the kernel holds.
    pub fn in_flight(&self) -> usize {
        self.ops.len()
    }

    /// True if the kernel holds `key`.
    pub fn holds(&self, key: Key) -> bool {
        self.ops.contains(key)
    }

    /// Every operation in flight, for a close to cancel.
    pub fn keys(&self) -> Vec<Key> {
        self.ops.keys()
    }

    /// The counters so far.
    pub fn stats(&self) -> RingStats {
        self.stats
    }
}

// ANCHOR: drop
impl Drop for Ring {
    /// The invariant's last line: the kernel may still write into what the table owns,
    /// so cancel everything and wait for every answer before the memory goes. If the
    /// ring fails meanwhile, leak what is left rather than free it under the kernel.
    fn drop(&mut self) {
        for key in self.keys() {
            if self.cancel(key).is_err() {
                break; // the ring is failing: the wait below fails too, and leaks
            }
        }
        let mut done = Vec::new();
        let mut rounds = 0;
        while !self.ops.is_empty() {
            rounds += 1;
            if rounds > DROP_ROUNDS || self.enter(Some(CLOSE_PATIENCE)).is_err() {
                std::mem::forget(self.ops.take_all());
                return;
            }
            self.reap(&mut done);
            done.clear();
        }
    }
}
// ANCHOR_END: drop

#[cfg(test)]
mod tests;
