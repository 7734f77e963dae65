//! Chapter 8's echo as an asyncio user writes it, on one loop and one Unix socket pair, on
//! the virtual clock (book chapter 8, "Three echo servers"; asyncio's `protocols.Protocol`
//! and `_SelectorSocketTransport`). Used by `tests/transports.rs` (its lines, snapshotted)
//! and by the root test `timelines.rs` (the picture in chapter 8).
//!
//! The server end is an echo `Protocol`; the client end another `Protocol` whose transport
//! a task writes three lines to, a second apart, then half-closes. The server answers the
//! end of the stream by closing, and both ends' `connection_lost` follow.

use std::cell::RefCell;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use stage5::{Error, EventLoop, Future, Protocol, Transport, say, sleep};

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
            // A write on an open transport only fails once it is closing: then it drops.
            drop(transport.write(data));
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
}

impl Protocol for Client {
    fn data_received(&self, data: &[u8]) {
        say!("client: got {:?}", String::from_utf8_lossy(data));
    }
    fn connection_lost(&self, _: Option<Error>) {
        say!("client: connection lost");
        // The future is new and only this completes it.
        drop(self.lost.set_result(()));
    }
}

// ANCHOR: protocol_echo
/// The echo, client and server, on `lp`: three lines a second apart, then a half-close.
pub fn scenario(lp: &EventLoop) {
    let (a, b) = UnixStream::pair().expect("a socket pair");
    let l = lp.clone();
    let task = lp
        .create_task(async move {
            let factory = || {
                Rc::new(Echo {
                    transport: RefCell::new(None),
                })
            };
            let (_server, _) = l.connect_accepted_socket(factory, a).await?;
            let lost = l.create_future();
            let client = Rc::new(Client { lost: lost.clone() });
            let (transport, _) = l.connect_accepted_socket(|| client, b).await?;
            for line in ["one\n", "two\n", "three\n"] {
                sleep(&l, 1.0).await?;
                transport.write(line.as_bytes())?;
            }
            sleep(&l, 1.0).await?;
            transport.write_eof()?;
            lost.await
        })
        .expect("the loop is open");
    lp.run_until_complete(&task)
        .expect("the echo runs to its end");
}
// ANCHOR_END: protocol_echo
