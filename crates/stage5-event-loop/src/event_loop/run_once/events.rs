//! Step 3's second half: the events (book chapter 7, "Readers and writers on a selector"
//! and "Threads"; "Going further", "One iteration"; asyncio's `_process_events`, and the
//! handles `call_soon_threadsafe` appends to `_ready`).
//!
//! asyncio's `call_soon_threadsafe` appends its handle to the ready queue at once, from the
//! other thread (the GIL makes that safe), and writes a byte to wake the loop. Rust's loop
//! is not shared with other threads: they leave their work in the remote queue, which this
//! step drains first, on the loop's thread. Then the selector's events: the handles of
//! readers and writers go to the ready queue, and waiting tasks are woken.
//!
//! A busy loop's iteration usually has neither, and then this step costs one atomic load
//! (anything in the remote queue?) and one comparison (no events): no lock, no borrow.
//! That is "Going further"'s business, not asyncio's, and it changes no order.
//!
//! What changed since stage 4: stage 4's events each resumed the one task that waited, and
//! no other thread could reach its scheduler.

use scaffold::Event;

use crate::event_loop::{EventLoop, Handle};
use crate::io_driver::self_pipe::Remote;

impl EventLoop {
    // ANCHOR: process_events
    /// Step 3, second half: first what other threads queued (asyncio put it in the ready
    /// queue when they called), then a proactor's completions (chapter 10), then the
    /// selector's events: readers' and writers' handles to the ready queue, waiting tasks
    /// woken (chapter 7).
    pub(super) fn process_events(&self, events: usize) {
        self.take_remote_calls();
        if events == 0 {
            return;
        }
        let mut buffers = self.dispatch_buffers(); // kept from one iteration to the next
        let (handles, wakers) = &mut *buffers;
        self.inner.io.process_events(handles, wakers); // a proactor's too (chapter 10)
        for (fd, interest, handle) in handles.drain(..) {
            let (interest, id) = (interest.name(), handle.trace_id());
            self.push_ready(handle);
            loop_event!(self, Event::IoReady { fd, interest, id });
        }
        for waker in wakers.drain(..) {
            waker.wake();
        }
    }
    // ANCHOR_END: process_events

    /// Move what other threads queued to the ready queue now, in their order. Step 3 does
    /// it; a host that must keep asyncio's order (a `call_soon_threadsafe` made before a
    /// `call_soon` runs before it, as asyncio appends it to `_ready` at once) calls it
    /// before each `call_soon`: one atomic load when nothing is queued, inlined (the
    /// draining is out of line: a call with a frame cost more than the load).
    #[inline]
    pub fn take_remote_calls(&self) {
        if self.inner.io.remote().pending() {
            self.run_remote_calls();
        }
    }

    /// Run what other threads queued, in their order.
    #[inline(never)]
    fn run_remote_calls(&self) {
        for item in self.inner.io.remote().take() {
            self.run_remote(item);
        }
    }

    /// What another thread left: a callback goes to the ready queue; a task's waker is
    /// woken again here, on the loop's thread, where it schedules the task's step.
    fn run_remote(&self, item: Remote<EventLoop>) {
        match item {
            Remote::Call(callback) => {
                let handle = Handle::new(self.next_handle_id(), None, callback);
                let id = handle.trace_id();
                loop_trace!(self, "call_soon_threadsafe: {id} from another thread");
                self.push_ready(handle);
                loop_event!(self, Event::CallSoon { id });
            }
            Remote::Wake(waker) => waker.wake(),
        }
    }
}
