//! The scheduler with I/O (book chapter 4, "The run loop with I/O"; Beazley's talk).
//!
//! Stage 1's callback scheduler, plus the talk's `_read_waiting` and `_write_waiting`:
//! callbacks waiting for a socket, filed under it, told to the [`Selector`] (mio's, or a
//! test's fake). When nothing is ready the loop sleeps *in the selector* until the next
//! deadline at most, then makes ready what the sockets and the timers say.
//!
//! What changed from stage 3: stage 1's loop with its sleep replaced by `select`, written
//! out again because the loop is the lesson (`call_soon` and `call_later` are stage 1's
//! line for line). It implements stage 1's [`Schedule`], so stage 3's `Task` runs on it.
//! Three of the talk's bugs are fixed here, each with a test: a sleeper wakes at `now >=
//! deadline`, not `>` (which spins on a clock that can equal it); a second `read_wait` on a
//! socket is an error (`AlreadyExists`), not a lost first task; the virtual clock never
//! blocks in `select` while timers are pending (it polls, then jumps to the deadline).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use scaffold::{Clock, Event, event};
use stage1::{CallbackId, Schedule, TimerHeap, scheduler::Callback};

use crate::selector::{Interest, MioSelector, Selector};

mod inspect;

/// The callback scheduler with I/O waits. Cloning gives another handle to the same one.
#[derive(Clone)]
pub struct Scheduler {
    inner: Rc<Inner>,
}

// ANCHOR: state
struct Inner {
    clock: Rc<dyn Clock>,
    ready: RefCell<VecDeque<Callback<Scheduler>>>,
    sleeping: RefCell<TimerHeap<Callback<Scheduler>>>,
    waiting: RefCell<HashMap<(RawFd, Interest), Callback<Scheduler>>>, // the talk's two dicts
    selector: RefCell<Box<dyn Selector>>,
    next_id: Cell<u64>,
    running: Cell<Option<CallbackId>>, // set while a step is reported, for a recording
}
// ANCHOR_END: state

impl Scheduler {
    /// An empty scheduler on `clock`, sleeping in a new [`MioSelector`] (which can fail).
    pub fn new(clock: Rc<dyn Clock>) -> io::Result<Scheduler> {
        Ok(Scheduler::with_selector(clock, MioSelector::new()?))
    }

    /// An empty scheduler on `clock`, sleeping in `selector`: how a test brings a fake.
    pub fn with_selector(clock: Rc<dyn Clock>, selector: impl Selector + 'static) -> Scheduler {
        let inner = Rc::new(Inner {
            clock,
            ready: RefCell::new(VecDeque::new()),
            sleeping: RefCell::new(TimerHeap::new()),
            waiting: RefCell::new(HashMap::new()),
            selector: RefCell::new(Box::new(selector)),
            next_id: Cell::new(0),
            running: Cell::new(None),
        });
        // A recording (if one is on) reads our queues at every step (`inspect.rs`).
        scaffold::state::watch(&inner);
        Scheduler { inner }
    }

    /// The current time on this scheduler's clock.
    pub fn time(&self) -> Duration {
        self.inner.clock.now()
    }

    fn wrap(&self, run: impl FnOnce(&Scheduler) + 'static) -> Callback<Scheduler> {
        let id = self.inner.next_id.get() + 1;
        self.inner.next_id.set(id);
        Callback::new(CallbackId(id), run)
    }

    /// Run `callback` as soon as the callbacks already waiting have run.
    pub fn call_soon(&self, callback: impl FnOnce(&Scheduler) + 'static) -> CallbackId {
        let callback = self.wrap(callback);
        let id = callback.id;
        self.inner.ready.borrow_mut().push_back(callback);
        event!(Event::CallSoon { id: id.into() });
        id
    }

