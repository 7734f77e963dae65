//! Conformance with CPython's asyncio: one test per behaviour, named after the CPython test
//! (Lib/test/test_asyncio) that checks the same thing where there is one, and for what it
//! checks otherwise (the root package's `tests/cpython_refs.rs` lists the names that are
//! ours, and checks that every other one is CPython 3.11.7's).
//!
//! Each scenario runs on the virtual clock with `--trace`, and its whole transcript (the
//! loop's steps with their iteration numbers, `~`, and the scenario's own notes, `|`) is
//! a snapshot. The same scenario is written with asyncio in `conformance/<name>.py`, on
//! CPython's real `BaseEventLoop` with a virtual clock (`conformance/vloop.py`); where
//! `python3` is installed, each test also runs that script and checks that its lines equal
//! our notes, iteration numbers and times included. Without Python the comparison is
//! skipped with a note on standard error (CI has Python 3.11).

// The tests keep CPython's names, `test__run_once` included.
#![allow(non_snake_case)]

#[path = "support/cpython.rs"]
mod cpython;
use cpython::{compare_with_cpython, without_spawning};

use std::cell::RefCell;
use std::fmt::Display;
use std::rc::Rc;
use std::time::Duration;

use stage5::{
    Clock, Error, EventLoop, Future, Queue, Task, gather, say, sleep, timeout, transcript, wait_for,
};

/// One line of the scenario's own output: `[iteration] text`.
fn note(lp: &EventLoop, text: impl Display) {
    say!("[{}] {text}", lp.iteration());
}

/// Python's spelling of a bool, so both sides print the same line.
fn py(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// The loop's log lines as notes; `vloop.capture_log` does the same on the Python side.
fn capture_log(lp: &EventLoop) {
    lp.set_logger(|lp, level, message| note(lp, format!("log {level}: {}", normalize(message))));
}

/// Keep what both loops say alike: drop the handle's description, which differs.
fn normalize(message: &str) -> String {
    for prefix in [
        "Exception in callback",
        "Unhandled error in exception handler",
    ] {
        if message.starts_with(prefix) {
            let exception = message.rsplit_once(": ").map_or("", |(_, e)| e);
            return format!("{prefix}: {exception}");
        }
    }
    if let Some((_, took)) = message.rsplit_once(" took ") {
        return format!("Executing <handle> took {took}");
    }
    message.to_owned()
}

fn report(lp: &EventLoop, what: &str) {
    note(
        lp,
        format!(
            "{what}: {} scheduled, {} cancelled",
            lp.scheduled_len(),
            lp.timer_cancelled_count()
        ),
    );
}

/// Run `scenario` on a fresh loop on the virtual clock, snapshot its traced transcript and
/// compare its notes with the CPython script of the same name.
fn check(name: &str, scenario: impl FnOnce(&EventLoop)) {
    check_lines(name, |_| true, scenario);
}

/// `check`, snapshotting only the trace lines `keep` keeps (all notes are kept).
fn check_lines(name: &str, keep: fn(&str) -> bool, scenario: impl FnOnce(&EventLoop)) {
    check_program(name, keep, |clock| {
        let lp = EventLoop::with_clock(clock);
        scenario(&lp);
        // Closing twice is fine: a scenario that closed its loop already gets `Ok` here.
        lp.close().unwrap();
    });
}

/// `check_lines` for a scenario that makes its own loop on `clock` (`stage5::run` does).
fn check_program(name: &str, keep: fn(&str) -> bool, program: impl FnOnce(Rc<dyn Clock>)) {
    let text = without_spawning(|| transcript(true, program));
    let ours: Vec<&str> = text.lines().filter(|l| l.contains(" | ")).collect();
    compare_with_cpython(name, &ours);
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" | ") || keep(l))
        .collect();
    insta::assert_snapshot!(name, kept.join("\n"));
}

#[test]
fn test_call_soon() {
    check("test_call_soon", |lp| {
        for name in ["a", "b", "c"] {
            lp.call_soon(move |lp| note(lp, name)).unwrap();
        }
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
        note(lp, "run_forever returned");
    });
}

#[test]
fn test__run_once_schedule_handle() {
    check("test__run_once_schedule_handle", |lp| {
        lp.call_soon(|lp| {
            note(lp, "cb: call_soon(child)");
            lp.call_soon(|lp| note(lp, "child runs")).unwrap();
        })
        .unwrap();
        lp.run_once().unwrap();
        note(lp, format!("after run_once: {} ready", lp.ready_len()));
        assert_eq!(lp.ready_len(), 1);
        lp.run_once().unwrap();
        note(lp, format!("after run_once: {} ready", lp.ready_len()));
    });
}

