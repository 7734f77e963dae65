//! asyncio's `events.py` in Rust: the handles a loop queues (book chapter 5, "Handles";
//! asyncio's `events.py`, `Handle` and `TimerHandle`).
//!
//! asyncio's `events.py` defines `Handle` and `TimerHandle` beside the abstract loop; the
//! concrete loop of `base_events.py` imports them. Here too they sit below the loop, in a
//! folder of their own that imports nothing but [`errors`](crate::errors): a handle is
//! generic over the loop `L` it hands its callback, so it never names the loop.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | [`handle`] | `Handle<L>`, `TimerHandle<L>`; repeating handles (readers, writers, signals) and reused ones (a task's steps) | `events.Handle`, `events.TimerHandle` |
//!
//! What changed since stage 4: stage 4's `call_soon` returned a number, and nothing could
//! take a callback back; the handles are new.

pub mod handle;
