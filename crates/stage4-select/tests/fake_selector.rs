//! Stage 4's scheduler on a fake selector (book chapter 4, "The run loop with I/O"; Beazley's
//! talk): no socket and no system call, only a [`Selector`] that writes down what the scheduler
//! asks of it and answers from a script. So these tests can say exactly what the loop does: which
//! task a report wakes, how long it sleeps in `select`, and which waits it takes back. The file
//! descriptors are made-up numbers; nothing is opened.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::io;
use std::os::fd::RawFd;
use std::rc::Rc;
use std::time::Duration;

use stage4::{Clock, Interest, NewTask, Scheduler, Selector, VirtualClock, WaitIo};

/// What the fake was asked and what it will answer. The scheduler owns the selector, so
/// the test keeps this half of it.
#[derive(Default)]
struct Script {
    /// Every call, in order: `add 7 read`, `remove 7 read`, `select 2s` (`select none`: no
    /// limit).
    calls: Vec<String>,
    /// The waits registered now.
    waits: Vec<(RawFd, Interest)>,
    /// What the coming `select`s report, one entry per call; with none left, nothing.
    answers: VecDeque<Vec<(RawFd, Interest)>>,
    /// Descriptors the fake refuses to wait on, as epoll refuses one the process lacks.
    closed: Vec<RawFd>,
}

impl Script {
    /// The calls made since the last look.
    fn calls(&mut self) -> Vec<String> {
        std::mem::take(&mut self.calls)
    }
}

/// A [`Selector`] that keeps the trait's promises (one wait per socket and direction,
/// one-shot reports of registered waits only) and sleeps, when nothing is ready, for the
/// whole timeout on the scheduler's own clock.
struct FakeSelector {
    script: Rc<RefCell<Script>>,
    clock: Rc<dyn Clock>,
}

impl Selector for FakeSelector {
    fn add(&mut self, fd: RawFd, interest: Interest) -> io::Result<()> {
        let mut script = self.script.borrow_mut();
        script.calls.push(format!("add {fd} {interest}"));
        if script.closed.contains(&fd) {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("fd {fd} is not open"),
            ));
        }
        if script.waits.contains(&(fd, interest)) {
            return Err(io::ErrorKind::AlreadyExists.into());
        }
        script.waits.push((fd, interest));
        Ok(())
    }

    fn remove(&mut self, fd: RawFd, interest: Interest) -> io::Result<()> {
        let mut script = self.script.borrow_mut();
        script.calls.push(format!("remove {fd} {interest}"));
        script.waits.retain(|&wait| wait != (fd, interest));
        Ok(())
    }

    fn select(
        &mut self,
        timeout: Option<Duration>,
        ready: &mut Vec<(RawFd, Interest)>,
    ) -> io::Result<()> {
        let mut script = self.script.borrow_mut();
        let limit = timeout.map_or("none".to_string(), |t| format!("{t:?}"));
        script.calls.push(format!("select {limit}"));
        let answer = script.answers.pop_front().unwrap_or_default();
        let first = ready.len();
        for wait in answer {
            // A real selector reports only what is waited for, and forgets what it reports.
            if let Some(i) = script.waits.iter().position(|&w| w == wait) {
                script.waits.remove(i);
                ready.push(wait);
            }
        }
        if ready.len() == first {
            // No limit and nothing to report would block a real selector for ever: fail the
            // test instead of hanging it.
            let timeout = timeout.expect("select with no limit and nothing ready: a hang");
            self.clock.sleep_until(self.clock.now() + timeout);
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.script.borrow().waits.len()
    }
}

/// A clock the scheduler takes for a real one (not virtual: it trusts `select` to sleep out
/// its timeout) but whose time moves only when the fake sleeps on it. The timeouts the loop
/// computes are then exact, and no test waits for anything.
#[derive(Default)]
struct StillClock {
    now: Cell<Duration>,
}

impl Clock for StillClock {
    fn now(&self) -> Duration {
        self.now.get()
    }

    fn sleep_until(&self, deadline: Duration) {
        self.now.set(self.now.get().max(deadline));
    }

    fn is_virtual(&self) -> bool {
        false
    }
}

type Log = Rc<RefCell<Vec<String>>>;

/// A callback that writes `what` to `log`.
fn note(log: &Log, what: &str) -> impl FnOnce(&Scheduler) + 'static {
    let (log, what) = (log.clone(), what.to_string());
    move |_| log.borrow_mut().push(what)
}

/// A scheduler on `clock` and the script of its fake selector.
fn scheduler(clock: Rc<dyn Clock>) -> (Scheduler, Rc<RefCell<Script>>) {
    let script = Rc::<RefCell<Script>>::default();
    let selector = FakeSelector {
        script: script.clone(),
        clock: clock.clone(),
    };
    (Scheduler::with_selector(clock, selector), script)
}

const READ: Interest = Interest::Read;
const WRITE: Interest = Interest::Write;

#[test]
fn a_waiting_task_resumes_only_when_the_selector_reports_its_fd_and_direction() {
    let (s, script) = scheduler(VirtualClock::new());
    let log = Log::default();
    for (fd, interest) in [(7, READ), (7, WRITE), (8, READ)] {
        let (s2, log) = (s.clone(), log.clone());
        s.new_task(async move {
            s2.wait(&fd, interest).await.unwrap();
            log.borrow_mut().push(format!("{interest} {fd}"));
        });
    }
    // The tasks' first steps are ready work: they run, and each files its wait.
    s.run_once().unwrap();
    assert_eq!(
        script.borrow_mut().calls(),
        ["add 7 read", "add 7 write", "add 8 read"]
    );
    assert!(log.borrow().is_empty());

    for (report, woken) in [
        (vec![(7, WRITE)], vec!["write 7"]),
        (vec![(8, READ)], vec!["write 7", "read 8"]),
        (vec![(7, READ)], vec!["write 7", "read 8", "read 7"]),
    ] {
        script.borrow_mut().answers.push_back(report);
        s.run_once().unwrap();
        // No timer: the loop sleeps until a socket is ready, with no limit.
        assert_eq!(script.borrow_mut().calls(), ["select none"]);
        assert_eq!(*log.borrow(), woken);
    }
    assert_eq!(s.pending(), (0, 0, 0));
    assert!(script.borrow().waits.is_empty());
    // Nothing ready, sleeping or waiting: the turn ends without asking the selector.
    s.run_once().unwrap();
    assert!(script.borrow_mut().calls().is_empty());
}

