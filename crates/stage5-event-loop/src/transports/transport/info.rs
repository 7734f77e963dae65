//! What a transport tells about itself (book chapter 8, "What a transport adds to a
//! reader"; asyncio's `transports.py`: `BaseTransport.get_extra_info`, `is_closing`,
//! `ReadTransport.is_reading`).
//!
//! asyncio's `get_extra_info(name)` is a dictionary filled when the transport is made
//! (`peername`, `sockname`, `socket`); ours has typed methods for the two addresses and
//! `get_extra_info` for their names.
//!
//! What changed from chapter 7: a socket's addresses were the program's to ask.

use std::fmt;
use std::net::SocketAddr;
use std::os::fd::RawFd;

use crate::transports::transport::Transport;

impl Transport {
    /// True unless reading is paused or the transport is closing.
    pub fn is_reading(&self) -> bool {
        !self.inner.paused.get() && !self.inner.closing.get()
    }

    /// True once [`Transport::close`] or [`Transport::abort`] was called, or the peer
    /// closed.
    pub fn is_closing(&self) -> bool {
        self.inner.closing.get()
    }

    /// The socket's descriptor number.
    pub fn fd(&self) -> RawFd {
        self.inner.fd
    }

    /// The peer's address (asyncio's `get_extra_info("peername")`); `None` for a Unix
    /// socket.
    pub fn peername(&self) -> Option<SocketAddr> {
        self.inner.peername
    }

    /// The socket's own address (`get_extra_info("sockname")`).
    pub fn sockname(&self) -> Option<SocketAddr> {
        self.inner.sockname
    }

    /// asyncio's `get_extra_info(name)` for the two addresses it knows: `"peername"` and
    /// `"sockname"`; anything else is `None`.
    pub fn get_extra_info(&self, name: &str) -> Option<SocketAddr> {
        match name {
            "peername" => self.peername(),
            "sockname" => self.sockname(),
            _ => None,
        }
    }
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &*self.inner;
        let state = match (inner.sock.borrow().is_some(), inner.closing.get()) {
            (false, _) => "closed",
            (true, true) => "closing",
            (true, false) => "open",
        };
        let size = inner.buffer.borrow().len();
        write!(f, "<Transport {state} fd={} bufsize={size}>", inner.fd)
    }
}