#[test]
fn test_call_later_zero_after_ready() {
    check("test_call_later_zero_after_ready", |lp| {
        lp.call_later(1.0, |lp| {
            note(lp, "start");
            lp.call_soon(|lp| {
                note(lp, "a");
                lp.call_later(0.0, |lp| note(lp, "a's call_later(0)"))
                    .unwrap();
                lp.call_soon(|lp| note(lp, "a's call_soon")).unwrap();
            })
            .unwrap();
            lp.call_later(0.0, |lp| note(lp, "call_later(0)")).unwrap();
            lp.call_at(lp.time() - 0.5, |lp| note(lp, "call_at(0.5 s ago)"))
                .unwrap();
            lp.call_soon(|lp| note(lp, "b")).unwrap();
        })
        .unwrap();
        lp.call_later(2.0, EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
    });
}

#[test]
fn test__run_once() {
    check("test__run_once", |lp| {
        let h1 = lp.call_later(5.0, |lp| note(lp, "h1 (cancelled)")).unwrap();
        lp.call_later(10.0, |lp| note(lp, "h2")).unwrap();
        h1.cancel();
        report(lp, "before");
        lp.run_once().unwrap();
        report(lp, "after");
        let a = lp.call_soon(|lp| note(lp, "a (cancelled)")).unwrap();
        lp.call_soon(|lp| note(lp, "b")).unwrap();
        a.cancel();
        lp.run_once().unwrap();
    });
}

#[test]
fn test__run_once_cancelled_event_cleanup() {
    // Hundreds of `call_at` lines would bury the steps: the snapshot leaves them out.
    let keep = |line: &str| !line.contains("call_at");
    check_lines("test__run_once_cancelled_event_cleanup", keep, |lp| {
        note(lp, "5 timers, the 2 earliest and 2 latest cancelled");
        lp.call_later(3000.0, |_| {}).unwrap();
        for _ in 0..2 {
            lp.call_later(3600.0, |_| {}).unwrap().cancel();
        }
        for _ in 0..2 {
            lp.call_later(100.0, |_| {}).unwrap().cancel();
        }
        lp.call_soon(|_| {}).unwrap();
        report(lp, "before");
        lp.run_once().unwrap();
        report(lp, "after");
        assert_eq!((lp.scheduled_len(), lp.timer_cancelled_count()), (3, 2));

        let case =
            |title: &str, count: usize, cancel: fn(usize) -> bool, expect: (usize, usize)| {
                let lp = EventLoop::with_clock(lp.clock().clone());
                note(&lp, title);
                for i in 0..count {
                    let handle = lp.call_later(1000.0 + i as f64, |_| {}).unwrap();
                    if cancel(i) {
                        handle.cancel();
                    }
                }
                lp.call_soon(|_| {}).unwrap();
                report(&lp, "before");
                lp.run_once().unwrap();
                report(&lp, "after");
                assert_eq!((lp.scheduled_len(), lp.timer_cancelled_count()), expect);
                lp.close().unwrap();
            };
        case(
            "150 timers, 100 cancelled: rebuilt",
            150,
            |i| i % 3 != 0,
            (50, 0),
        );
        case(
            "200 timers, 100 cancelled (exactly half): kept",
            200,
            |i| i % 2 == 1,
            (200, 100),
        );
        case(
            "100 timers, 99 cancelled (not more than 100): kept",
            100,
            |i| i > 0,
            (100, 99),
        );
    });
}

#[test]
fn test_run_forever_pre_stopped() {
    check("test_run_forever_pre_stopped", |lp| {
        lp.call_soon(|lp| {
            note(lp, "a: call_soon(b)");
            lp.call_soon(|lp| note(lp, "b")).unwrap();
        })
        .unwrap();
        lp.stop();
        lp.run_forever().unwrap();
        note(
            lp,
            format!("run_forever returned: {} ready", lp.ready_len()),
        );
        assert_eq!(lp.iteration(), 1);
        lp.stop();
        lp.run_forever().unwrap();
        note(
            lp,
            format!("run_forever returned: {} ready", lp.ready_len()),
        );
    });
}

#[test]
fn test_run_until_complete_stopped() {
    check("test_run_until_complete_stopped", |lp| {
        let l = lp.clone();
        let task = lp
            .create_task(async move {
                note(&l, "cb: stop(), then sleep(0.1)");
                l.stop();
                sleep(&l, 0.1).await
            })
            .unwrap();
        let error = lp.run_until_complete(&task).unwrap_err();
        assert!(matches!(error, Error::StoppedBeforeComplete));
        note(lp, format!("error: {error}"));
        note(lp, format!("task done: {}", py(task.done())));
    });
}

/// A callback that completes `fut`, then divides by zero.
fn zero_error(fut: Future<bool>) -> impl FnOnce(&EventLoop) {
    move |_| {
        fut.set_result(true).unwrap();
        let zero = std::hint::black_box(0);
        let _ = 1 / zero; // panics: there is no result to discard
    }
}

#[test]
fn test_default_exc_handler_callback() {
    check("test_default_exc_handler_callback", |lp| {
        capture_log(lp);
        let fut = lp.create_future();
        lp.call_soon(zero_error(fut.clone())).unwrap();
        fut.add_done_callback(|lp, _| lp.stop());
        lp.run_forever().unwrap();
        note(lp, "the loop went on");

        let fut = lp.create_future();
        lp.call_later(0.01, zero_error(fut.clone())).unwrap();
        fut.add_done_callback(|lp, _| lp.stop());
        lp.run_forever().unwrap();
        note(lp, "the loop went on");
    });
}

#[test]
fn test_set_exc_handler_custom() {
    check("test_set_exc_handler_custom", |lp| {
        capture_log(lp);
        let zero_error = |_: &EventLoop| {
            let zero = std::hint::black_box(0);
            let _ = 1 / zero; // panics: there is no result to discard
        };
        lp.set_exception_handler(Some(Rc::new(|lp, context| {
            let exception = context.exception.as_ref().expect("a panic");
            note(
                lp,
                format!(
                    "handler: {}",
                    normalize(&format!("{}: {exception}", context.message))
                ),
            );
        })));
        lp.call_soon(zero_error).unwrap();
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
        lp.set_exception_handler(None);
        lp.call_soon(zero_error).unwrap();
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
    });
}

#[test]
fn test_set_exc_handler_broken() {
    check("test_set_exc_handler_broken", |lp| {
        capture_log(lp);
        lp.set_exception_handler(Some(Rc::new(|_, _| panic!("broken handler"))));
        lp.call_soon(|_| {
            let zero = std::hint::black_box(0);
            let _ = 1 / zero; // panics: there is no result to discard
        })
        .unwrap();
        lp.call_soon(|lp| note(lp, "the loop went on")).unwrap();
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
    });
}

#[test]
fn test_close() {
    check("test_close", |lp| {
        note(lp, format!("is_closed: {}", py(lp.is_closed())));
        lp.call_soon(|_| {}).unwrap();
        lp.close().unwrap();
        note(
            lp,
            format!(
                "is_closed: {}, {} ready",
                py(lp.is_closed()),
                lp.ready_len()
            ),
        );
        lp.close().unwrap();
        lp.close().unwrap();
        let f: Future<u8> = lp.create_future();
        let outcomes: [(&str, Result<(), Error>); 6] = [
            ("run_forever", lp.run_forever()),
            ("run_until_complete", lp.run_until_complete(&f).map(drop)),
            ("call_soon", lp.call_soon(|_| {}).map(drop)),
            ("call_later", lp.call_later(1.0, |_| {}).map(drop)),
            ("call_at", lp.call_at(1.0, |_| {}).map(drop)),
            ("create_task", lp.create_task(async { Ok(()) }).map(drop)),
        ];
        for (what, outcome) in outcomes {
            assert!(matches!(outcome, Err(Error::Closed)), "{what}");
            note(lp, format!("{what}: {}", outcome.unwrap_err()));
        }
    });
}

#[test]
fn test__run_once_logging() {
    check("test__run_once_logging", |lp| {
        capture_log(lp);
        lp.set_debug(true);
        lp.set_slow_callback_duration(1.0);
        // On the virtual clock a callback takes no time, unless it moves the clock: that
        // is how these "block the loop".
        let block = |lp: &EventLoop, secs: f64| {
            let clock = lp.clock();
            clock.sleep_until(clock.now() + Duration::from_secs_f64(secs));
        };
        lp.call_soon(move |lp| {
            note(lp, "slow: blocks the loop for 1.5 s");
            block(lp, 1.5);
        })
        .unwrap();
        lp.call_soon(move |lp| {
            note(lp, "fast: blocks the loop for 0.5 s");
            block(lp, 0.5);
        })
        .unwrap();
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
    });
}

fn sleeper(lp: &EventLoop, secs: u32) -> stage5::Task<u32> {
    let l = lp.clone();
    lp.create_task(async move {
        sleep(&l, f64::from(secs)).await?;
        note(&l, format!("slept {secs}"));
        Ok(secs)
    })
    .unwrap()
}

fn quiet_sleeper(lp: &EventLoop, secs: u32) -> stage5::Task<u32> {
    let l = lp.clone();
    lp.create_task(async move {
        sleep(&l, f64::from(secs)).await?;
        Ok(secs)
    })
    .unwrap()
}

#[test]
fn test_gather() {
    check("test_gather", |lp| {
        let tasks = [3, 1, 2].map(|secs| sleeper(lp, secs));
        let results = lp.run_until_complete(&gather(lp, tasks)).unwrap();
        assert_eq!(results, [3, 1, 2]);
        assert_eq!(lp.time(), 3.0);
        note(lp, format!("results {results:?}"));
    });
}

#[test]
fn test_sleep_zero() {
    check("test_sleep_zero", |lp| {
        let tasks = ["A", "B", "C"].map(|name| {
            let l = lp.clone();
            lp.create_task(async move {
                for i in 0..3 {
                    note(&l, format!("{name} {i}"));
                    sleep(&l, 0.0).await?;
                }
                Ok(())
            })
            .unwrap()
        });
        lp.run_until_complete(&gather(lp, tasks)).unwrap();
        note(lp, "done");
    });
}

#[test]
fn test_queue_ping_pong() {
    check("test_queue_ping_pong", |lp| {
        let requests = Queue::new(lp, 0);
        let replies = Queue::new(lp, 0);
        let (l, rq, rp) = (lp.clone(), requests.clone(), replies.clone());
        let ping = lp
            .create_task(async move {
                for i in 0..3 {
                    note(&l, format!("ping {i}"));
                    rq.put(i).await;
                    let reply = rp.get().await;
                    note(&l, format!("ping got {reply}"));
                }
                Ok(())
            })
            .unwrap();
        let l = lp.clone();
        let pong = lp
            .create_task(async move {
                for _ in 0..3 {
                    let i = requests.get().await;
                    note(&l, format!("pong got {i}"));
                    replies.put(i * 10).await;
                }
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&gather(lp, [ping, pong])).unwrap();
        note(lp, "done");
    });
}

#[test]
fn test_wait_for_timeout() {
    check("test_wait_for_timeout", |lp| {
        let l = lp.clone();
        let main = lp
            .create_task(async move {
                let slow = quiet_sleeper(&l, 10);
                let timed_out = wait_for(&l, slow.clone(), 2.0).await;
                assert!(matches!(timed_out, Err(Error::Timeout)));
                note(
                    &l,
                    format!("TimeoutError; slow cancelled: {}", py(slow.cancelled())),
                );
                let quick = quiet_sleeper(&l, 1);
                let result = wait_for(&l, quick, 2.0).await?;
                note(&l, format!("quick: {result}"));
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&main).unwrap();
        note(lp, "done");
    });
}

#[test]
fn test_task_cancel() {
    check("test_task_cancel", |lp| {
        let l = lp.clone();
        let task = lp
            .create_task(async move {
                note(&l, "sleeping 10 s");
                sleep(&l, 10.0).await?;
                note(&l, "woke up");
                Ok(())
            })
            .unwrap();
        let t = task.clone();
        lp.call_later(1.0, move |lp| {
            note(lp, format!("cancel(): {}", py(t.cancel())))
        })
        .unwrap();
        let error = lp.run_until_complete(&task).unwrap_err();
        note(lp, error);
        note(
            lp,
            format!(
                "cancelled: {}, {} scheduled, {} cancelled",
                py(task.cancelled()),
                lp.scheduled_len(),
                lp.timer_cancelled_count()
            ),
        );
    });
}

// ANCHOR: cancel_at_end
#[test]
fn test_cancel_at_end() {
    check("test_cancel_at_end", |lp| {
        let me: Rc<RefCell<Option<Task<u32>>>> = Rc::default();
        let (l, slot) = (lp.clone(), me.clone());
        let task = lp
            .create_task(async move {
                let me = slot.borrow().clone().expect("set before the first step");
                note(&l, format!("cancel(): {}", py(me.cancel())));
                Ok(12)
            })
            .unwrap();
        *me.borrow_mut() = Some(task.clone());
        let outcome = lp.run_until_complete(&task);
        assert!(matches!(outcome, Err(Error::Cancelled)));
        note(lp, "CancelledError");
        let (cancelled, done) = (py(task.cancelled()), py(task.done()));
        note(lp, format!("cancelled: {cancelled}, done: {done}"));
        me.borrow_mut().take(); // the task held in its own slot: break the cycle
    });
}
// ANCHOR_END: cancel_at_end

// ANCHOR: cancel_inner_future
#[test]
fn test_cancel_inner_future() {
    check("test_cancel_inner_future", |lp| {
        let f: Future<u32> = lp.create_future();
        let inner = f.clone();
        // `?` passes the inner future's `Cancelled` on: the task ends cancelled.
        let task = lp
            .create_task(async move {
                inner.await?;
                Ok(12)
            })
            .unwrap();
        let f2 = f.clone();
        lp.call_later(1.0, move |lp| {
            note(lp, format!("cancel the inner future: {}", py(f2.cancel())))
        })
        .unwrap();
        assert!(matches!(
            lp.run_until_complete(&task),
            Err(Error::Cancelled)
        ));
        note(lp, "CancelledError");
        let (f, t) = (py(f.cancelled()), py(task.cancelled()));
        note(lp, format!("future cancelled: {f}, task cancelled: {t}"));
    });
}
// ANCHOR_END: cancel_inner_future

#[test]
fn test_call_later_negative_delays() {
    check("test_call_later_negative_delays", |lp| {
        let clock = lp.clock();
        clock.sleep_until(clock.now() + Duration::from_secs(10));
        lp.call_later(-1.0, |lp| note(lp, "call_later(-1)"))
            .unwrap();
        lp.call_later(-2.0, |lp| note(lp, "call_later(-2)"))
            .unwrap();
        lp.call_at(lp.time() - 0.5, |lp| note(lp, "call_at(now - 0.5)"))
            .unwrap();
        lp.call_later(0.0, |lp| note(lp, "call_later(0)")).unwrap();
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
        note(lp, "stopped");
    });
}

#[test]
fn test_default_exc_handler_lines() {
    check("test_default_exc_handler_lines", |lp| {
        // One note per line of the logged message, then the exception: a panic's message
        // is the last line, where Python's logging prints the exception.
        lp.set_logger(|lp, level, message| {
            let mut lines: Vec<&str> = message.lines().collect();
            let exception = lines.pop().unwrap_or_default();
            for line in lines {
                let line = if line.starts_with("Exception in callback") {
                    "Exception in callback"
                } else if line.starts_with("handle: <Handle") {
                    "handle: <Handle>"
                } else {
                    line
                };
                note(lp, format!("log {level}: {line}"));
            }
            let exception = exception.strip_prefix("panicked: ").unwrap_or(exception);
            note(lp, format!("log exception: {exception}"));
        });
        lp.call_soon(|_| {
            let zero = std::hint::black_box(0);
            let _ = 1 / zero; // panics: the result is never there to discard
        })
        .unwrap();
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
    });
}

/// A future whose drop fails, as Python's `except CancelledError: 1 / 0` does.
struct FailsWhenCancelled;

impl Drop for FailsWhenCancelled {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("division by zero");
        }
    }
}

// ANCHOR: asyncio_run
#[test]
fn test_asyncio_run_cancels_hanging_tasks() {
    check_program(
        "test_asyncio_run_cancels_hanging_tasks",
        |_| true,
        |clock| {
            let leftover: Rc<RefCell<Option<Task<()>>>> = Rc::default();
            let slot = leftover.clone();
            let the_loop: Rc<RefCell<Option<EventLoop>>> = Rc::default();
            let loop_slot = the_loop.clone();
            let result = stage5::run(clock, move |lp| {
                *loop_slot.borrow_mut() = Some(lp.clone());
                let lp = lp.clone();
                async move {
                    let l = lp.clone();
                    let task = lp.create_task(async move {
                        note(&l, "leftover: sleeps 0.1 s");
                        sleep(&l, 0.1).await?;
                        note(&l, "leftover: woke up");
                        Ok(())
                    })?;
                    *slot.borrow_mut() = Some(task);
                    note(&lp, "main: returns 123");
                    Ok(123)
                }
            });
            let leftover = leftover.borrow_mut().take().unwrap();
            let closed = the_loop.borrow().as_ref().unwrap().is_closed();
            say!(
                "run returned {}; leftover cancelled: {}; loop closed: {}",
                result.unwrap(),
                py(leftover.cancelled()),
                py(closed)
            );
        },
    );
}
// ANCHOR_END: asyncio_run

#[test]
fn test_asyncio_run_reports_hanging_tasks_errors() {
    check_program(
        "test_asyncio_run_reports_hanging_tasks_errors",
        |_| true,
        |clock| {
            let result = stage5::run(clock, |lp| {
                let lp = lp.clone();
                async move {
                    lp.set_exception_handler(Some(Rc::new(|lp, context| {
                        let exception = context.exception.as_ref().map(ToString::to_string);
                        let exception = exception.unwrap_or_default();
                        let exception = exception.strip_prefix("panicked: ").unwrap_or(&exception);
                        note(
                            lp,
                            format!("handler: {}; exception: {exception}", context.message),
                        );
                    })));
                    let l = lp.clone();
                    lp.create_task(async move {
                        let _cleanup = FailsWhenCancelled;
                        sleep(&l, 0.1).await
                    })?;
                    note(&lp, "main: returns 123");
                    Ok(123)
                }
            });
            say!("run returned {}", result.unwrap());
        },
    );
}

#[test]
fn test_run_until_complete_loop() {
    check("test_run_until_complete_loop", |lp| {
        let other = EventLoop::with_clock(lp.clock().clone());
        let f: Future<u32> = other.create_future();
        let task = other.create_task(async { Ok(1) }).unwrap();
        for (what, future) in [("future", &f), ("task", &*task)] {
            let error = lp.run_until_complete(future).unwrap_err();
            assert!(matches!(error, Error::DifferentLoop), "{what}");
            note(lp, format!("{what}: {error}"));
        }
        let output = other.run_until_complete(&task).unwrap();
        note(lp, format!("other loop's task: {output}"));
    });
}

/// Note when `future` is done, and whether it was cancelled.
fn watch<T: 'static>(name: String, future: &Future<T>) {
    future.add_done_callback(move |lp, f| {
        note(lp, format!("{name} done, cancelled: {}", py(f.cancelled())))
    });
}

