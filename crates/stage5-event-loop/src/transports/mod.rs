//! Chapter 8: transports and protocols, asyncio as its users write servers (book chapter 8,
//! "Transports, protocols and streams"; asyncio's `transports.py`, `protocols.py` and
//! `selector_events.py`'s `_SelectorSocketTransport`).
//!
//! Chapter 7 gave the loop readers and writers; a program still had to read, buffer and
//! write itself. asyncio's answer is a pair: a *transport* owns the socket, its reader
//! and its writer, buffers what the socket will not take, and closes only once the buffer
//! has drained; a *protocol* is the program's code, called by the transport when the
//! connection is made, data arrives, the peer ends its side, the buffer crosses a water
//! mark, and the connection is lost.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | [`flow_control`] | the water marks | `transports._FlowControlMixin` |
//! | [`transport`] | the protocol's six methods; the transport's life: made, closed, aborted, lost | `protocols.Protocol`, `_SelectorTransport` |
//! | `info` | addresses, `is_closing`, `is_reading` | `get_extra_info` |
//! | `reading` | the reader, the end of the stream, pausing it | `_read_ready__data_received`, `pause_reading` |
//! | `writing` | write, the writer, `write_eof` | `write`, `_write_ready` |
//! | `io_driver::transport_fds` | a transport's descriptor is its own (below the loop's faces that ask it) | `_ensure_fd_no_transport` |
//!
//! The loop's faces that make transports, `create_server` and `create_connection`, are the
//! loop's methods, in [`event_loop::connect`](crate::event_loop::connect), above this folder.
//!
//! What changed from chapter 7: the socket is no longer the program's; the program is
//! called instead of calling.

pub mod flow_control;
pub mod transport;

pub use crate::io_driver::transport_fds::FdUsedByTransport;
pub use flow_control::DEFAULT_HIGH_WATER;
pub use transport::MAX_SIZE;
pub use transport::{Protocol, Transport};
