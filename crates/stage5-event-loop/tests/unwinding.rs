//! A loop dropped while a panic unwinds still reports what it drops (book chapter 5, "When
//! a callback fails").
//!
//! The loop catches panics with `errors::catch`, which puts a quiet panic hook in place the
//! first time it runs in the process. Setting a hook from a thread that is panicking is
//! itself a panic, and a panic inside a destructor during unwinding aborts the process. So
//! this binary holds this one test: nothing else may call `catch` first.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use stage5::{EventLoop, VirtualClock};

#[test]
fn a_loop_dropped_by_a_panic_reports_its_pending_task_and_the_panic_goes_on() {
    let logged = Rc::new(RefCell::new(Vec::new()));
    let lp = EventLoop::with_clock(VirtualClock::new());
    let log = logged.clone();
    lp.set_logger(move |_, level, message| log.borrow_mut().push(format!("{level}: {message}")));
    let task = lp.create_task(async { Ok(()) }).unwrap();
    let outcome = panic::catch_unwind(AssertUnwindSafe(move || {
        let _owner = lp; // dropped while the panic unwinds: closes the loop
        panic!("the caller's own panic");
    }));
    let payload = outcome.expect_err("the panic reaches catch_unwind");
    assert_eq!(
        payload.downcast_ref::<&str>(),
        Some(&"the caller's own panic")
    );
    assert!(!task.done());
    assert_eq!(
        *logged.borrow(),
        ["ERROR: Task was destroyed but it is pending!\ntask: <Task t1 pending>"]
    );
}
