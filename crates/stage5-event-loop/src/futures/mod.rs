//! Chapter 6: futures and tasks on the loop (book chapter 6, "Futures and tasks";
//! asyncio's `futures.py`, `tasks.py`, `queues.py`).
//!
//! Everything in asyncio that waits is a future with done callbacks; a task is a future
//! that drives a coroutine, one step per `call_soon`. This folder builds them on chapter
//! 5's loop, bottom up, on two parts below the loop, in [`parts`](crate::parts): the
//! table of live tasks (`registry`) and the task whose step runs now (`current`).
//! The loop's methods that make them (`create_future`, `create_task`,
//! `run_until_complete`) are the loop's, in `event_loop/` above this folder.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | [`future`] | `Future<T>` | `futures.Future` |
//! | `waker` | a task's `Waker`: wake = schedule the next step | `Task.__wakeup` |
//! | [`task`] | `Task<T>`, its steps | `tasks.Task` |
//! | [`sleep`](mod@sleep) | `sleep` | `tasks.sleep` |
//! | [`queue`] | `Queue<T>` | `queues.Queue` |
//! | [`combinators`] | `gather`, `wait_for` | `tasks.gather`, `tasks.wait_for` |
//! | [`first_of`](mod@first_of) | `first_of`: the first of two futures (chapter 7) | `tasks.wait(..., FIRST_COMPLETED)` |
//! | [`timeout`](mod@timeout) | `timeout`: `wait_for` for any Rust future, a borrowing one included (chapter 7) | `tasks.wait_for`, `timeouts.timeout` |
//!
//! What changed since stage 4: stages 2 to 4 had tasks but no futures; a task waited by
//! leaving the scheduler's `current` slot, and was put back by whoever it waited for.

pub mod combinators;
pub mod first_of;
pub mod future;
pub mod queue;
pub mod sleep;
pub mod task;
pub mod timeout;
pub(crate) mod waker;
