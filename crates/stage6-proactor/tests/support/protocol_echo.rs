//! Chapter 8's protocol echo on the proactor, on one loop and one Unix socket pair, on the
//! virtual clock (book chapter 10, "Transports on the proactor"; asyncio's
//! `_ProactorSocketTransport`). Used by `tests/protocol_echo.rs` (its lines) and by the
//! root test `timelines.rs` (the picture in chapter 10).
//!
//! The same program as stage 5's: the server end an echo `Protocol`, the client end
//! another whose transport a task writes three lines to, a second apart, then half-closes.

use std::cell::RefCell;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use stage6::{Error, Future, ProactorLoop, Protocol, Transport, say, sleep};

/// Every byte back, and close at the end of the stream.
struct Echo {
    transport: RefCell<Option<Transport>>,
}

impl Protocol for Echo {
    fn connection_made(&self, transport: &Transport) {
        say!("server: connection made");
        *self.transport.borrow_mut() = Some(transport.clone());
    }
    fn data_received(&self, data: &[u8]) {
        say!("server: echo {:?}", String::from_utf8_lossy(data));
        if let Some(transport) = &*self.transport.borrow() {
            transport.write(data);
        }
    }
    fn eof_received(&self) -> bool {
        say!("server: end of stream, closing");
        false // close the transport, as asyncio's default does
    }
    fn connection_lost(&self, _: Option<Error>) {
        say!("server: connection lost");
        self.transport.borrow_mut().take(); // the cycle through us ends here
    }
}

/// Prints what comes back; completes `lost` when the connection is gone.
struct Client {
    lost: Future<()>,
    transport: RefCell<Option<Transport>>,
}

impl Protocol for Client {
    fn connection_made(&self, transport: &Transport) {
        *self.transport.borrow_mut() = Some(transport.clone());
    }
    fn data_received(&self, data: &[u8]) {
        say!("client: got {:?}", String::from_utf8_lossy(data));
    }
    fn connection_lost(&self, _: Option<Error>) {
        say!("client: connection lost");
        self.transport.borrow_mut().take();
        // The future is new and only this completes it.
        drop(self.lost.set_result(()));
    }
}

// ANCHOR: protocol_echo
/// The echo, client and server, on `lp`: three lines a second apart, then a half-close.
pub fn scenario(lp: &ProactorLoop) {
    let (a, b) = UnixStream::pair().expect("a socket pair");
    let echo = Rc::new(Echo {
        transport: RefCell::new(None),
    });
    lp.make_socket_transport(a, echo);
    let lost = lp.create_future();
    let client = Rc::new(Client {
        lost: lost.clone(),
        transport: RefCell::new(None),
    });
    let transport = lp.make_socket_transport(b, client);
    let l = lp.clone();
    let task = lp
        .create_task(async move {
            for line in ["one\n", "two\n", "three\n"] {
                sleep(&l, 1.0).await?;
                transport.write(line.as_bytes());
            }
            sleep(&l, 1.0).await?;
            transport.write_eof();
            lost.await
        })
        .expect("the loop is open");
    lp.run_until_complete(&task)
        .expect("the echo runs to its end");
}
// ANCHOR_END: protocol_echo
