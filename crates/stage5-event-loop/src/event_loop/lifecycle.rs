//! Running, stopping and closing the loop (book chapter 5, "Running, stopping,
//! closing"; asyncio's `base_events.py`: `run_forever`, `stop`, `close`).
//!
//! `run_forever` calls `run_once` until `stop()` was called; `stop` only sets a flag, so
//! the iteration that is running finishes its whole batch first. A loop cannot run twice
//! at once, nor while another loop runs on the same thread, and a running loop cannot be
//! closed. `close` drops whatever is still pending:
//! asyncio's `close` clears the ready queue and the heap; here the tasks that are still
//! pending are also reported, as asyncio reports a task destroyed while pending, so a
//! program that forgot one hears of it.
//!
//! The value `EventLoop::new` returns owns the loop: when it is dropped, the loop is
//! closed, which drops the tasks and callbacks that hold clones of the loop, and with them
//! the cycle that would otherwise keep the loop and its descriptors alive for ever.
//!
//! The loop is made here too (`new`, `with_clock`, `try_with_clock`), from the state
//! `mod.rs` assembles; the guard that marks it running is `running.rs`.
//!
//! What changed since stage 4: stage 4's `run` ended when nothing was left to do; this
//! loop runs until told to stop, and can be run again afterwards.

use std::fmt;
use std::rc::Rc;

use scaffold::{Clock, RealClock};

use crate::errors::Error;
use crate::event_loop::running::Running;
use crate::event_loop::{EventLoop, ExceptionContext, Handle};
use crate::io_driver::io_table::Waiter;
use crate::io_driver::self_pipe::Remote;

impl EventLoop {
    /// A loop on the real clock.
    pub fn new() -> EventLoop {
        EventLoop::with_clock(RealClock::new())
    }

    /// A loop on `clock`.
    ///
    /// # Panics
    ///
    /// If the operating system refuses a selector (epoll/kqueue) or the self-pipe, for
    /// instance because the process is out of file descriptors. [`EventLoop::try_with_clock`]
    /// returns that error instead.
    pub fn with_clock(clock: Rc<dyn Clock>) -> EventLoop {
        EventLoop::try_with_clock(clock).expect("cannot create the event loop")
    }

    /// A loop on `clock`, or the operating system's reason why not: its state
    /// (`mod.rs`), entered in this thread's list of loops (`weak.rs`), its self-pipe
    /// watched (`selector_loop.rs`).
    pub fn try_with_clock(clock: Rc<dyn Clock>) -> Result<EventLoop, Error> {
        let lp = EventLoop::assemble(clock)?;
        lp.live_on_this_thread();
        lp.watch_self_pipe()?;
        Ok(lp)
    }

    // ANCHOR: run_forever
    /// Run the loop until [`EventLoop::stop`] is called.
    pub fn run_forever(&self) -> Result<(), Error> {
        self.check_closed()?;
        let _running = Running::enter(self)?;
        loop_trace!(self, "run_forever");
        loop {
            self.run_once_inner()?;
            if self.inner.state.stopping.get() {
                loop_trace!(self, "stopping: run_forever returns");
                return Ok(());
            }
        }
    }
    // ANCHOR_END: run_forever

    /// Ask the loop to stop: the current iteration finishes (every handle of its batch
    /// runs), then `run_forever` returns. Called before `run_forever`, it makes that
    /// `run_forever` do exactly one iteration.
    pub fn stop(&self) {
        loop_trace!(self, "stop()");
        self.inner.state.stopping.set(true);
    }

    /// True while `run_forever` (or `run_until_complete`, or `run_once`) runs.
    pub fn is_running(&self) -> bool {
        self.inner.state.running.get()
    }

    /// True once `close()` was called.
    pub fn is_closed(&self) -> bool {
        self.inner.state.closed.get()
    }

