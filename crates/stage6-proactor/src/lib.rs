//! # Stage 6: asyncio's proactor on io_uring
//!
//! Book chapter 10, [Completion: asyncio's proactor on io_uring](../../../docs/book/ch10-proactor.html).
//! Retraces asyncio's `proactor_events.py` (`BaseProactorEventLoop`) and
//! `windows_events.py` (`IocpProactor`).
#![doc = ""]
pub mod ring;
