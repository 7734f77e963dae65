//! Signal handlers on the loop: `add_signal_handler` and `remove_signal_handler` (book
//! chapter 7, "Signals"; seeds 000/004, "信号处理", asyncio's `unix_events.py`:
//! `add_signal_handler`, `_handle_signal`, `signal.set_wakeup_fd`).
//!
//! A signal handler interrupts the program anywhere, even inside `malloc`; it may only make
//! async-signal-safe calls, which rules out nearly everything, the loop's queues included.
//! asyncio's trick: the C-level handler only writes the signal's number as a byte into the
//! self-pipe (`signal.set_wakeup_fd`), which wakes the loop; `_read_from_self` reads the
//! numbers and queues each registered Python handler with `call_soon`, to run on the loop's
//! thread like any callback.
//!
//! We do the same with `signal-hook`'s *safe* registration functions, so no `unsafe` here.
//! Its `pipe::register_raw` installs an action that `send`s one byte (always the letter
//! `X`, not the signal's number) to a descriptor; `flag::register` one that stores `true`
//! in an `AtomicBool`. Both are async-signal-safe: an atomic store and one `send` with
//! `MSG_DONTWAIT`, and signal-hook runs the actions of one signal in the order they were
//! registered. So each handled signal gets a flag, then a byte: the byte wakes the loop,
//! the flag says which signal it was. `read_from_self` drains the bytes and queues the
//! handler of every signal whose flag it finds set.
//!
//! Deviations: two deliveries of one signal before the loop reads them run the handler
//! once (asyncio's bytes would run it twice; the OS itself merges pending signals the same
//! way); signal-hook cannot uninstall its process-wide handler, so removing the last
//! handler of a signal makes an action emulate the default disposition instead (a
//! `SIGINT` then terminates the process, as asyncio's restored `default_int_handler`
//! raises `KeyboardInterrupt`). `SIGKILL` and `SIGSTOP` cannot be caught; signal-hook also
//! refuses `SIGILL`, `SIGFPE` and `SIGSEGV`; real-time signals are not supported.

use std::collections::{BTreeMap, HashMap};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use signal_hook::SigId;
use signal_hook::consts::FORBIDDEN;
use signal_hook::low_level;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::handle::Handle;

/// One signal this loop handles.
pub(crate) struct SignalHandler {
    handle: Handle,
    arrived: Arc<AtomicBool>, // set by the OS-level action
    actions: [SigId; 2],      // the flag's and the byte's
}

/// Per signal, how many loops handle it, and the flag that, when no loop does, makes
/// signal-hook's handler run the signal's default action.
type Defaults = Mutex<HashMap<i32, (usize, Arc<AtomicBool>)>>;

fn defaults() -> &'static Defaults {
    static DEFAULTS: OnceLock<Defaults> = OnceLock::new();
    DEFAULTS.get_or_init(Default::default)
}

/// asyncio's `_check_signal`, and the signals that cannot be caught.
fn check_signal(sig: i32) -> Result<(), Error> {
    if low_level::signal_name(sig).is_none() {
        return Err(Error::InvalidSignal(sig));
    }
    if FORBIDDEN.contains(&sig) {
        return Err(Error::UncatchableSignal(sig));
    }
    Ok(())
}

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
        let mut signals = self.inner.signals.borrow_mut();
        if let Some(old) = signals.get_mut(&sig) {
            loop_trace!(
                &self.inner,
                "add_signal_handler {sig}: replaces {}",
                old.handle
            );
            old.handle.cancel();
            old.handle = handle.clone();
            return Ok(handle);
        }
        let arrived = Arc::new(AtomicBool::new(false));
        let pipe = OwnedFd::from(self.inner.shared.write_end().try_clone()?);
        let flag = signal_hook::flag::register(sig, arrived.clone())?;
        let byte = match signal_hook::low_level::pipe::register_raw(sig, pipe) {
            Ok(id) => id,
            Err(error) => {
                low_level::unregister(flag);
                return Err(error.into());
            }
        };
        let mut defaults = defaults().lock().unwrap_or_else(|p| p.into_inner());
        if let Some((users, default)) = defaults.get_mut(&sig) {
            *users += 1;
            default.store(false, Ordering::SeqCst);
        } else {
            // Registered once per process, before any loop's action for `sig`, and off
            // while some loop handles the signal.
            let default = Arc::new(AtomicBool::new(false));
            signal_hook::flag::register_conditional_default(sig, default.clone())?;
            defaults.insert(sig, (1, default));
        }
        loop_trace!(&self.inner, "add_signal_handler {sig}: {handle}");
        signals.insert(
            sig,
            SignalHandler {
                handle: handle.clone(),
                arrived,
                actions: [flag, byte],
            },
        );
        Ok(handle)
    }

    /// Stop handling `sig`; true if there was a handler (asyncio's
    /// `remove_signal_handler`). With no loop handling it any more, the signal's default
    /// action applies again.
    pub fn remove_signal_handler(&self, sig: i32) -> Result<bool, Error> {
        check_signal(sig)?;
        let removed = self.inner.signals.borrow_mut().remove(&sig);
        Ok(removed.map(|handler| release(sig, handler)).is_some())
    }
}
// ANCHOR_END: add_signal_handler

/// Unregister a handler's OS-level actions (closing its copy of the pipe's write end);
/// with no loop left handling `sig`, turn the default action back on.
fn release(sig: i32, handler: SignalHandler) {
    handler.handle.cancel();
    for id in handler.actions {
        low_level::unregister(id);
    }
    let mut defaults = defaults().lock().unwrap_or_else(|p| p.into_inner());
    if let Some((users, default)) = defaults.get_mut(&sig) {
        *users = users.saturating_sub(1);
        if *users == 0 {
            default.store(true, Ordering::SeqCst);
        }
    }
}

/// Unregister every handler of a loop that closes.
pub(crate) fn release_all(signals: BTreeMap<i32, SignalHandler>) {
    for (sig, handler) in signals {
        release(sig, handler);
    }
}

// ANCHOR: queue_signal_handlers
/// Part of `read_from_self`: queue the handler of every signal that arrived (asyncio's
/// `_handle_signal`). A cancelled handler is removed instead.
pub(crate) fn queue_signal_handlers(lp: &EventLoop) {
    let mut due = Vec::new();
    let mut cancelled = Vec::new();
    for (&sig, handler) in lp.inner.signals.borrow().iter() {
        if handler.arrived.swap(false, Ordering::SeqCst) {
            if handler.handle.cancelled() {
                cancelled.push(sig);
            } else {
                loop_trace!(&lp.inner, "signal {sig}: queue {}", handler.handle);
                due.push(handler.handle.clone());
            }
        }
    }
    for sig in cancelled {
        let _ = lp.remove_signal_handler(sig);
    }
    for handle in due {
        lp.push_ready(handle);
    }
}
// ANCHOR_END: queue_signal_handlers
