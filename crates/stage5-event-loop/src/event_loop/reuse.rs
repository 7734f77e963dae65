//! What the loop keeps and uses again instead of allocating it anew ("Going further",
//! "An echo, message by message": a handle per wake-up, a copy per `sock_recv`; book
//! chapter 6, "Tasks", where a waker schedules a task's step; asyncio's `Task.__wakeup`,
//! whose `call_soon(self.__step)` makes a new `Handle` at every wake-up).
//!
//! None of it changes what asyncio does, only what it costs:
//!
//! - a task's step is queued with a handle whose last run is over, renumbered as
//!   `call_soon` numbers, so the trace is the same and a wake-up allocates nothing;
//! - step 3's two dispatch buffers (readers' handles, tasks' wakers) keep their capacity
//!   from one iteration to the next;
//! - `sock_recv` reads into one scratch buffer per loop and copies out what came, so an
//!   idle connection holds no buffer at all.
//!
//! Chapter 5's state (`mod.rs`) holds all three in one field, `reuse`; this module is the
//! only one that looks inside.
//!
//! What changed since stage 4: stage 4 boxed a new closure for every `call_soon`, a task's
//! wake-ups included, and its echo server kept a 64 KiB buffer per connection.

use std::cell::{RefCell, RefMut};
use std::rc::Rc;
use std::task::Waker;

use scaffold::{Event, Id};

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::events::handle::{Call, Reused};
use crate::io_driver::io_table::Ready;
use crate::parts::registry::Step;

/// What the loop keeps for reuse: the `reuse` field of its state.
#[derive(Default)]
pub(super) struct Reuse {
    steps: RefCell<Reused<EventLoop, dyn Step<EventLoop>>>, // tasks' step handles
    events: RefCell<Events>,                                // step 3's dispatch buffers
    scratch: RefCell<Vec<u8>>,                              // `sock_recv` reads here first
}

/// Step 3's dispatch buffers: the readers' and writers' handles, the tasks' wakers.
pub(super) type Events = (Vec<Ready<EventLoop>>, Vec<Waker>);

impl EventLoop {
    // ANCHOR: call_soon_step
    /// `call_soon` of `task`'s next step, with a handle used again: the handle's number and
    /// the trace are `call_soon`'s, and no allocation is made once the loop has as many
    /// handles as it ever queued at once.
    #[inline]
    pub(crate) fn call_soon_step(&self, task: Rc<dyn Step<EventLoop>>) -> Result<(), Error> {
        self.check_closed()?;
        let id = self.next_handle_id();
        let handle = self.inner.reuse.steps.borrow_mut().handle(id, task);
        self.push_ready(handle);
        let id = Id::Callback(id);
        loop_event!(self, Event::CallSoon { id }, self.queues());
        Ok(())
    }
    // ANCHOR_END: call_soon_step

    /// Forget the step handles (the loop closes); returns the tasks the queued ones would
    /// have stepped, for the caller to drop once no borrow is held.
    pub(super) fn clear_step_handles(&self) -> Vec<Rc<dyn Step<EventLoop>>> {
        self.inner.reuse.steps.borrow_mut().clear()
    }

    /// Step 3's dispatch buffers, empty between iterations and kept for their capacity.
    pub(super) fn dispatch_buffers(&self) -> RefMut<'_, Events> {
        self.inner.reuse.events.borrow_mut()
    }

    // ANCHOR: scratch
    /// Run `read` on the loop's scratch buffer, at least `nbytes` long and cut to exactly
    /// `nbytes`: `sock_recv` reads there, so an idle connection holds no buffer.
    #[inline]
    pub(crate) fn with_scratch<T>(&self, nbytes: usize, read: impl FnOnce(&mut [u8]) -> T) -> T {
        let mut scratch = self.inner.reuse.scratch.borrow_mut();
        if scratch.len() < nbytes {
            scratch.resize(nbytes, 0);
        }
        read(&mut scratch[..nbytes])
    }
    // ANCHOR_END: scratch
}

/// What a task's reused step handle calls: the task's step.
impl Call<EventLoop> for dyn Step<EventLoop> {
    fn call(self: Rc<Self>, lp: &EventLoop) {
        self.step(lp);
    }
}
