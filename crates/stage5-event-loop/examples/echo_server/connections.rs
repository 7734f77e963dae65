//! The echo server's connections, whichever API serves them (book chapter 7, "The echo
//! server", and chapter 8, "Three echo servers"; asyncio's `loop.sock_accept` loop,
//! `create_server` and `start_server`). asyncio 3.11's `Server` does not keep its
//! connections (3.13's `close_clients` would), so the server keeps them itself: to ask
//! each to stop on a shutdown, and to cut them when the grace period ends or a second
//! signal comes.

use std::net::{TcpListener, TcpStream};
use std::rc::{Rc, Weak};
use std::sync::atomic::Ordering;

use stage5::streams::DEFAULT_LIMIT;
use stage5::{Error, EventLoop, StreamReader, StreamWriter, Task, Transport, start_server_on};

use super::protocol::EchoProtocol;
use super::{Api, BACKLOG, Closed, EchoServer, echo_handler, streams};

/// One open connection, as its API serves it.
#[derive(Clone)]
pub enum Connection {
    /// `--api sock`: its task, and the future that asks it to stop reading.
    Task {
        task: Task<()>,
        stop: stage5::Future<()>,
    },
    /// `--api protocol`: the protocol, which stops and cuts through its transport.
    Protocol(Rc<EchoProtocol>),
    /// `--api streams`: the transport, and the future that asks the handler to stop.
    Stream {
        transport: Transport,
        stop: stage5::Future<()>,
    },
}

impl Connection {
    /// Ask it to finish gracefully: echo what was read, half-close, wait for the client.
    pub fn stop(&self) {
        match self {
            Connection::Task { stop, .. } | Connection::Stream { stop, .. } => {
                stop.set_result_unless_done(()); // false: asked already
            }
            Connection::Protocol(protocol) => protocol.stop(),
        }
    }

    /// Close it at once, whatever it was doing.
    pub fn cut(&self) {
        match self {
            Connection::Task { task, .. } => drop(task.cancel()), // false: it had ended
            Connection::Protocol(protocol) => protocol.cut(),
            Connection::Stream { transport, .. } => transport.abort(),
        }
    }
}

/// Says `Connection closed` and tells the server when a stream handler's task ends,
/// however it ends (cancelled with the loop's close included).
struct Leaving(Weak<EchoServer>, EventLoop, u64);

impl Drop for Leaving {
    fn drop(&mut self) {
        drop(Closed);
        if let Some(server) = self.0.upgrade() {
            server.closed(&self.1, self.2);
        }
    }
}

impl EchoServer {
    // ANCHOR: start
    /// Serve `listener` with the API the settings name.
    pub(super) fn start(
        self: Rc<Self>,
        lp: &EventLoop,
        listener: TcpListener,
    ) -> Result<Rc<Self>, Error> {
        let me = self.me.clone();
        let server = match self.settings.api {
            Api::Sock => lp.start_serving(listener, BACKLOG, move |lp, sock, peer| {
                scaffold::trace!("accept {peer}");
                if let Some(me) = me.upgrade() {
                    me.accepted(lp, sock);
                }
            })?,
            Api::Protocol => {
                let l = lp.clone();
                let factory = move || EchoServer::protocol(&me, &l);
                let l = lp.clone();
                let serving =
                    lp.create_task(async move { l.create_server_on(factory, listener).await })?;
                lp.run_until_complete(&serving)?
            }
            Api::Streams => {
                let l = lp.clone();
                let handler = move |reader: StreamReader, writer: StreamWriter| {
                    EchoServer::stream(&me, &l, reader, writer)
                };
                let l = lp.clone();
                let serving = lp.create_task(async move {
                    start_server_on(&l, handler, listener, DEFAULT_LIMIT).await
                })?;
                lp.run_until_complete(&serving)?
            }
        };
        *self.server.borrow_mut() = Some(server);
        Ok(self)
    }
    // ANCHOR_END: start

    /// A new connection's number (the count of those served so far, it included).
    fn next_id(&self) -> u64 {
        self.served.set(self.served.get() + 1);
        self.served.get() as u64
    }

    /// Keep `connection` as `id`; ask it to stop if the server is stopping, and stop the
    /// server if the test's flag says so.
    fn add(self: &Rc<Self>, lp: &EventLoop, id: u64, connection: Connection) {
        if self.stopping.get() {
            connection.stop(); // accepted just as the shutdown began
        }
        self.connections.borrow_mut().insert(id, connection);
        let stop_after = self.settings.stop.as_ref();
        if stop_after.is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.shutdown(lp);
        }
    }

    // ANCHOR: accepted
    /// `--api sock`: a task to echo the new connection, and the future that will ask it to
    /// stop.
    fn accepted(self: Rc<Self>, lp: &EventLoop, sock: TcpStream) {
        let id = self.next_id();
        let stop = lp.create_future();
        let reply = self.settings.reply;
        let handler = echo_handler(lp.clone(), sock, reply, stop.clone(), self.bytes.clone());
        // Only a closed loop refuses a task; the handler is dropped, and its socket closed.
        if let Ok(task) = lp.create_task(handler) {
            let me = Rc::downgrade(&self);
            task.add_done_callback(move |lp, _| {
                if let Some(me) = me.upgrade() {
                    me.closed(lp, id);
                }
            });
            self.add(lp, id, Connection::Task { task, stop });
        }
    }
    // ANCHOR_END: accepted

    /// `--api protocol`: the protocol factory's work, a protocol for a new connection.
    fn protocol(me: &Weak<EchoServer>, lp: &EventLoop) -> Rc<EchoProtocol> {
        let Some(server) = me.upgrade() else {
            // The server is gone: an echo nobody counts (the loop is closing anyway).
            return Rc::new(EchoProtocol::new(Default::default(), Rc::default(), || {}));
        };
        let id = server.next_id();
        let (me, l) = (me.clone(), lp.clone());
        let closed = move || {
            if let Some(server) = me.upgrade() {
                server.closed(&l, id);
            }
        };
        let bytes = server.bytes.clone();
        let protocol = Rc::new(EchoProtocol::new(server.settings.reply, bytes, closed));
        server.add(lp, id, Connection::Protocol(protocol.clone()));
        protocol
    }

    /// `--api streams`: `start_server`'s callback, the handler for a new connection.
    fn stream(
        me: &Weak<EchoServer>,
        lp: &EventLoop,
        reader: StreamReader,
        writer: StreamWriter,
    ) -> impl Future<Output = Result<(), Error>> + use<> {
        let accepted = me.upgrade().map(|server| {
            let (id, stop) = (server.next_id(), lp.create_future());
            let transport = writer.transport().clone();
            server.add(
                lp,
                id,
                Connection::Stream {
                    transport,
                    stop: stop.clone(),
                },
            );
            (server, id, stop)
        });
        let (me, lp) = (me.clone(), lp.clone());
        async move {
            let Some((server, id, stop)) = accepted else {
                return Ok(()); // the server is gone: the connection closes with the writer
            };
            let _leaving = Leaving(me, lp, id);
            let reply = server.settings.reply;
            let echoed = streams::echo(&reader, &writer, reply, &stop, &server.bytes).await;
            if let Err(error) = echoed
                && !matches!(&error, Error::Io(e) if scaffold::net::is_disconnect(e))
            {
                scaffold::trace!("connection error: {error}");
            }
            Ok(())
        }
    }
}
