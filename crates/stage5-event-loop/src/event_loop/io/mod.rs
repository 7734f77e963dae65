//! Chapter 7: the loop meets the outside world (book chapter 7, "I/O, threads and
//! signals"; asyncio's `selector_events.py` and `unix_events.py`).
//!
//! asyncio layers its loops: `BaseEventLoop` (chapter 5), then `BaseSelectorEventLoop`,
//! which adds the selector, readers and writers, the self-pipe and the `sock_*`
//! operations, then the Unix loop, which adds signals. The parts the event loop owns for
//! them, which know nothing of it (the selector, the I/O table, the self-pipe's queue, the
//! signal table), are below the loop, in [`io_driver`](crate::io_driver); the modules here are the
//! loop's faces, `impl EventLoop` blocks that use them: above the futures (`futures/`),
//! which `sock_recv` returns, and below the transports' faces (`event_loop/connect.rs`).
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | [`readers`] | `add_reader`, `add_writer`, ... | `add_reader` |
//! | [`threads`] | `ThreadsafeLoop`, `call_soon_threadsafe` | `call_soon_threadsafe` |
//! | [`signals`] | `add_signal_handler`, `remove_signal_handler` | `unix_events.add_signal_handler` |
//! | [`sockets`] | `sock_recv`, `sock_sendall`, `sock_accept`, `sock_connect` | `sock_*` |
//! | [`server`] | `start_serving`, `Server`, the pause after EMFILE | `_start_serving`, `_accept_connection` |
//!
//! What changed since stage 4: stage 4's selector made one-shot waits for tasks; here the
//! loop keeps registrations, serves callbacks and tasks alike, and can be woken by other
//! threads and by signals.

pub mod readers;
pub mod server;
pub mod signals;
pub mod sockets;
pub mod threads;
