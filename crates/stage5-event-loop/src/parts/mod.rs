//! The parts the loop owns, which know nothing of it (book chapters 5 to 7;
//! asyncio's `selectors.py`, `selector_events.py`, `unix_events.py` and `tasks.py`).
//!
//! Each part here is generic over the loop `L` its callbacks receive, as stage 1's
//! `Callback<S>` is generic over its scheduler, or knows no loop at all; each has unit
//! tests of its own, without a loop. They import only the folders below them: [`errors`]
//! and the handles of [`events`]. The loop (`event_loop/`), its futures (`futures/`) and
//! its faces (`io/`) sit above and fill `L` in with `EventLoop`.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | [`selector`] | the selector step 3 waits on: the `Poller` seam and its mio implementation | `selectors.DefaultSelector` |
//! | `io_table` | who waits on which descriptor; level-triggered on edge-triggered mio | `_add_reader`, `_remove_reader`, `_process_events` |
//! | `self_pipe` | the self-pipe and the queue other threads fill | `_make_self_pipe`, `_write_to_self` |
//! | `signal_table` | OS-level signal actions | `signal.set_wakeup_fd` |
//! | `registry` | the loop's table of live tasks, by key | `tasks._all_tasks` |
//! | `current` | the task whose step runs now, and the future it awaits | `tasks.current_task()`, `Task._fut_waiter` |
//! | [`transport_fds`] | which descriptors a transport owns, so `add_reader` refuses them (chapter 8) | `_transports`, `_ensure_fd_no_transport` |
//!
//! What changed since stage 4: stage 4's scheduler held its selector and its waits itself;
//! here each is a part with its own tests, below the loop that assembles them.
//!
//! [`errors`]: crate::errors
//! [`events`]: crate::events

pub(crate) mod current;
pub(crate) mod io_table;
pub(crate) mod registry;
pub mod selector;
pub(crate) mod self_pipe;
pub(crate) mod signal_table;
pub mod transport_fds;