    /// Run `callback` once `delay` has passed.
    pub fn call_later(
        &self,
        delay: Duration,
        callback: impl FnOnce(&Scheduler) + 'static,
    ) -> CallbackId {
        let callback = self.wrap(callback);
        let id = callback.id;
        let deadline = self.time().saturating_add(delay);
        let sequence = self.inner.sleeping.borrow_mut().push(deadline, callback);
        event!(Event::CallLater {
            id: id.into(),
            delay,
            due: deadline,
            seq: sequence
        });
        id
    }

    // ANCHOR: read_wait
    /// Run `callback` once `source` is readable. One wait per socket and direction: a
    /// second is refused with `AlreadyExists` (the talk silently dropped the first).
    /// [`cancel_wait`](Self::cancel_wait) before closing `source`: a closed one never fires.
    pub fn read_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Scheduler) + 'static,
    ) -> io::Result<()> {
        self.io_wait(source.as_raw_fd(), Interest::Read, callback)
    }
    // ANCHOR_END: read_wait

    /// Run `callback` once `source` is writable; otherwise as [`read_wait`](Self::read_wait).
    pub fn write_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Scheduler) + 'static,
    ) -> io::Result<()> {
        self.io_wait(source.as_raw_fd(), Interest::Write, callback)
    }

    fn io_wait(
        &self,
        fd: RawFd,
        interest: Interest,
        callback: impl FnOnce(&Scheduler) + 'static,
    ) -> io::Result<()> {
        // The selector refuses a second wait, and a bad fd, before anything is stored.
        self.inner.selector.borrow_mut().add(fd, interest)?;
        let callback = self.wrap(callback);
        let id = callback.id.into();
        self.inner
            .waiting
            .borrow_mut()
            .insert((fd, interest), callback);
        let interest = interest.name();
        event!(Event::IoWait { fd, interest, id });
        Ok(())
    }

    /// Stop waiting on `source` for `interest`: drop the callback, and say if there was one.
    pub fn cancel_wait(&self, source: &impl AsRawFd, interest: Interest) -> io::Result<bool> {
        let fd = source.as_raw_fd();
        let removed = self.inner.waiting.borrow_mut().remove(&(fd, interest));
        self.inner.selector.borrow_mut().remove(fd, interest)?;
        Ok(removed.is_some())
    }

    /// How many callbacks are ready, sleeping, and waiting for I/O.
    pub fn pending(&self) -> (usize, usize, usize) {
        (
            self.inner.ready.borrow().len(),
            self.inner.sleeping.borrow().len(),
            self.inner.waiting.borrow().len(),
        )
    }

    // ANCHOR: run
    /// Run until nothing is ready, sleeping or waiting for I/O: the talk's
    /// `while self.ready or self.sleeping or self._read_waiting or self._write_waiting`.
    pub fn run(&self) -> io::Result<()> {
        while self.pending() != (0, 0, 0) {
            self.run_once()?;
        }
        event!(Event::Done {
            why: "nothing ready, sleeping or waiting"
        });
        Ok(())
    }

    /// One turn of the loop: if nothing is ready, wait for I/O or the next timer; then run
    /// every ready callback, including those added meanwhile.
    pub fn run_once(&self) -> io::Result<()> {
        if self.inner.ready.borrow().is_empty() {
            self.wait_for_events()?;
        }
        loop {
            let next = self.inner.ready.borrow_mut().pop_front();
            let Some(callback) = next else { break };
            self.report_run(callback.id); // `run c3` in the trace
            callback.call(self);
        }
        self.inner.running.set(None); // between turns, nothing runs
        Ok(())
    }
    // ANCHOR_END: run

    // ANCHOR: wait_head
    /// Sleep in the selector until a socket is ready or the next timer is due; move the
    /// ready callbacks and the due timers to the ready queue. Nothing to wait for: return.
    fn wait_for_events(&self) -> io::Result<()> {
        let clock = &self.inner.clock;
        let next_deadline = self.inner.sleeping.borrow().peek().map(|t| t.deadline);
        let timeout = match next_deadline {
            None if self.inner.waiting.borrow().is_empty() => return Ok(()), // nothing at all
            None => None, // no timer: block until some socket is ready
            // ANCHOR_END: wait_head
            // Virtual clock only: a timer is pending, so poll (and jump, below).
            Some(_) if clock.is_virtual() => Some(Duration::ZERO),
            // ANCHOR: wait_timeout
            Some(deadline) => Some(deadline.saturating_sub(clock.now())),
        };
        // ANCHOR_END: wait_timeout
        event!(self.queues());
        event!(Event::Select {
            timeout,
            virtual_next: next_deadline.filter(|_| clock.is_virtual())
        });
        // ANCHOR: wait_select
        let mut events = Vec::new();
        self.inner
            .selector
            .borrow_mut()
            .select(timeout, &mut events)?;
        for &(fd, interest) in &events {
            let waiter = self.inner.waiting.borrow_mut().remove(&(fd, interest));
            if let Some(callback) = waiter {
                let (interest, id) = (interest.name(), callback.id.into());
                self.inner.ready.borrow_mut().push_back(callback);
                event!(Event::IoReady { fd, interest, id });
            }
        }
        // ANCHOR_END: wait_select
        // Virtual clock only: nothing became ready, so jump to the deadline.
        if let (true, true, Some(deadline)) = (events.is_empty(), clock.is_virtual(), next_deadline)
        {
            event!(Event::Jump { to: deadline });
            clock.sleep_until(deadline);
        }
        // ANCHOR: wait_due
        // The talk wakes a sleeper when `now > deadline`: never, on a clock that stands
        // exactly at the deadline. `pop_due` takes `deadline <= now`.
        let now = clock.now();
        loop {
            let due = self.inner.sleeping.borrow_mut().pop_due(now);
            let Some(timer) = due else { break };
            let (id, due, seq) = (timer.item.id.into(), timer.deadline, timer.sequence);
            self.inner.ready.borrow_mut().push_back(timer.item);
            event!(Event::TimerDue { id, due, seq });
        }
        Ok(())
    }
    // ANCHOR_END: wait_due
}

