//! Chapter 7: the loop meets the outside world (book chapter 7, "I/O, threads and
//! signals"; seeds 000/004 and asyncio's `selector_events.py` and `unix_events.py`).
//!
//! asyncio layers its loops: `BaseEventLoop` (chapter 5), then `BaseSelectorEventLoop`,
//! which adds the selector, readers and writers, the self-pipe and the `sock_*`
//! operations, then the Unix loop, which adds signals. Here the first four modules below
//! are the parts the event loop owns, which know nothing of it: the selector, and three
//! generic over the loop whose callbacks they hold (the I/O table, the self-pipe's queue,
//! the signal table); the rest are the loop's faces, `impl EventLoop` blocks that use
//! them.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | [`selector`] | the selector step 3 waits on, its counters | `selectors.DefaultSelector` |
//! | `io_table` | who waits on which descriptor; level-triggered on edge-triggered mio | `_readers`, `_writers`, `_process_events` |
//! | `self_pipe` | the self-pipe and the queue other threads fill | `_make_self_pipe`, `_write_to_self` |
//! | `signal_table` | OS-level signal actions | `signal.set_wakeup_fd` |
//! | [`readers`] | `add_reader`, `add_writer`, ... | `add_reader` |
//! | [`threads`] | `LoopHandle`, `call_soon_threadsafe` | `call_soon_threadsafe` |
//! | [`signals`] | `add_signal_handler`, `remove_signal_handler` | `unix_events.add_signal_handler` |
//! | [`sockets`] | `sock_recv`, `sock_sendall`, `sock_accept`, `sock_connect` | `sock_*` |
//! | [`server`] | `start_serving`, `Server`, the pause after EMFILE | `_start_serving`, `_accept_connection` |
//!
//! What changed since stage 4: stage 4's selector made one-shot waits for tasks; here the
//! loop keeps registrations, serves callbacks and tasks alike, and can be woken by other
//! threads and by signals.

pub(crate) mod io_table;
pub mod readers;
pub mod selector;
pub(crate) mod self_pipe;
pub mod server;
pub(crate) mod signal_table;
pub mod signals;
pub mod sockets;
pub mod threads;
