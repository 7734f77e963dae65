//! The I/O driver: what the loop owns for chapter 7's I/O, one subsystem in one folder (book
//! chapters 7 and 8, and chapter 10's seam; asyncio's `selectors.py`, `selector_events.py`'s
//! `BaseSelectorEventLoop` and `unix_events.py`'s signals).
//!
//! asyncio's `BaseSelectorEventLoop` owns a selector, the readers and writers registered on
//! it, the self-pipe and the transports' map; the Unix loop adds the signals. Here each is a
//! part with its own unit tests, and none knows the loop: each is generic over the loop `L`
//! its callbacks receive, or knows no loop at all. The loop (`event_loop/`) fills `L` in.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | `driver` | `IoDriver`: the parts below, owned together, and the methods the loop's I/O goes through | `BaseSelectorEventLoop` |
//! | [`selector`] | the selector step 3 waits on: the `Poller` seam and its mio implementation; chapter 10's `Proactor` | `selectors.DefaultSelector` |
//! | `io_table` | who waits on which descriptor; level-triggered on edge-triggered mio | `_add_reader`, `_remove_reader`, `_process_events` |
//! | `self_pipe` | the self-pipe and the queue other threads fill | `_make_self_pipe`, `_write_to_self` |
//! | `signal_table` | OS-level signal actions | `signal.set_wakeup_fd` |
//! | [`transport_fds`] | which descriptors a transport owns, so `add_reader` refuses them (chapter 8) | `_transports`, `_ensure_fd_no_transport` |
//!
//! What changed since stage 4: stage 4's scheduler held its selector and its waits itself;
//! here they are one driver below the loop that runs it.

pub(crate) mod driver;
pub(crate) mod io_table;
pub mod selector;
pub(crate) mod self_pipe;
pub(crate) mod signal_table;
pub mod transport_fds;
