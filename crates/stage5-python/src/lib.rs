//! # scratchloop: stage 5's event loop under asyncio
//!
//! Book chapter 9, [Your loop runs asyncio](../../../docs/book/ch09-asyncio-on-our-loop.html).
//! Retells what asyncio's `base_events.py` and `selector_events.py` ask of a loop, on
//! stage 5's Rust core: `call_soon` and `call_at` make stage 5's handles, `run_forever`
//! is stage 5's, readers, writers, the self-pipe and signals are stage 5's, and so are the
//! socket transports: a connection's bytes go from stage 5's transport to the Python
//! protocol ([`protocol`], [`transport`], [`fd`]). asyncio's `Future`, `Task`, streams
//! and servers (its Python layers) run on top unchanged, through a small Python class
//! (`python/scratchloop/_loop.py`) that subclasses asyncio's selector loop and sends the
//! scheduling, the I/O table and the transports to this module.
//!
//! What changed from stage 5: nothing of the loop. Stage 5 gained three seams: the
//! selector's `WaitAround`, through which [`wait`] releases the GIL while the loop sleeps,
//! `take_remote_calls`, which [`core`] calls to keep asyncio's order for
//! `call_soon_threadsafe`, and a running loop's mark that knows its process (a forked
//! child may run a loop).
//! What is new here is the glue: a Python callback as a stage 5 closure ([`callback`]),
//! Python handles over stage 5's ([`handle`]), the loop's face ([`core`]), its
//! scheduling methods without a Python frame ([`fast`]), its face for
//! other threads ([`remote`]), stage 5's real clock read on `time.monotonic()`'s scale
//! ([`clock`]), and asyncio's logger for stage 5's log lines ([`log`]).

use pyo3::prelude::*;

pub mod callback;
pub mod clock;
pub mod core;
pub mod errors;
pub mod fast;
pub mod fd;
pub mod handle;
pub mod log;
pub mod protocol;
pub mod remote;
pub mod transport;
pub mod wait;

/// The extension module, `scratchloop._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<core::Core>()?;
    m.add_class::<fast::Fast>()?;
    m.add_class::<handle::Owner>()?;
    m.add_class::<handle::Handle>()?;
    m.add_class::<handle::TimerHandle>()?;
    m.add_class::<remote::Remote>()?;
    m.add_class::<transport::Transport>()?;
    Ok(())
}
