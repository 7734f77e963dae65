//! Chapter 6's exercises: each test fails on the stub in `src/ch6.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 6.1`
//! (or `cargo test -p exercises --test ch6 -- --ignored ex6_1`). A task
//! that waits for ever does not hang a test: on the virtual clock, a loop with nothing
//! left to wait for says so (`NothingToWaitFor`).

// Your code, compiled into this test alone (`src/ch6.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch6.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch6.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch6;

use std::cell::RefCell;
use std::rc::Rc;

use ch6::{Event, Lock, TaskGroup, shield};
use exercises::assert_yours;
use stage5::{Error, EventLoop, Task, VirtualClock, gather, sleep, wait_for};

fn vloop() -> EventLoop {
    EventLoop::with_clock(VirtualClock::new())
}

type Log = Rc<RefCell<Vec<String>>>;

fn note(lp: &EventLoop, log: &Log, what: &str) {
    log.borrow_mut().push(format!("{:.3} {what}", lp.time()));
}

#[test]
#[ignore = "exercise 6.1: an Event"]
fn ex6_1_set_wakes_every_waiter_and_clear_makes_them_wait_again() {
    let lp = vloop();
    let event = Event::new();
    let log: Log = Rc::default();
    let waiter = |name: &'static str| {
        let (l, event, log) = (lp.clone(), event.clone(), log.clone());
        lp.create_task(async move {
            event.wait(&l).await?;
            note(&l, &log, &format!("{name} woke"));
            Ok(())
        })
        .unwrap()
    };
    let first: Vec<Task<()>> = ["A", "B", "C"].into_iter().map(waiter).collect();
    let (l, e) = (lp.clone(), event.clone());
    let setter = lp
        .create_task(async move {
            sleep(&l, 1.0).await?;
            e.set();
            Ok(())
        })
        .unwrap();
    let all = gather(&lp, first.into_iter().chain([setter]));
    let woke = lp.run_until_complete(&all);
    assert!(woke.is_ok(), "every waiter wakes: {woke:?}");
    // Already set: no wait at all. Cleared: wait for the next set.
    let at_once = waiter("D");
    lp.run_until_complete(&at_once).unwrap();
    event.clear();
    let later = waiter("E");
    let e = event.clone();
    lp.call_later(1.0, move |_| e.set()).unwrap();
    lp.run_until_complete(&later).unwrap();
    assert_yours!(
        *log.borrow(),
        [
            "1.000 A woke",
            "1.000 B woke",
            "1.000 C woke",
            "1.000 D woke",
            "2.000 E woke"
        ]
    );
}

/// A task that takes `lock`, logs, and gives it back.
fn taker(lp: &EventLoop, lock: &Lock, log: &Log, name: &'static str) -> Task<()> {
    let (l, lock, log) = (lp.clone(), lock.clone(), log.clone());
    lp.create_task(async move {
        lock.acquire(&l).await?;
        note(&l, &log, &format!("{name} has the lock"));
        lock.release()
    })
    .unwrap()
}

/// A task that holds `lock` for a second, then releases it and runs `after`.
fn holder(lp: &EventLoop, lock: &Lock, after: impl FnOnce() + 'static) -> Task<()> {
    let (l, lock) = (lp.clone(), lock.clone());
    lp.create_task(async move {
        lock.acquire(&l).await?;
        sleep(&l, 1.0).await?;
        lock.release()?;
        after();
        Ok(())
    })
    .unwrap()
}