/// A task that awaits `awaited`, cancelled a second later; `test_cancel_awaited`'s step.
async fn cancel_outer<T: Clone + 'static>(
    lp: &EventLoop,
    name: &str,
    awaited: Future<T>,
    watched: bool,
) -> Result<(), Error> {
    if watched {
        watch(format!("awaited {name}"), &awaited);
    }
    let outer = lp.create_task(async move { awaited.await.map(drop) })?;
    watch(format!("outer {name}"), &outer);
    sleep(lp, 1.0).await?;
    note(lp, format!("cancel outer {name}: {}", py(outer.cancel())));
    if let Err(Error::Cancelled) = outer.await {
        note(lp, format!("outer {name} ended cancelled"));
    }
    Ok(())
}

#[test]
fn test_cancel_awaited() {
    check("test_cancel_awaited", |lp| {
        let l = lp.clone();
        let main = lp
            .create_task(async move {
                let f: Future<u32> = l.create_future();
                let inner = quiet_sleeper(&l, 10);
                let (a, b) = (quiet_sleeper(&l, 10), quiet_sleeper(&l, 20));
                cancel_outer(&l, "on future", f, true).await?;
                cancel_outer(&l, "on task", inner.into(), true).await?;
                let all = gather(&l, [a.clone(), b.clone()]);
                cancel_outer(&l, "on gather", all, false).await?;
                let (a, b) = (py(a.cancelled()), py(b.cancelled()));
                note(&l, format!("gather's children cancelled: {a}, {b}"));
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&main).unwrap();
    });
}

#[test]
fn test_gather_cancel() {
    check("test_gather_cancel", |lp| {
        let l = lp.clone();
        let main = lp
            .create_task(async move {
                let l1 = l.clone();
                let a = l.create_task(async move {
                    sleep(&l1, 1.0).await?;
                    Err::<u32, _>(Error::msg("bad"))
                })?;
                let b = quiet_sleeper(&l, 5);
                let outer = gather(&l, [a, b.clone()]);
                if let Err(error) = outer.clone().await {
                    note(&l, format!("gather failed: {error}"));
                }
                note(
                    &l,
                    format!("cancel the failed gather: {}", py(outer.cancel())),
                );
                note(&l, format!("the other child goes on: {}", b.await?));

                let (c, d) = (quiet_sleeper(&l, 1), quiet_sleeper(&l, 2));
                let outer = gather(&l, [c.clone(), d.clone()]);
                let o = outer.clone();
                let waiting = l.create_task(async move { o.await.map(drop) })?;
                sleep(&l, 0.0).await?;
                let (first, second) = (py(waiting.cancel()), py(waiting.cancel()));
                note(&l, format!("cancel the waiting task: {first}, {second}"));
                note(
                    &l,
                    format!("cancel the gather again: {}", py(outer.cancel())),
                );
                if let Err(Error::Cancelled) = waiting.await {
                    let (c, d) = (py(c.cancelled()), py(d.cancelled()));
                    note(&l, format!("waiting task cancelled; children: {c}, {d}"));
                }
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&main).unwrap();
    });
}

#[test]
fn test_await_future_of_other_loop() {
    check("test_await_future_of_other_loop", |lp| {
        let other = EventLoop::with_clock(lp.clock().clone());
        let l = lp.clone();
        let o = other.clone();
        let main = lp
            .create_task(async move {
                let done: Future<u32> = o.create_future();
                done.set_result(7)?;
                note(
                    &l,
                    format!("a done future of the other loop: {}", done.await?),
                );
                let o2 = o.clone();
                let task = o.create_task(async move { sleep(&o2, 1.0).await })?;
                let awaited: [(&str, Future<()>); 2] = [
                    ("a pending future", o.create_future()),
                    ("a task", task.clone().into()),
                ];
                for (what, awaited) in awaited {
                    note(&l, format!("awaits {what} of the other loop"));
                    if let Err(error) = awaited.await {
                        assert!(matches!(error, Error::ForeignFuture));
                        note(&l, format!("RuntimeError: {error}"));
                    }
                }
                sleep(&l, 1.0).await?;
                note(&l, "slept 1 s on its own loop");
                Ok(task)
            })
            .unwrap();
        let task = lp.run_until_complete(&main).unwrap();
        task.cancel();
        assert!(matches!(
            other.run_until_complete(&task),
            Err(Error::Cancelled)
        ));
        other.close().unwrap();
    });
}

#[test]
fn test_task_awaits_itself() {
    check("test_task_awaits_itself", |lp| {
        let me: Rc<RefCell<Option<Task<u32>>>> = Rc::default();
        let (l, slot) = (lp.clone(), me.clone());
        let task = lp
            .create_task(async move {
                note(&l, "awaits itself");
                let me = slot.borrow_mut().take().expect("set before the first step");
                if let Err(error) = me.await {
                    assert!(matches!(error, Error::AwaitsItself));
                    note(&l, format!("RuntimeError: {error}"));
                }
                sleep(&l, 1.0).await?;
                note(&l, "slept 1 s");
                Ok(5)
            })
            .unwrap();
        *me.borrow_mut() = Some(task.clone());
        note(
            lp,
            format!("result: {}", lp.run_until_complete(&task).unwrap()),
        );
    });
}

#[test]
fn test_run_until_complete_edges() {
    check("test_run_until_complete_edges", |lp| {
        let done: Future<u32> = lp.create_future();
        done.set_result(5).unwrap();
        let start = lp.iteration();
        let result = lp.run_until_complete(&done).unwrap();
        let iterations = lp.iteration() - start;
        note(
            lp,
            format!("done future: {result} after {iterations} iteration"),
        );

        let pending: Future<u32> = lp.create_future();
        lp.stop();
        let error = lp.run_until_complete(&pending).unwrap_err();
        assert!(matches!(error, Error::StoppedBeforeComplete));
        note(lp, format!("stopped first: {error}"));

        let p = pending.clone();
        lp.call_soon(move |lp| {
            let outcomes = [
                ("run_forever", lp.run_forever()),
                ("run_until_complete", lp.run_until_complete(&p).map(drop)),
                ("close", lp.close()),
            ];
            for (what, outcome) in outcomes {
                note(
                    lp,
                    format!("{what} in a callback: {}", outcome.unwrap_err()),
                );
            }
            p.set_result(7).unwrap();
            lp.stop();
            lp.stop();
        })
        .unwrap();
        note(
            lp,
            format!(
                "pending future: {}",
                lp.run_until_complete(&pending).unwrap()
            ),
        );
        lp.call_soon(|lp| note(lp, "runs after the double stop"))
            .unwrap();
        lp.stop();
        lp.run_forever().unwrap();
        let (running, closed) = (py(lp.is_running()), py(lp.is_closed()));
        note(lp, format!("running: {running}, closed: {closed}"));
    });
}

#[test]
fn test_future_edges() {
    check("test_future_edges", |lp| {
        let f: Future<u32> = lp.create_future();
        let callback = |name: &'static str| {
            move |lp: &EventLoop, f: &Future<u32>| {
                note(lp, format!("{name}: {}", f.result().unwrap()))
            }
        };
        let ids = ["a", "b", "c"].map(|name| f.add_done_callback(callback(name)));
        note(lp, format!("removed: {}", f.remove_done_callback(ids[1])));
        let outcomes = [
            ("result", f.result().map(drop)),
            ("exception", f.exception().map(drop)),
        ];
        for (what, outcome) in outcomes {
            let Err(Error::InvalidState(message)) = outcome else {
                panic!("{what}: not InvalidState");
            };
            note(lp, format!("{what} of a pending future: {message}"));
        }
        f.set_result(1).unwrap();
        note(lp, format!("after set_result: {} ready", lp.ready_len()));
        if let Err(Error::InvalidState(_)) = f.set_result(2) {
            note(lp, "second set_result: InvalidStateError");
        }
        note(lp, format!("cancel a done future: {}", py(f.cancel())));
        f.add_done_callback(callback("late"));
        lp.run_until_complete(&f).unwrap();

        let g: Future<u32> = lp.create_future();
        let (first, again) = (py(g.cancel()), py(g.cancel()));
        note(
            lp,
            format!(
                "cancel: {first}, again: {again}, cancelled: {}",
                py(g.cancelled())
            ),
        );
        let outcomes = [
            ("result", g.result().map(drop)),
            ("exception", g.exception().map(drop)),
        ];
        for (what, outcome) in outcomes {
            assert!(matches!(outcome, Err(Error::Cancelled)), "{what}");
            note(lp, format!("{what} of a cancelled future: CancelledError"));
        }

        let ran = lp.call_soon(|lp| note(lp, "ran")).unwrap();
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
        ran.cancel();
        note(
            lp,
            format!("cancelled after it ran: {}", py(ran.cancelled())),
        );
        let timer = lp
            .call_later(0.0, |lp| note(lp, "timer (cancelled while ready)"))
            .unwrap();
        let t = timer.clone();
        lp.call_soon(move |_| t.cancel()).unwrap();
        lp.call_soon(|lp| report(lp, "")).unwrap();
        let never = lp
            .call_later(f64::INFINITY, |lp| note(lp, "never"))
            .unwrap();
        note(lp, format!("when: {:?}, {}", timer.when(), never.when()));
        lp.call_later(1.0, EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
        report(lp, "");
    });
}

#[test]
fn test_run_while_another_loop_runs() {
    check("test_run_while_another_loop_runs", |lp| {
        let other = EventLoop::with_clock(lp.clock().clone());
        let o = other.clone();
        lp.call_soon(move |lp| {
            let done: Future<u32> = o.create_future();
            done.set_result(1).unwrap();
            let outcomes = [
                ("run_forever", o.run_forever()),
                ("run_until_complete", o.run_until_complete(&done).map(drop)),
            ];
            for (what, outcome) in outcomes {
                let error = outcome.unwrap_err();
                assert!(matches!(error, Error::AnotherLoopRunning), "{what}");
                note(lp, format!("{what} of the other loop: {error}"));
            }
            lp.stop();
        })
        .unwrap();
        lp.run_forever().unwrap();
        other
            .call_soon(|o| note(o, "the other loop runs once this one has stopped"))
            .unwrap();
        other.call_soon(EventLoop::stop).unwrap();
        other.run_forever().unwrap();
    });
}

#[test]
fn test_gather_wait_for_other_loop() {
    check("test_gather_wait_for_other_loop", |lp| {
        let other = EventLoop::with_clock(lp.clock().clone());
        let (l, o) = (lp.clone(), other.clone());
        let main = lp
            .create_task(async move {
                let mine: Future<u32> = l.create_future();
                let theirs: Future<u32> = o.create_future();
                let outcomes = [
                    (
                        "gather",
                        gather(&l, [mine.clone(), theirs.clone()]).await.map(drop),
                    ),
                    ("wait_for", wait_for(&l, theirs, 1.0).await.map(drop)),
                ];
                for (what, outcome) in outcomes {
                    let error = outcome.unwrap_err();
                    assert!(matches!(error, Error::DifferentLoop), "{what}: {error}");
                    note(&l, format!("{what}: {error}"));
                }
                note(&l, format!("mine still pending: {}", py(!mine.done())));
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&main).unwrap();
    });
}

#[test]
fn test_wait_for_edges() {
    check("test_wait_for_edges", |lp| {
        let l = lp.clone();
        let main = lp
            .create_task(async move {
                let a = quiet_sleeper(&l, 2);
                match wait_for(&l, a.clone(), 2.0).await {
                    Ok(v) => note(&l, format!("tie, task first: {v}")),
                    Err(_) => note(
                        &l,
                        format!("tie, task first: timeout, cancelled {}", py(a.cancelled())),
                    ),
                }
                let b = quiet_sleeper(&l, 2);
                sleep(&l, 0.0).await?;
                match wait_for(&l, b.clone(), 2.0).await {
                    Ok(v) => note(&l, format!("tie, started: {v}")),
                    Err(_) => note(
                        &l,
                        format!("tie, started: timeout, cancelled {}", py(b.cancelled())),
                    ),
                }
                note(
                    &l,
                    format!("done future, timeout 0: {}", wait_for(&l, b, 0.0).await?),
                );
                let c = quiet_sleeper(&l, 1);
                if let Err(Error::Timeout) = wait_for(&l, c.clone(), -1.0).await {
                    note(
                        &l,
                        format!("negative: timeout, cancelled {}", py(c.cancelled())),
                    );
                }
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&main).unwrap();
    });
}

/// Notes `what` on the loop when dropped: a Rust future's `finally`.
struct Finally(EventLoop, &'static str);

impl Drop for Finally {
    fn drop(&mut self) {
        note(&self.0, self.1);
    }
}

// ANCHOR: timeout_edges
#[test]
fn test_timeout_edges() {
    check("test_timeout_edges", |lp| {
        let l = lp.clone();
        let main = lp
            .create_task(async move {
                match timeout(&l, 1.0, sleep(&l, 1.0)).await {
                    Ok(_) => note(&l, "tie: the sleep"),
                    Err(error) => note(&l, format!("tie: {error}")),
                }
                timeout(&l, 1.0, sleep(&l, 0.5)).await??;
                note(&l, "in time: the sleep");
                let slow = async {
                    let _finally = Finally(l.clone(), "slow: cancelled");
                    sleep(&l, 10.0).await
                };
                if let Err(error) = timeout(&l, 2.0, slow).await {
                    note(&l, format!("too slow: {error}"));
                }
                let f: Future<&str> = l.create_future();
                let done = f.clone();
                l.call_later(1.0, move |_| drop(done.set_result("x")))?;
                match timeout(&l, 1.0, f).await {
                    Ok(x) => note(&l, format!("future due with the deadline: {}", x?)),
                    Err(error) => note(&l, format!("future due with the deadline: {error}")),
                }
                let at_once = timeout(&l, 0.0, async { 7 }).await?;
                note(
                    &l,
                    format!("no time, a coroutine that does not wait: {at_once}"),
                );
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&main).unwrap();
    });
}
// ANCHOR_END: timeout_edges