#[test]
fn select_sleeps_until_the_next_timer_and_never_while_work_is_ready() {
    let clock = Rc::new(StillClock::default());
    let (s, script) = scheduler(clock.clone());
    let log = Log::default();
    s.call_later(Duration::from_secs(2), note(&log, "timer 2"));
    s.call_later(Duration::from_secs(5), note(&log, "timer 5"));
    s.read_wait(&7, note(&log, "read 7")).unwrap();
    s.call_soon(note(&log, "soon"));
    assert_eq!(script.borrow_mut().calls(), ["add 7 read"]);

    // Work is ready: the turn runs it and never reaches `select`.
    s.run_once().unwrap();
    assert!(script.borrow_mut().calls().is_empty());
    assert_eq!(*log.borrow(), ["soon"]);

    // Nothing ready: sleep until the first timer, 2 s from now.
    s.run_once().unwrap();
    assert_eq!(script.borrow_mut().calls(), ["select 2s"]);
    assert_eq!(*log.borrow(), ["soon", "timer 2"]);
    assert_eq!(s.time(), Duration::from_secs(2));

    // The next timer is 3 s away; the socket is ready first, and the clock stays.
    script.borrow_mut().answers.push_back(vec![(7, READ)]);
    s.run_once().unwrap();
    assert_eq!(script.borrow_mut().calls(), ["select 3s"]);
    assert_eq!(*log.borrow(), ["soon", "timer 2", "read 7"]);
    assert_eq!(s.time(), Duration::from_secs(2));

    // A callback that overruns the next deadline: the loop only polls, then runs the timer.
    s.call_soon(move |_| clock.sleep_until(Duration::from_secs(6)));
    s.run_once().unwrap();
    s.run_once().unwrap();
    assert_eq!(script.borrow_mut().calls(), ["select 0ns"]);
    assert_eq!(*log.borrow(), ["soon", "timer 2", "read 7", "timer 5"]);
    assert_eq!(s.pending(), (0, 0, 0));
}

#[test]
fn on_the_virtual_clock_select_only_polls_and_the_clock_jumps_to_the_timer() {
    let (s, script) = scheduler(VirtualClock::new());
    let log = Log::default();
    s.call_later(Duration::from_secs(5), note(&log, "timer"));
    s.read_wait(&7, note(&log, "read 7")).unwrap();
    script.borrow_mut().calls();

    // A timer is pending: never block on the virtual clock; poll, then jump.
    s.run_once().unwrap();
    assert_eq!(script.borrow_mut().calls(), ["select 0ns"]);
    assert_eq!(*log.borrow(), ["timer"]);
    assert_eq!(s.time(), Duration::from_secs(5));

    // Only the socket is left: nothing to jump to, so block until it is ready.
    script.borrow_mut().answers.push_back(vec![(7, READ)]);
    s.run_once().unwrap();
    assert_eq!(script.borrow_mut().calls(), ["select none"]);
    assert_eq!(*log.borrow(), ["timer", "read 7"]);
    assert_eq!(s.time(), Duration::from_secs(5));
}

#[test]
fn cancel_wait_takes_the_wait_back_from_the_selector_and_drops_its_callback() {
    let (s, script) = scheduler(VirtualClock::new());
    let log = Log::default();
    let held = Rc::new(());
    let kept = held.clone();
    s.read_wait(&7, move |_| {
        drop(kept);
        panic!("a cancelled wait ran")
    })
    .unwrap();
    s.write_wait(&7, note(&log, "write 7")).unwrap();
    assert_eq!(Rc::strong_count(&held), 2);

    assert!(s.cancel_wait(&7, READ).unwrap());
    assert_eq!(script.borrow().waits, [(7, WRITE)]);
    assert_eq!(s.pending(), (0, 0, 1));
    assert_eq!(
        Rc::strong_count(&held),
        1,
        "the cancelled callback is dropped"
    );
    assert!(!s.cancel_wait(&7, READ).unwrap(), "nothing left to cancel");

    // The other direction still fires.
    script
        .borrow_mut()
        .answers
        .push_back(vec![(7, READ), (7, WRITE)]);
    s.run().unwrap();
    assert_eq!(*log.borrow(), ["write 7"]);
    assert!(script.borrow().waits.is_empty());
}

#[test]
fn a_wait_the_selector_refuses_is_an_error_for_a_task_that_still_runs() {
    let (s, script) = scheduler(VirtualClock::new());
    script.borrow_mut().closed.push(9);
    let log = Log::default();
    let (s2, l) = (s.clone(), log.clone());
    s.new_task(async move {
        let error = s2.wait(&9, READ).await.unwrap_err();
        l.borrow_mut().push(format!("refused: {error}"));
        l.borrow_mut().push("still running".into());
    });
    s.run().unwrap();
    assert_eq!(
        *log.borrow(),
        ["refused: fd 9 is not open", "still running"]
    );
    // Nothing was filed: the loop never went to the selector.
    assert_eq!(script.borrow_mut().calls(), ["add 9 read"]);
    assert_eq!(s.pending(), (0, 0, 0));
}
