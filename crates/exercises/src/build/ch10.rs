//! Build it 10.3: the completion dispatch (book chapter 10, "The proactor in step 3";
//! asyncio's `windows_events.py`: `IocpProactor._poll`, which takes each completion off
//! the port, finds its operation in `_cache` by its key, and sets the future waiting for
//! it). A build-it exercise: the skeleton below is given, and you write
//! [`MiniProactor::dispatch`].
//! `tests/build_ch10.rs` has four tasks receive on four Unix socket pairs whose peers
//! write from timers in another order than the receives were submitted, one receive time
//! out and a fifth receive on its socket after it, on stage 5's loop on the virtual
//! clock, once with your `MiniProactor` installed in its selector's place and once with
//! stage 6's, and compares what each task got and when.
//!
//! The rule, which the test checks: a completion belongs to the operation whose
//! `user_data` it carries, not to the oldest waiter. The kernel completes operations in
//! the order their data comes, not in the order they were submitted. A completion whose
//! future is done already (cancelled: a timeout fired) resolves nothing: its only news is
//! that the kernel let go of the buffer, which is dropped with it.
//!
//! What changed from chapter 7: there, a reader was called when its socket was *ready*, and
//! read. Here nobody reads: the bytes are in the buffer when the completion comes, and the
//! only question left is whose they are.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::rc::{Rc, Weak};
use std::time::Duration;

use stage5::{Error, EventLoop, Future, Proactor, Waited};
use stage6::ring::{Done, Key, Op, Ring};

/// How many waits of one second a closing proactor gives the kernel's answers.
const CLOSE_ROUNDS: u32 = 10;

/// A proactor that can receive: the ring, whose future waits for each operation, and the
/// poll of the selector that keeps stage 5's readiness waking the ring.
pub struct MiniProactor {
    me: Weak<MiniProactor>,
    ring: RefCell<Ring>,
    waiting: RefCell<HashMap<Key, Future<Vec<u8>>>>, // by the key the kernel hands back
    done: RefCell<Vec<Done>>,                        // what the last wait collected
    selector_poll: Cell<Option<Key>>,
}

impl MiniProactor {
    /// A proactor over `ring`, installed in `lp`'s selector's place.
    pub fn install(lp: &EventLoop, ring: Ring) -> Rc<MiniProactor> {
        let proactor = Rc::new_cyclic(|me| MiniProactor {
            me: me.clone(),
            ring: RefCell::new(ring),
            waiting: RefCell::new(HashMap::new()),
            done: RefCell::new(Vec::new()),
            selector_poll: Cell::new(None),
        });
        lp.set_proactor(Some(proactor.clone()));
        proactor
    }

    /// Receive at most `n` bytes on `sock` (asyncio's `IocpProactor.recv` and
    /// `_register`): the operation goes to the ring with a buffer of `n`, and the future
    /// returned is filed under its key. Cancelling the future asks the kernel to cancel
    /// the operation; the buffer stays the ring's until the kernel answers.
    pub fn recv(&self, lp: &EventLoop, sock: &Rc<UnixStream>, n: usize) -> Future<Vec<u8>> {
        let future = lp.create_future::<Vec<u8>>();
        let op = Op::Recv { buf: vec![0; n] };
        let submitted = self
            .ring
            .borrow_mut()
            .submit(sock.as_raw_fd(), Some(sock.clone()), op);
        match submitted {
            Ok(key) => {
                self.waiting.borrow_mut().insert(key, future.clone());
                let me = self.me.clone();
                future.add_done_callback(move |_, future| {
                    if future.cancelled()
                        && let Some(me) = me.upgrade()
                        && let Err(error) = me.ring.borrow_mut().cancel(key)
                    {
                        eprintln!("cancel failed: {error}");
                    }
                });
            }
            // The kernel never saw it: the future fails at once. It is new: setting it
            // cannot fail.
            Err(error) => drop(future.set_exception(Error::Io(Rc::new(error)))),
        }
        future
    }