    // ANCHOR: close
    /// Close the loop: drop every pending handle, timer and task, and stop watching
    /// descriptors and signals. Idempotent. Afterwards `call_*`, `run_*` and
    /// `create_task` fail with [`Error::Closed`]. A running loop cannot be closed.
    ///
    /// Callbacks other threads queued before the close still run, now (a
    /// `call_soon_threadsafe` that returned `Ok` is a promise). Tasks still pending are
    /// destroyed and each is reported to the exception handler: to end them cleanly,
    /// cancel them and run the loop until they are done first (what [`run`](crate::run)
    /// does).
    pub fn close(&self) -> Result<(), Error> {
        if self.inner.state.running.get() {
            return Err(Error::CloseRunning);
        }
        if self.inner.state.closed.get() {
            return Ok(());
        }
        loop_trace!(self, "close()");
        // Chapter 10: a proactor's operations in flight end first (asyncio's
        // `BaseProactorEventLoop.close` closes its proactor before the base loop closes).
        let proactor = self.inner.io.proactor();
        if let Some(proactor) = proactor {
            proactor.close();
        }
        for item in self.inner.io.remote().close() {
            if let Remote::Call(callback) = item {
                self.run_handle(&Handle::new(self.next_handle_id(), None, callback));
            }
        }
        self.inner.state.closed.set(true);
        // Take everything out first, then drop it: dropping a task's future may run code
        // that looks at the loop again (a `sleep` cancels its timer), and must not find a
        // collection still borrowed.
        let ready = std::mem::take(&mut *self.inner.core.ready.borrow_mut());
        let timers = self.inner.core.scheduled.borrow_mut().take_all();
        let tasks = self.inner.tasks.borrow_mut().take_all();
        let steps = self.clear_step_handles();
        let waiters = self.inner.io.clear();
        for task in &tasks {
            self.call_exception_handler(&ExceptionContext {
                message: "Task was destroyed but it is pending!".into(),
                task: Some(format!("<Task t{} pending>", task.id())),
                ..ExceptionContext::default()
            });
        }
        // A caller may still hold a handle: its callback goes now, not with the handle, or
        // what it captured outlives the loop (in Python, a cycle nobody can collect).
        let readers = waiters.iter().filter_map(|waiter| match waiter {
            Waiter::Callback(handle) => Some(handle),
            Waiter::Task(_) => None,
        });
        ready
            .iter()
            .chain(&timers)
            .chain(readers)
            .for_each(Handle::drop_callback);
        drop((ready, timers, tasks, steps, waiters));
        Ok(())
    }
    // ANCHOR_END: close
}

// ANCHOR: owner
impl Clone for EventLoop {
    fn clone(&self) -> Self {
        EventLoop {
            inner: self.inner.clone(),
            owner: false,
        }
    }
}

impl Drop for EventLoop {
    fn drop(&mut self) {
        if self.owner && !self.inner.state.running.get() {
            // Closing a loop that is not running cannot fail.
            let _ = self.close();
        }
    }
}
// ANCHOR_END: owner

impl Default for EventLoop {
    fn default() -> Self {
        EventLoop::new()
    }
}

impl fmt::Debug for EventLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "<EventLoop running={} closed={} debug={}>",
            self.is_running(),
            self.is_closed(),
            self.get_debug()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;
    use std::cell::RefCell;
    use std::os::fd::AsRawFd;
    use std::rc::Rc;

    #[test]
    fn running_twice_and_closing_while_running_are_errors() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        lp.call_soon(move |lp| {
            s.borrow_mut()
                .push(lp.run_forever().unwrap_err().to_string());
            s.borrow_mut().push(lp.run_once().unwrap_err().to_string());
            s.borrow_mut().push(lp.close().unwrap_err().to_string());
            assert!(lp.is_running());
            lp.stop();
        })
        .unwrap();
        lp.run_forever().unwrap();
        assert_eq!(
            *seen.borrow(),
            [
                "This event loop is already running",
                "This event loop is already running",
                "Cannot close a running event loop"
            ]
        );
        assert!(!lp.is_running());
    }

    #[test]
    fn closing_drops_the_callbacks_of_handles_their_callers_still_hold() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let captured = Rc::new(());
        let (a, b, c) = (captured.clone(), captured.clone(), captured.clone());
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let held = (
            lp.call_soon(move |_| drop(a)).unwrap(),
            lp.call_later(60.0, move |_| drop(b)).unwrap(),
            lp.add_reader(ours.as_raw_fd(), move |_| assert!(Rc::strong_count(&c) > 1))
                .unwrap(),
        );
        assert_eq!(Rc::strong_count(&captured), 4);
        lp.close().unwrap();
        assert_eq!(Rc::strong_count(&captured), 1);
        assert!(!held.0.cancelled() && !held.2.cancelled()); // dropped, not cancelled
        drop((held, theirs));
    }

    #[test]
    fn the_debug_repr_is_asyncios() {
        assert_eq!(
            format!("{:?}", EventLoop::with_clock(VirtualClock::new())),
            "<EventLoop running=false closed=false debug=false>"
        );
    }
}