impl Scheduler {
    /// How long the queues are, as the timeline's charts show them.
    fn queues(&self) -> Event {
        let (ready, timers, _) = self.pending();
        Event::Queues { ready, timers }
    }

    /// Report that callback `id` runs (and only then set `running`: only a report reads it).
    /// It runs from the moment it left the ready queue: the lengths reported first are the
    /// queues without it, so the state they leave has it running, not lost between the two.
    fn report_run(&self, id: CallbackId) {
        if scaffold::emit::enabled() {
            self.inner.running.set(Some(id));
            scaffold::emit::emit(self.queues());
            scaffold::emit::emit(Event::Run { id: id.into() });
        }
    }
}

impl Schedule for Scheduler {
    fn call_soon(&self, callback: impl FnOnce(&Self) + 'static) -> CallbackId {
        Scheduler::call_soon(self, callback)
    }

    fn call_later(&self, delay: Duration, callback: impl FnOnce(&Self) + 'static) -> CallbackId {
        Scheduler::call_later(self, delay, callback)
    }

    fn time(&self) -> Duration {
        Scheduler::time(self)
    }
}

impl fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (ready, sleeping, waiting) = self.pending();
        f.debug_struct("Scheduler")
            .field("time", &self.time())
            .field("ready", &ready)
            .field("sleeping", &sleeping)
            .field("waiting", &waiting)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    type Log = Rc<RefCell<Vec<String>>>;

    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (b, _) = listener.accept().unwrap();
        b.set_nonblocking(true).unwrap();
        (a, b)
    }

    #[test]
    fn a_sleeper_due_exactly_now_runs_in_one_turn() {
        // The talk's `now > deadline` would leave this timer in the heap forever on a clock
        // that stands exactly at its deadline, and `run` would spin.
        let s = Scheduler::new(VirtualClock::new()).unwrap();
        let ran = Rc::new(Cell::new(false));
        let flag = ran.clone();
        s.call_later(Duration::from_secs(2), move |_| flag.set(true));
        s.run_once().unwrap();
        assert!(ran.get());
        assert_eq!(s.time(), Duration::from_secs(2));
        assert_eq!(s.pending(), (0, 0, 0));
    }

    #[test]
    fn run_once_with_nothing_to_wait_for_returns_at_once() {
        // Nothing ready, sleeping or waiting: a `select` without timeout would block for
        // ever. Run on a thread of its own, so that a regression fails instead of hanging.
        let (done, turned) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for clock in [
                VirtualClock::new() as Rc<dyn Clock>,
                scaffold::RealClock::new(),
            ] {
                let s = Scheduler::new(clock).unwrap();
                s.run_once().unwrap();
                s.run_once().unwrap();
            }
            // The test below fails on a timeout if this never comes; nothing to handle.
            done.send(()).ok();
        });
        let waited = turned.recv_timeout(Duration::from_secs(10));
        assert!(waited.is_ok(), "run_once blocked with nothing to wait for");
    }

    #[test]
    fn a_second_wait_on_a_socket_is_an_error_and_the_first_still_fires() {
        let s = Scheduler::new(VirtualClock::new()).unwrap();
        let (mut a, b) = pair();
        let log: Log = Rc::default();
        let l = log.clone();
        s.read_wait(&b, move |_| l.borrow_mut().push("first".into()))
            .unwrap();
        let l = log.clone();
        let error = s
            .read_wait(&b, move |_| l.borrow_mut().push("second".into()))
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        a.write_all(b"x").unwrap();
        s.run().unwrap();
        assert_eq!(*log.borrow(), ["first"]);
    }

    #[test]
    fn io_and_timers_share_the_loop_on_the_virtual_clock() {
        let s = Scheduler::new(VirtualClock::new()).unwrap();
        let (mut a, b) = pair();
        let log: Log = Rc::default();
        let l = log.clone();
        s.call_later(Duration::from_secs(5), move |s| {
            l.borrow_mut()
                .push(format!("timer at {:.3}", s.time().as_secs_f64()))
        });
        let l = log.clone();
        s.read_wait(&b, move |s| {
            l.borrow_mut()
                .push(format!("readable at {:.3}", s.time().as_secs_f64()))
        })
        .unwrap();
        a.write_all(b"x").unwrap();
        s.run().unwrap();
        // The socket was ready at once: it is served before the clock jumps to the timer.
        assert_eq!(*log.borrow(), ["readable at 0.000", "timer at 5.000"]);
    }

    #[test]
    fn a_panicking_callback_ends_run_and_the_waits_stay_filed() {
        let s = Scheduler::new(VirtualClock::new()).unwrap();
        let (mut a, b) = pair();
        let log: Log = Rc::default();
        let l = log.clone();
        s.read_wait(&b, move |_| l.borrow_mut().push("readable".into()))
            .unwrap();
        let l = log.clone();
        s.call_later(Duration::from_secs(1), move |_| {
            l.borrow_mut().push("timer".into())
        });
        s.call_soon(|_| panic!("a careless callback"));
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.run()));
        assert!(ran.is_err(), "stage 4 has no handler: the panic ends run");
        assert_eq!(s.pending(), (0, 1, 1));
        a.write_all(b"x").unwrap();
        s.run().unwrap();
        assert_eq!(*log.borrow(), ["readable", "timer"]);
    }

    #[test]
    fn cancel_wait_removes_the_callback() {
        let s = Scheduler::new(VirtualClock::new()).unwrap();
        let (_a, b) = pair();
        s.write_wait(&b, |_| panic!("cancelled")).unwrap();
        assert!(s.cancel_wait(&b, Interest::Write).unwrap());
        assert!(!s.cancel_wait(&b, Interest::Write).unwrap());
        s.run().unwrap();
        assert_eq!(s.pending(), (0, 0, 0));
    }
}
