//! Chapter 8's deliberate behaviours that the conformance scenarios do not show: a
//! transport's descriptor is refused to `add_reader` (asyncio's `_ensure_fd_no_transport`)
//! until the transport closes, and `write` after `write_eof` is an error.

use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use stage5::transports::FdUsedByTransport;
use stage5::{Error, EventLoop, Protocol, VirtualClock};

struct Quiet;
impl Protocol for Quiet {}

#[test]
fn add_reader_on_a_transports_descriptor_is_refused_until_it_closes() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (a, _b) = UnixStream::pair().unwrap();
    let fd = a.as_raw_fd();
    let transport = lp
        .make_socket_transport(a.into(), Rc::new(Quiet), None)
        .unwrap();
    for refused in [lp.add_reader(fd, |_| {}), lp.add_writer(fd, |_| {})] {
        let Err(Error::Custom(error)) = refused else {
            panic!("accepted")
        };
        assert!(error.downcast_ref::<FdUsedByTransport>().is_some());
    }
    transport.close();
    assert!(transport.is_closing());
    // Closing: asyncio lets it through (the descriptor is about to be closed).
    let handle = lp.add_reader(fd, |_| {}).unwrap();
    handle.cancel();
    lp.remove_reader(fd);
    lp.close().unwrap();
}

#[test]
fn write_after_write_eof_is_an_error_and_nothing_is_sent() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let (a, _b) = UnixStream::pair().unwrap();
    let transport = lp
        .make_socket_transport(a.into(), Rc::new(Quiet), None)
        .unwrap();
    transport.write_eof().unwrap();
    let error = transport.write(b"late").unwrap_err();
    assert_eq!(error.to_string(), "Cannot call write() after write_eof()");
    assert_eq!(transport.get_write_buffer_size(), 0);
    transport.abort();
    lp.close().unwrap();
}
