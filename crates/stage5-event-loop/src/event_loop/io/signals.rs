//! Signal handlers on the loop: `add_signal_handler` and `remove_signal_handler` (book
//! chapter 7, "Signals"; asyncio's `unix_events.py`:
//! `add_signal_handler`, `remove_signal_handler`).
//!
//! A signal interrupts the program anywhere; the OS-level action may only set a flag and
//! write a byte into the self-pipe (`signal_table.rs`). The handler the program gives here
//! is a repeating handle that the loop's self-pipe reader puts in the ready queue, so it
//! runs on the loop's thread like any callback, in step 5.
//!
//! Deviations from asyncio, each forced by the platform or by signal-hook: two deliveries
//! of one signal before the loop reads them run the handler once (asyncio's bytes would
//! run it twice; the OS itself merges pending signals the same way); signal-hook cannot uninstall its process-wide handler, so
//! removing the last handler of a signal makes an action emulate the default disposition
//! instead (a `SIGINT` then terminates the process, as asyncio's restored
//! `default_int_handler` raises `KeyboardInterrupt`), unless [`hold_signal`] was called
//! for it: then it is ignored. `SIGKILL` and `SIGSTOP` cannot be
//! caught; signal-hook also refuses `SIGILL`, `SIGFPE` and `SIGSEGV`; real-time signals
//! are not supported.
//!
//! What changed since stage 4: stage 4 let a signal kill the process.

use crate::errors::Error;
use crate::event_loop::{EventLoop, Handle};
use crate::io_driver::signal_table::{check_signal, hold};

// ANCHOR: add_signal_handler
impl EventLoop {
    /// Run `callback` on the loop's thread whenever signal `sig` arrives (asyncio's
    /// `add_signal_handler`). A handler already there for `sig` is replaced (its handle
    /// cancelled). Invalid numbers and signals that cannot be caught are errors.
    pub fn add_signal_handler(
        &self,
        sig: i32,
        callback: impl FnMut(&EventLoop) + 'static,
    ) -> Result<Handle, Error> {
        self.check_closed()?;
        check_signal(sig)?;
        let handle = Handle::new_repeating(self.next_handle_id(), callback);
        loop_trace!(self, "add_signal_handler {sig}: {}", handle.trace_id());
        if let Some(old) = self.install_signal_handler(sig, handle.clone())? {
            loop_trace!(
                self,
                "add_signal_handler {sig}: replaces {}",
                old.trace_id()
            );
            old.cancel();
        }
        Ok(handle)
    }
    // ANCHOR_END: add_signal_handler

    /// Stop handling `sig`; true if there was a handler (asyncio's
    /// `remove_signal_handler`). With no loop handling it any more, the signal's default
    /// action applies again.
    pub fn remove_signal_handler(&self, sig: i32) -> Result<bool, Error> {
        check_signal(sig)?;
        Ok(self.uninstall_signal_handler(sig))
    }
}

// ANCHOR: hold_signal
/// Keep `sig` from ending the process for the rest of its life: once no loop handles it
/// (the last one closed, which puts the default action back as asyncio's `close` does), a
/// `sig` that arrives is ignored. For a program that must write its last lines and exit
/// with its own code after its loop has closed: a third Ctrl-C must not end a server that
/// the second one is already stopping. Call it while a loop handles `sig`, so that there
/// is no moment in between. asyncio has no such call; a Python program would set
/// `signal.SIG_IGN` itself once its loop had closed.
pub fn hold_signal(sig: i32) -> Result<(), Error> {
    check_signal(sig)?;
    hold(sig)
}
// ANCHOR_END: hold_signal
