//! Servers and clients with protocols (book chapter 8, "create_server and
//! create_connection"; asyncio's `base_events.py`: `create_server`, `create_connection`,
//! `_create_connection_transport`, `connect_accepted_socket`, and `selector_events.py`:
//! `_accept_connection2`).
//!
//! `create_server` binds a listening socket and serves it with chapter 7's
//! [`EventLoop::start_serving`]: each accepted connection gets a protocol from the factory
//! and a transport. asyncio does that in a task (`_accept_connection2`), whose first step
//! runs one iteration after the accept; ours schedules the same step with `call_soon`, so
//! `connection_made` comes in the same iteration as asyncio's. Like asyncio's, it ends
//! with a `sleep(0)`, so that the listener's reader is in place when it returns.
//!
//! `create_connection` connects with chapter 7's `sock_connect`, then makes the transport
//! and waits for a future that is set right after `connection_made`: when it returns, the
//! protocol knows its transport.
//!
//! What changed from chapter 7: `start_serving` handed the program a socket; here it hands
//! a protocol a transport.

use std::cell::RefCell;
use std::net::{SocketAddr, TcpListener};
use std::rc::Rc;

use socket2::{Domain, Socket, Type};

use crate::errors::Error;
use crate::event_loop::io::server::Server;
use crate::event_loop::{EventLoop, ExceptionContext};
use crate::futures::future::Future;
use crate::futures::sleep::sleep;
use crate::transports::transport::Protocol;
use crate::transports::transport::Transport;

/// The listen backlog (asyncio's `create_server(backlog=100)`), also how many connections
/// the server accepts each time its listener is readable.
pub const BACKLOG: usize = 100;

/// A listening socket on `addr`, with `SO_REUSEADDR` as asyncio sets it on Unix.
pub fn bind(addr: SocketAddr) -> Result<TcpListener, Error> {
    let sock = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    sock.set_reuse_address(true)?;
    sock.bind(&addr.into())?;
    sock.listen(BACKLOG as i32)?;
    Ok(sock.into())
}

impl EventLoop {
    /// asyncio's `_make_socket_transport`: wrap the connected, non-blocking `sock` in a
    /// transport for `protocol` ([`Transport`]'s `new`, asyncio's
    /// `_SelectorSocketTransport(self, sock, protocol, waiter)`).
    pub fn make_socket_transport(
        &self,
        sock: Socket,
        protocol: Rc<dyn Protocol>,
        waiter: Option<Future<()>>,
    ) -> Result<Transport, Error> {
        self.check_closed()?;
        Transport::new(self, sock, protocol, waiter)
    }

    // ANCHOR: create_server
    /// Listen on `addr` and give each connection a protocol from `protocol_factory` and a
    /// transport (asyncio's `create_server`). Returns chapter 7's [`Server`]: its `close`
    /// stops accepting; connections already made are their protocols' to close.
    pub async fn create_server<P: Protocol + 'static>(
        &self,
        protocol_factory: impl FnMut() -> Rc<P> + 'static,
        addr: SocketAddr,
    ) -> Result<Server, Error> {
        self.create_server_on(protocol_factory, bind(addr)?).await
    }

    /// [`EventLoop::create_server`] on a socket already listening (asyncio's
    /// `create_server(sock=...)`): the echo server's `--api protocol`, whose listener
    /// may share its port with other loops'.
    pub async fn create_server_on<P: Protocol + 'static>(
        &self,
        protocol_factory: impl FnMut() -> Rc<P> + 'static,
        listener: TcpListener,
    ) -> Result<Server, Error> {
        let factory = Rc::new(RefCell::new(protocol_factory));
        let server = self.start_serving(listener, BACKLOG, move |lp, stream, _| {
            let factory = factory.clone();
            // asyncio's `_accept_connection2` is a task: its first step is a `call_soon`.
            let scheduled = lp.call_soon(move |lp| {
                let protocol: Rc<dyn Protocol> = (factory.borrow_mut())();
                if let Err(error) = lp.make_socket_transport(stream.into(), protocol, None) {
                    lp.call_exception_handler(&ExceptionContext {
                        message: "Error on transport creation for incoming connection".into(),
                        exception: Some(error),
                        ..ExceptionContext::default()
                    });
                }
            });
            // A closed loop accepts nothing more; the stream is dropped, which closes it.
            drop(scheduled);
        })?;
        // asyncio: "Skip one loop iteration so that all 'loop.add_reader' go through."
        sleep(self, 0.0).await?;
        Ok(server)
    }
    // ANCHOR_END: create_server

    // ANCHOR: create_connection
    /// Connect to `addr` and give the connection a protocol from `protocol_factory` and a
    /// transport (asyncio's `create_connection`, for an address already resolved). Returns
    /// once `connection_made` has run.
    pub async fn create_connection<P: Protocol + 'static>(
        &self,
        protocol_factory: impl FnOnce() -> Rc<P>,
        addr: SocketAddr,
    ) -> Result<(Transport, Rc<P>), Error> {
        let sock = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
        self.sock_connect(&sock, addr).await?;
        self.create_connection_transport(sock, protocol_factory)
            .await
    }
    // ANCHOR_END: create_connection

    /// Wrap a connected socket (a TCP stream, one end of a Unix socket pair) in a
    /// transport for a protocol from `protocol_factory` (asyncio's
    /// `connect_accepted_socket`). Returns once `connection_made` has run.
    pub async fn connect_accepted_socket<P: Protocol + 'static>(
        &self,
        protocol_factory: impl FnOnce() -> Rc<P>,
        sock: impl Into<Socket>,
    ) -> Result<(Transport, Rc<P>), Error> {
        self.create_connection_transport(sock.into(), protocol_factory)
            .await
    }

    /// asyncio's `_create_connection_transport`: the protocol, the transport, and a waiter
    /// the transport sets after `connection_made`.
    async fn create_connection_transport<P: Protocol + 'static>(
        &self,
        sock: Socket,
        protocol_factory: impl FnOnce() -> Rc<P>,
    ) -> Result<(Transport, Rc<P>), Error> {
        let protocol = protocol_factory();
        let waiter = self.create_future::<()>();
        let transport = self.make_socket_transport(sock, protocol.clone(), Some(waiter.clone()))?;
        if let Err(error) = waiter.await {
            transport.close();
            return Err(error);
        }
        Ok((transport, protocol))
    }
}