    /// Operations the kernel holds, the poll of the selector not counted.
    pub fn in_flight(&self) -> usize {
        let polling = usize::from(self.selector_poll.get().is_some());
        self.ring.borrow().in_flight().saturating_sub(polling)
    }

    /// Submit what is queued, wait at most `timeout` once, and collect the completions;
    /// the selector's poll is taken out of them: true if it was there.
    fn wait_once(&self, timeout: Option<Duration>) -> io::Result<(usize, bool)> {
        let mut ring = self.ring.borrow_mut();
        ring.enter(timeout)?;
        let mut done = self.done.borrow_mut();
        let before = done.len();
        ring.reap(&mut done);
        let poll = self.selector_poll.get();
        let selector_ready = done.iter().any(|d| Some(d.key) == poll);
        done.retain(|d| Some(d.key) != poll);
        if selector_ready {
            self.selector_poll.set(None); // one-shot: submitted again at the next wait
        }
        Ok((done.len() - before, selector_ready))
    }
}

impl Proactor for MiniProactor {
    /// Step 3: the poll of the selector submitted if it is not, then one wait.
    fn wait(&self, selector: RawFd, timeout: Option<Duration>) -> io::Result<Waited> {
        if self.selector_poll.get().is_none() {
            let key = self.ring.borrow_mut().submit(selector, None, Op::PollIn)?;
            self.selector_poll.set(Some(key));
        }
        let (completed, selector_ready) = self.wait_once(timeout)?;
        Ok(Waited {
            completed,
            selector_ready,
        })
    }

    /// Build it 10.3: step 3's second half (asyncio's `_poll`, after the wait). Take every
    /// completion out of `self.done`, and for each, the future filed under its key
    /// (`done.key`, the operation's `user_data`) out of `self.waiting`. A future done
    /// already was cancelled: the completion only gives the buffer back, drop it. Else
    /// the kernel's answer (`done.result`) decides: `Ok(n)`, the buffer (in `done.op`, an
    /// `Op::Recv`) cut to `n` bytes is the future's result; `ECANCELED` (an `io::Error`
    /// whose `raw_os_error()` is `libc::ECANCELED`), the future is cancelled; another
    /// error is its exception (`Error::Io`). Hold no borrow of `self.waiting` or
    /// `self.done` while you set a result: the loop may run code that submits more.
    ///
    /// As shipped, it gives each completion to the oldest waiting future, as a queue of
    /// readers would, whichever operation the completion is for.
    fn dispatch(&self) {
        let done = std::mem::take(&mut *self.done.borrow_mut());
        for done in done {
            let oldest = self
                .waiting
                .borrow()
                .keys()
                .copied()
                .min_by_key(|key| key.user_data());
            let future = oldest.and_then(|key| self.waiting.borrow_mut().remove(&key));
            if let (Some(future), Ok(n), Op::Recv { mut buf }) = (future, done.result, done.op) {
                buf.truncate(n as usize);
                // A future done already refuses the result, and the buffer goes with it.
                let _ = future.set_result(buf);
            }
        }
    }

    fn busy(&self) -> bool {
        self.in_flight() > 0
    }

    /// asyncio's `IocpProactor.close`: cancel everything in flight, then wait for the
    /// kernel's answer to each (at most `CLOSE_ROUNDS` seconds), dispatching them.
    fn close(&self) {
        let keys = self.ring.borrow().keys();
        for key in keys {
            if let Err(error) = self.ring.borrow_mut().cancel(key) {
                eprintln!("cancel on close failed: {error}");
            }
        }
        for _ in 0..CLOSE_ROUNDS {
            if self.ring.borrow().in_flight() == 0 {
                break;
            }
            if let Err(error) = self.wait_once(Some(Duration::from_secs(1))) {
                eprintln!("waiting on close failed: {error}");
                break; // the ring's drop waits, or leaks, what is left
            }
            self.selector_poll.set(None); // cancelled too: not submitted again
            self.dispatch();
        }
    }
}
