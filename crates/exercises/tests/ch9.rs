//! Chapter 9's exercises: each test fails on the stub in `src/ch9.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 9.1`
//! (or `cargo test -p exercises --test ch9 -- --ignored ex9_1`). No Python: the callbacks
//! are Rust closures that say what they raised. The loop runs on the virtual clock, every
//! test is bounded by counts, and a far timer stops a loop that would wait for ever.

// Your code, compiled into this test alone (`src/ch9.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch9.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch9.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch9;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use ch9::{Core, Raised};
use exercises::assert_yours;
use stage5::{EventLoop, VirtualClock};

fn vloop() -> EventLoop {
    let lp = EventLoop::with_clock(VirtualClock::new());
    // A watchdog on the virtual clock: a loop with nothing else to do jumps to it.
    lp.call_later(1e6, |lp| lp.stop()).unwrap();
    lp
}

/// A loop whose exception handler notes each message it gets.
fn noting_handler(lp: &EventLoop) -> Rc<RefCell<Vec<String>>> {
    let told = Rc::new(RefCell::new(Vec::new()));
    let note = told.clone();
    lp.set_exception_handler(Some(Rc::new(move |_, context| {
        note.borrow_mut().push(context.message.clone());
    })));
    told
}

#[test]
#[ignore = "exercise 9.1: a callback's exception, sorted"]
fn ex9_1_only_system_exit_and_keyboard_interrupt_leave_run_forever() {
    let lp = vloop();
    let told = noting_handler(&lp);
    let core = Core::new(&lp);
    let ran = Rc::new(RefCell::new(Vec::new()));
    let callbacks: [(&'static str, Option<Raised>); 4] = [
        ("a", Some(Raised::Exception("ValueError('a')".into()))),
        ("b", Some(Raised::BaseException("CancelledError()".into()))),
        ("c", Some(Raised::BaseException("Custom('c')".into()))),
        ("d", None),
    ];
    for (name, raises) in callbacks {
        let ran = ran.clone();
        core.call_soon(name, move || {
            ran.borrow_mut().push(name);
            raises.map_or(Ok(()), Err)
        })
        .unwrap();
    }
    // Nothing of the four leaves `run_forever`: the loop goes on to a `stop()` of its own.
    core.call_soon("stop", {
        let lp = lp.clone();
        move || {
            lp.stop();
            Ok(())
        }
    })
    .unwrap();
    let first = core.run_forever();
    assert_yours!(
        ran.borrow().clone(),
        ["a", "b", "c", "d"],
        "the callbacks that ran"
    );
    assert_yours!(
        told.borrow().clone(),
        [
            "Exception in callback a: ValueError('a')",
            "Exception in callback b: CancelledError()",
            "Exception in callback c: Custom('c')",
        ],
        "what the exception handler was told"
    );
    assert_yours!(first, Ok(()), "what run_forever returned");

    // A `KeyboardInterrupt` does leave it, and the handler hears nothing of it.
    core.call_soon("e", || Err(Raised::KeyboardInterrupt))
        .unwrap();
    let second = core.run_forever();
    assert_yours!(
        second,
        Err(Raised::KeyboardInterrupt),
        "what run_forever returned"
    );
    assert_yours!(
        told.borrow().len(),
        3,
        "the messages the handler got in all"
    );
}

#[test]
#[ignore = "exercise 9.2: `call_soon_threadsafe`'s order"]
fn ex9_2_a_threadsafe_call_made_first_runs_first() {
    let lp = vloop();
    let ran = Arc::new(Mutex::new(Vec::new()));
    // Another thread asks first, and is done before this thread asks.
    let remote = lp.threadsafe();
    let theirs = ran.clone();
    std::thread::spawn(move || {
        remote
            .call_soon_threadsafe(move |_| theirs.lock().unwrap().push("call_soon_threadsafe"))
            .unwrap();
    })
    .join()
    .unwrap();
    let ours = ran.clone();
    ch9::call_soon(&lp, move |lp| {
        ours.lock().unwrap().push("call_soon");
        lp.stop();
    })
    .unwrap();
    // Both are in the ready queue of the same iteration, whichever order they run in.
    lp.run_forever().unwrap();
    assert_yours!(
        ran.lock().unwrap().clone(),
        ["call_soon_threadsafe", "call_soon"],
        "the order the two callbacks ran in"
    );
}
