//! Build it 6.5, solved: a future and its done callbacks (book chapter 6, "Futures";
//! asyncio's `futures.py`, `Future`, and `tasks.py`, how a Task drives itself: a task waits
//! by adding a callback to a future, and completing the future schedules it). The reference
//! solution of a build-it exercise; the stub is `src/build/ch6.rs`. `tests/build_ch6.rs`
//! runs one program on stage 5's loop with your future and with stage 5's `Future`, on the
//! virtual clock, and compares what ran, in which iteration, at what time.
//!
//! asyncio's rule, which the test checks: completing a future never *calls* its callbacks;
//! it schedules each with `call_soon`, in the order they were added, so they run in a later
//! batch of the loop. A callback added to a future that is already done is scheduled at
//! once, the same way.
//!
//! The loop is stage 5's own. Unlike stage 5's `Future`, this one does not remember its
//! loop: the two methods that schedule take it as an argument.

use std::cell::RefCell;
use std::rc::Rc;

use stage5::{Error, EventLoop};

/// A done callback: handed the loop and the future, once the future is done.
pub type DoneCallback<T> = Box<dyn FnOnce(&EventLoop, &MiniFuture<T>)>;

/// A result that is not there yet, with the callbacks waiting for it. Cloning gives
/// another handle to the same future.
pub struct MiniFuture<T> {
    state: Rc<RefCell<State<T>>>,
}

struct State<T> {
    result: Option<T>,               // `None` while pending
    callbacks: Vec<DoneCallback<T>>, // in the order they were added
}

impl<T> Clone for MiniFuture<T> {
    fn clone(&self) -> Self {
        MiniFuture {
            state: self.state.clone(),
        }
    }
}

impl<T: Clone + 'static> Default for MiniFuture<T> {
    fn default() -> Self {
        MiniFuture::new()
    }
}

impl<T: Clone + 'static> MiniFuture<T> {
    /// A pending future.
    pub fn new() -> MiniFuture<T> {
        MiniFuture {
            state: Rc::new(RefCell::new(State {
                result: None,
                callbacks: Vec::new(),
            })),
        }
    }

    /// True once it has a result.
    pub fn done(&self) -> bool {
        self.state.borrow().result.is_some()
    }

    /// The result: `InvalidState` while it is pending (asyncio's `InvalidStateError`).
    pub fn result(&self) -> Result<T, Error> {
        let state = self.state.borrow();
        state
            .result
            .clone()
            .ok_or(Error::InvalidState("Result is not set."))
    }

    /// Build it 6.5: complete the future with `value` and schedule every done callback.
    ///
    /// A future completes once: if it is done already, fail with
    /// `Error::InvalidState("the future is already done")` and change nothing. Otherwise
    /// store the value, take the callbacks out (all of them: the list is empty
    /// afterwards), and schedule each, in order, with `lp.call_soon`, handing it this
    /// future when it runs. Do not hold the state's borrow while you schedule: a callback
    /// will look at the future.
    pub fn set_result(&self, lp: &EventLoop, value: T) -> Result<(), Error> {
        let callbacks = {
            let mut state = self.state.borrow_mut();
            if state.result.is_some() {
                return Err(Error::InvalidState("the future is already done"));
            }
            state.result = Some(value);
            std::mem::take(&mut state.callbacks)
        }; // the borrow ends here, before anything is scheduled
        for callback in callbacks {
            self.call_soon(lp, callback);
        }
        Ok(())
    }

    /// Schedule `callback` with `call_soon`, handed this future when it runs.
    fn call_soon(&self, lp: &EventLoop, callback: DoneCallback<T>) {
        let me = self.clone();
        // Only a closed loop refuses, and a closed loop runs nothing more.
        let _ = lp.call_soon(move |lp| callback(lp, &me));
    }

    /// Build it 6.5: call `callback` once the future is done, through `lp.call_soon`.
    ///
    /// While the future is pending, add it to the list, behind the others. If the future
    /// is done already, schedule it at once with `lp.call_soon`: it runs in the next batch,
    /// like every other done callback, never inside this call.
    pub fn add_done_callback(
        &self,
        lp: &EventLoop,
        callback: impl FnOnce(&EventLoop, &MiniFuture<T>) + 'static,
    ) {
        if self.done() {
            self.call_soon(lp, Box::new(callback));
        } else {
            self.state.borrow_mut().callbacks.push(Box::new(callback));
        }
    }
}