#[test]
#[ignore = "exercise 6.2: a Lock"]
fn ex6_2_a_cancelled_waiter_leaves_no_trace_and_passes_the_lock_on() {
    // B is cancelled while it waits: C gets the lock when A releases it.
    let lp = vloop();
    let lock = Lock::new();
    let log: Log = Rc::default();
    let a = holder(&lp, &lock, || {});
    let b = taker(&lp, &lock, &log, "B");
    let c = taker(&lp, &lock, &log, "C");
    let cancel_b = b.clone();
    lp.call_later(0.5, move |_| {
        cancel_b.cancel(); // true: B is waiting
    })
    .unwrap();
    let outcome = lp.run_until_complete(&gather(&lp, [a, c]));
    assert!(outcome.is_ok(), "C gets the lock: {outcome:?}");
    assert!(b.cancelled());

    // E is cancelled just after the lock was handed to it, before its task ran: F gets it.
    let lock = Lock::new();
    let e_slot: Rc<RefCell<Option<Task<()>>>> = Rc::default();
    let slot = e_slot.clone();
    let d = holder(&lp, &lock, move || {
        if let Some(e) = slot.borrow().as_ref() {
            e.cancel(); // the lock was just handed to E
        }
    });
    let e = taker(&lp, &lock, &log, "E");
    let f = taker(&lp, &lock, &log, "F");
    *e_slot.borrow_mut() = Some(e.clone());
    let outcome = lp.run_until_complete(&gather(&lp, [d, f]));
    assert!(outcome.is_ok(), "F gets the lock: {outcome:?}");
    assert!(e.cancelled());
    assert!(!lock.locked(), "and gives it back");
    assert_yours!(
        *log.borrow(),
        ["1.000 C has the lock", "2.000 F has the lock"]
    );
}

#[test]
#[ignore = "exercise 6.3: shield"]
fn ex6_3_a_timeout_on_a_shielded_future_leaves_the_work_running() {
    let lp = vloop();
    let l = lp.clone();
    let work = lp
        .create_task(async move {
            sleep(&l, 2.0).await?;
            Ok(42)
        })
        .unwrap();
    let (l, w) = (lp.clone(), work.clone());
    let impatient = lp
        .create_task(async move { wait_for(&l, shield(&l, &w), 1.0).await })
        .unwrap();
    assert!(matches!(
        lp.run_until_complete(&impatient),
        Err(Error::Timeout)
    ));
    assert_yours!(lp.time(), 1.0, "the caller gave up after a second");
    assert!(!work.done(), "the work goes on");
    assert_yours!(lp.run_until_complete(&work).unwrap(), 42);
    assert_yours!(lp.time(), 2.0);

    // The inner outcome passes through: an exception, a cancel.
    let failing = lp.create_future::<u32>();
    let outer = shield(&lp, &failing);
    failing.set_exception(Error::msg("boom")).unwrap();
    let failed = lp.run_until_complete(&outer).unwrap_err();
    assert_yours!(failed.to_string(), "boom");
    let cancelled = lp.create_future::<u32>();
    let outer = shield(&lp, &cancelled);
    cancelled.cancel();
    assert!(matches!(
        lp.run_until_complete(&outer),
        Err(Error::Cancelled)
    ));
}

#[test]
#[ignore = "exercise 6.4: a TaskGroup"]
fn ex6_4_the_first_failure_cancels_the_rest_at_once() {
    let lp = vloop();
    let job = |delay: f64, value: Result<u32, &'static str>| {
        let l = lp.clone();
        async move {
            sleep(&l, delay).await?;
            value.map_err(Error::msg)
        }
    };
    // All succeed: results in spawn order, whatever the order they finish in.
    let mut group = TaskGroup::new();
    for (delay, value) in [(3.0, 1), (1.0, 2), (2.0, 3)] {
        group.spawn(&lp, job(delay, Ok(value))).unwrap();
    }
    let l = lp.clone();
    let all = lp.create_task(async move { group.wait(&l).await }).unwrap();
    assert_yours!(lp.run_until_complete(&all).unwrap(), [1, 2, 3]);
    let start = lp.time();

    // The second fails after a second: the group fails then, and the others are cancelled.
    let mut group = TaskGroup::new();
    let slow = group.spawn(&lp, job(10.0, Ok(1))).unwrap();
    group.spawn(&lp, job(1.0, Err("boom"))).unwrap();
    let medium = group.spawn(&lp, job(5.0, Ok(3))).unwrap();
    let l = lp.clone();
    let all = lp.create_task(async move { group.wait(&l).await }).unwrap();
    let failed = lp.run_until_complete(&all).unwrap_err();
    assert_yours!(failed.to_string(), "boom");
    assert_yours!(
        lp.time() - start,
        1.0,
        "the group fails with its first failure"
    );
    assert!(
        slow.cancelled() && medium.cancelled(),
        "no task outlives the group"
    );
}
