//! The parts the loop owns for its tasks, which know nothing of it (book chapter 6;
//! asyncio's `tasks.py`).
//!
//! Each part here is generic over the loop `L` its callbacks receive, as stage 1's
//! `Callback<S>` is generic over its scheduler, or knows no loop at all; each has unit
//! tests of its own, without a loop. They import only the folders below them: [`errors`]
//! and the handles of [`events`]. The loop (`event_loop/`), its futures (`futures/`) and
//! its faces (`io/`) sit above and fill `L` in with `EventLoop`.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | `registry` | the loop's table of live tasks, by key | `tasks._all_tasks` |
//! | `current` | the task whose step runs now, and the future it awaits | `tasks.current_task()`, `Task._fut_waiter` |
//!
//! The I/O driver's parts (the selector, the I/O table, the self-pipe, the signal table,
//! the transports' map) are in their own folder, `io_driver/`, above this one.
//!
//! What changed since stage 4: stage 4's tasks had no table of their own; here it is a
//! part with its own tests, below the loop that assembles it.
//!
//! [`errors`]: crate::errors
//! [`events`]: crate::events

pub(crate) mod current;
pub(crate) mod registry;
