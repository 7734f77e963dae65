//! The loop's table of signal handlers and their OS-level actions (book chapter 7,
//! "Signals"; asyncio's `unix_events.py`: `add_signal_handler`,
//! `_handle_signal`, `signal.set_wakeup_fd`).
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
//! the flag says which signal it was. The loop's self-pipe reader drains the bytes and
//! queues the handler of every signal whose flag [`SignalTable::arrived`] finds set.
//!
//! Generic over the loop `L` of the handlers; the loop's face (`signals.rs`) is above. Where
//! this differs from asyncio (merged deliveries, the default disposition emulated, the
//! signals that cannot be handled) is listed once, in `signals.rs`.

use std::collections::{BTreeMap, HashMap};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use signal_hook::SigId;
use signal_hook::consts::FORBIDDEN;
use signal_hook::low_level;
use socket2::Socket;

use crate::errors::Error;
use crate::events::handle::Handle;

/// One signal a loop handles.
struct SignalHandler<L> {
    handle: Handle<L>,
    arrived: Arc<AtomicBool>, // set by the OS-level action
    actions: [SigId; 2],      // the flag's and the byte's
}

/// The signals one loop handles, by number.
pub struct SignalTable<L> {
    handlers: BTreeMap<i32, SignalHandler<L>>,
}

impl<L> Default for SignalTable<L> {
    fn default() -> Self {
        SignalTable {
            handlers: BTreeMap::new(),
        }
    }
}

/// Per signal, how many loops handle it, and the flag that, when no loop does, makes
/// signal-hook's handler run the signal's default action.
type Defaults = Mutex<HashMap<i32, (usize, Arc<AtomicBool>)>>;

fn defaults() -> MutexGuard<'static, HashMap<i32, (usize, Arc<AtomicBool>)>> {
    static DEFAULTS: OnceLock<Defaults> = OnceLock::new();
    // A panic while holding the lock left a consistent map (each change is one insert or
    // one counter update): go on with it.
    DEFAULTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// asyncio's `_check_signal`, and the signals that cannot be caught.
pub fn check_signal(sig: i32) -> Result<(), Error> {
    if low_level::signal_name(sig).is_none() {
        return Err(Error::InvalidSignal(sig));
    }
    if FORBIDDEN.contains(&sig) {
        return Err(Error::UncatchableSignal(sig));
    }
    Ok(())
}

/// Count `sig` as handled until the process exits, as if by a loop that never closes: once
/// no loop handles it, the OS-level action ignores it instead of emulating its default.
/// The caller checked `sig` ([`check_signal`]).
pub fn hold(sig: i32) -> Result<(), Error> {
    default_off(sig) // a user never taken back
}

/// One more user of `sig` (a loop's handler, or a hold): its default action off until the
/// last user lets go ([`release`]). The action that runs the default is registered once
/// per process, before any loop's action for `sig`, and off while some user is there.
fn default_off(sig: i32) -> Result<(), Error> {
    let mut defaults = defaults();
    if let Some((users, default)) = defaults.get_mut(&sig) {
        *users += 1;
        default.store(false, Ordering::SeqCst);
    } else {
        let default = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register_conditional_default(sig, default.clone())?;
        defaults.insert(sig, (1, default));
    }
    Ok(())
}

impl<L> SignalTable<L> {
    // ANCHOR: add
    /// Handle `sig` with `handle`: a handler already there is replaced (and returned);
    /// otherwise the OS-level actions are installed: a flag, then a byte into `pipe`. The
    /// caller checked `sig` ([`check_signal`]).
    pub fn add(
        &mut self,
        sig: i32,
        handle: Handle<L>,
        pipe: Socket,
    ) -> Result<Option<Handle<L>>, Error> {
        if let Some(old) = self.handlers.get_mut(&sig) {
            return Ok(Some(std::mem::replace(&mut old.handle, handle)));
        }
        let arrived = Arc::new(AtomicBool::new(false));
        let flag = signal_hook::flag::register(sig, arrived.clone())?;
        let byte = match low_level::pipe::register_raw(sig, OwnedFd::from(pipe)) {
            Ok(id) => id,
            Err(error) => {
                low_level::unregister(flag);
                return Err(error.into());
            }
        };
        default_off(sig)?;
        let actions = [flag, byte];
        self.handlers.insert(
            sig,
            SignalHandler {
                handle,
                arrived,
                actions,
            },
        );
        Ok(None)
    }
    // ANCHOR_END: add

    /// Stop handling `sig`: its handle is cancelled and its actions unregistered; true if
    /// there was a handler.
    pub fn remove(&mut self, sig: i32) -> bool {
        self.handlers
            .remove(&sig)
            .map(|h| release(sig, h))
            .is_some()
    }

    // ANCHOR: arrived
    /// The handles of the signals that arrived since the last look (asyncio's
    /// `_handle_signal`, one per signal); a cancelled handler is removed instead.
    pub fn arrived(&mut self) -> Vec<Handle<L>> {
        let mut due = Vec::new();
        let mut cancelled = Vec::new();
        for (&sig, handler) in &self.handlers {
            if handler.arrived.swap(false, Ordering::SeqCst) {
                if handler.handle.cancelled() {
                    cancelled.push(sig);
                } else {
                    due.push(handler.handle.clone());
                }
            }
        }
        for sig in cancelled {
            self.remove(sig);
        }
        due
    }
    // ANCHOR_END: arrived

    /// Every handled signal's number and handle, by number: what a recording lists.
    pub fn handles(&self) -> impl Iterator<Item = (i32, &Handle<L>)> {
        self.handlers.iter().map(|(&sig, h)| (sig, &h.handle))
    }

    /// True if no signal is handled.
    pub fn is_empty(&self) -> bool {
        self.handlers.is_empty()
    }

    /// Unregister every handler (the loop closes).
    pub fn clear(&mut self) {
        for (sig, handler) in std::mem::take(&mut self.handlers) {
            release(sig, handler);
        }
    }
}

impl<L> Drop for SignalTable<L> {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Unregister a handler's OS-level actions (closing its copy of the pipe's write end);
/// with no loop left handling `sig`, turn the default action back on.
fn release<L>(sig: i32, handler: SignalHandler<L>) {
    handler.handle.cancel();
    for id in handler.actions {
        low_level::unregister(id);
    }
    if let Some((users, default)) = defaults().get_mut(&sig) {
        *users = users.saturating_sub(1);
        if *users == 0 {
            default.store(true, Ordering::SeqCst);
        }
    }
}
