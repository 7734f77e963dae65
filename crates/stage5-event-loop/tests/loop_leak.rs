//! A loop dropped without `close()` frees itself, descriptors and all, even when its tasks
//! and timers hold clones of it (book, "How it fails"). A test binary of its own: it counts
//! the descriptors of the whole process.

// It reads `/proc`, which only Linux has.
#![cfg(target_os = "linux")]

use stage5::{Error, EventLoop, VirtualClock, sleep};

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// A loop whose task and timer capture clones of it: the cycle loop -> task -> loop.
fn a_loop_that_captures_itself() -> EventLoop {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let l = lp.clone();
    lp.create_task(async move { sleep(&l, 100.0).await })
        .unwrap();
    let l = lp.clone();
    lp.call_later(50.0, move |_| drop(l)).unwrap();
    lp.run_once().unwrap();
    lp
}

#[test]
fn a_hundred_loops_dropped_without_close_leave_no_descriptor_behind() {
    drop(a_loop_that_captures_itself()); // whatever is made once per process
    let before = open_fds();
    for _ in 0..100 {
        drop(a_loop_that_captures_itself());
    }
    assert_eq!(
        open_fds(),
        before,
        "each loop left its epoll and self-pipe open"
    );
    a_clone_outliving_its_owner_finds_the_loop_closed();
}

/// Part of the test above (one test at a time counts the process's descriptors).
fn a_clone_outliving_its_owner_finds_the_loop_closed() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let clone = lp.clone();
    drop(lp);
    assert!(clone.is_closed());
    assert!(matches!(clone.call_soon(|_| {}), Err(Error::Closed)));
}
