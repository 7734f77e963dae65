//! Running a future to completion: `run_until_complete` and `run` (book chapter 5,
//! "Running, stopping, closing", and chapter 6, "asyncio.run"; asyncio's
//! `run_until_complete` in `base_events.py`, and `runners.py`).
//!
//! asyncio's `run_until_complete(future)` adds a done callback to the future that stops the
//! loop, runs the loop forever, and returns the future's result. If something else stopped
//! the loop first, the future is not done, and that is an error.
//!
//! `asyncio.run(main)` is where every asyncio program starts: a new loop; `main` as a task,
//! run to completion; then every task still pending is cancelled and the loop runs until
//! they have all finished, those that failed are reported to the exception handler, and
//! the loop is closed. [`run`] does the same; `main` receives the loop, since Rust code has
//! no `get_running_loop()` to ask.
//!
//! What changed since stage 4: stage 4's `run` ended when nothing was left to do; here the
//! program says what it waits for.

use std::cell::Cell;
use std::rc::Rc;

use scaffold::Clock;

use crate::errors::Error;
use crate::event_loop::{EventLoop, ExceptionContext};
use crate::futures::future::Future;

impl EventLoop {
    // ANCHOR: run_until_complete
    /// Run the loop until `future` is done; return its result. A [`Task`](crate::Task)
    /// derefs to its future, so `run_until_complete(&task)` works too. A future of
    /// another loop is refused ([`Error::DifferentLoop`]): its done callback would stop
    /// the other loop, and this one would wait for ever.
    pub fn run_until_complete<T: Clone + 'static>(&self, future: &Future<T>) -> Result<T, Error> {
        self.check_closed()?;
        self.check_running()?;
        if !future.belongs_to(self) {
            return Err(Error::DifferentLoop);
        }
        // asyncio's `_run_until_complete_cb`: when the future is done, stop the loop.
        let stopper = future.add_done_callback(|lp, _| lp.stop());
        let ran = self.run_forever();
        future.remove_done_callback(stopper);
        ran?;
        if !future.done() {
            return Err(Error::StoppedBeforeComplete);
        }
        future.result()
    }
    // ANCHOR_END: run_until_complete
}

// ANCHOR: run
/// asyncio's `asyncio.run(main)`: a new loop on `clock`; `main(&loop)` as a task, run to
/// completion; then the tasks still pending are cancelled and run until they end (those
/// that fail are reported), and the loop is closed, leaving no descriptor open. Returns
/// what `main` returned, or its error.
pub fn run<F, T>(clock: Rc<dyn Clock>, main: impl FnOnce(&EventLoop) -> F) -> Result<T, Error>
where
    F: std::future::Future<Output = Result<T, Error>> + 'static,
    T: Clone + 'static,
{
    let lp = EventLoop::try_with_clock(clock)?;
    // asyncio.run "cannot be called from a running event loop": say so before `main` runs.
    lp.check_running()?;
    let task = lp.create_task(main(&lp));
    let outcome = task.and_then(|task| lp.run_until_complete(&task));
    let shutdown = lp.cancel_all_tasks();
    lp.close()?;
    let output = outcome?;
    shutdown?;
    Ok(output)
}
// ANCHOR_END: run

impl EventLoop {
    /// asyncio's `_cancel_all_tasks`: cancel every pending task, run the loop until each
    /// has ended, and report those that ended with an error rather than cancelled.
    fn cancel_all_tasks(&self) -> Result<(), Error> {
        let pending = self.inner.tasks.borrow().all();
        if pending.is_empty() {
            return Ok(());
        }
        loop_trace!(self, "run: cancel {} pending tasks", pending.len());
        // `run_until_complete(gather(*to_cancel, return_exceptions=True))`: a future done
        // when every one of them is, whatever their outcome.
        let all_done = self.create_future::<()>();
        let remaining = Rc::new(Cell::new(pending.len()));
        for task in &pending {
            let (all_done, remaining) = (all_done.clone(), remaining.clone());
            task.when_done(Box::new(move |_| {
                remaining.set(remaining.get() - 1);
                if remaining.get() == 0 {
                    all_done.set_result_unless_done(());
                }
            }));
            task.clone().cancel();
        }
        self.run_until_complete(&all_done)?;
        for task in &pending {
            if let Some(error) = task.exception() {
                self.call_exception_handler(&ExceptionContext {
                    message: "unhandled exception during asyncio.run() shutdown".into(),
                    exception: Some(error),
                    task: Some(format!("<Task t{} finished with an exception>", task.id())),
                    handle: None,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;
    use std::cell::RefCell;

    #[test]
    fn run_inside_a_running_loop_is_refused_before_it_starts_anything() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let logged = Rc::new(RefCell::new(Vec::<String>::new()));
        let outcome = Rc::new(RefCell::new(None));
        let (l, o) = (logged.clone(), outcome.clone());
        lp.call_soon(move |lp| {
            let called = Rc::new(Cell::new(false));
            let c = called.clone();
            let result = run(VirtualClock::new(), move |inner| {
                c.set(true);
                let log = l.clone();
                inner.set_logger(move |_, _, line| log.borrow_mut().push(line.into()));
                async { Ok(1) }
            });
            *o.borrow_mut() = Some((result.map_err(|e| e.to_string()), called.get()));
            lp.stop();
        })
        .unwrap();
        lp.run_forever().unwrap();
        let expected = "Cannot run the event loop while another loop is running";
        assert_eq!(*outcome.borrow(), Some((Err(expected.into()), false)));
        assert!(logged.borrow().is_empty(), "{:?}", logged.borrow());
    }
}
