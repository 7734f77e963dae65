//! The proactor's transport (book chapter 10, "Transports on the proactor"; asyncio's
//! `_ProactorSocketTransport`): one receive always submitted, writes queued behind the one
//! in flight, flow control at asyncio's water marks, and a close that waits for the last
//! write.

mod support;

use std::cell::RefCell;
use std::io::{Read, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use stage6::{Error, Protocol, Transport};
use support::{pair, proactor_loop, run_until};

/// A protocol that writes down what the transport calls.
#[derive(Default)]
struct Recorder {
    calls: RefCell<Vec<String>>,
    transport: RefCell<Option<Transport>>,
}

impl Protocol for Recorder {
    fn connection_made(&self, transport: &Transport) {
        *self.transport.borrow_mut() = Some(transport.clone());
        self.calls.borrow_mut().push("made".into());
    }
    fn data_received(&self, data: &[u8]) {
        let data = String::from_utf8_lossy(data);
        self.calls.borrow_mut().push(format!("data {data}"));
    }
    fn eof_received(&self) -> bool {
        self.calls.borrow_mut().push("eof".into());
        true // keep our side open: the test closes it
    }
    fn connection_lost(&self, error: Option<Error>) {
        self.calls
            .borrow_mut()
            .push(format!("lost {}", error.is_some()));
        self.transport.borrow_mut().take();
    }
    fn pause_writing(&self) {
        self.calls.borrow_mut().push("pause".into());
    }
    fn resume_writing(&self) {
        self.calls.borrow_mut().push("resume".into());
    }
}

impl Recorder {
    fn saw(&self, call: &str) -> bool {
        self.calls.borrow().iter().any(|c| c == call)
    }
}

#[test]
fn made_then_data_then_flow_control_then_a_close_that_waits_for_the_last_write() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    let ours = Rc::try_unwrap(ours).unwrap();
    let recorder = Rc::new(Recorder::default());
    let transport = lp.make_socket_transport(ours, recorder.clone());
    peer.write_all(b"hi").unwrap();
    assert!(run_until(&lp, 20, || recorder.saw("data hi")));
    assert_eq!(recorder.calls.borrow()[..2], ["made", "data hi"]);
    // Four writes of 1 MiB to a peer that reads nothing yet: the first is in flight, the
    // rest wait in the buffer, far over the high-water mark.
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..4 {
        transport.write(&chunk);
    }
    assert!(recorder.saw("pause"));
    assert_eq!(transport.get_write_buffer_size(), 3 << 20);
    transport.close(); // the receive is cancelled; the writes are still sent
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        peer.read_to_end(&mut got).map(|_| got.len())
    });
    // Bounded: each iteration polls without waiting while the peer thread drains.
    assert!(run_until(&lp, 1_000_000, || recorder.saw("lost false")));
    assert!(recorder.saw("resume"), "{:?}", recorder.calls.borrow());
    drop(transport);
    assert_eq!(
        reader.join().unwrap().unwrap(),
        4 << 20,
        "every byte written, then EOF"
    );
    assert!(run_until(&lp, 10, || lp.in_flight() == 0));
    let calls = recorder.calls.borrow();
    assert_eq!(
        calls.last().map(String::as_str),
        Some("lost false"),
        "{calls:?}"
    );
}

#[test]
fn the_peers_eof_reaches_the_protocol_and_abort_loses_the_connection_at_once() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, peer) = pair();
    let ours = Rc::try_unwrap(ours).unwrap();
    let recorder = Rc::new(Recorder::default());
    let transport = lp.make_socket_transport(ours, recorder.clone());
    peer.shutdown(std::net::Shutdown::Write).unwrap();
    assert!(run_until(&lp, 20, || recorder.saw("eof")));
    transport.abort();
    assert!(run_until(&lp, 20, || recorder.saw("lost false")));
    assert!(run_until(&lp, 10, || lp.in_flight() == 0));
}

/// A protocol that writes when told to pause or to resume writing, as asyncio lets one do
/// (the bytes join the buffer).
#[derive(Default)]
struct WritesWhenTold {
    transport: RefCell<Option<Transport>>,
}

impl WritesWhenTold {
    fn write(&self, data: &[u8]) {
        if let Some(transport) = self.transport.borrow().as_ref() {
            transport.write(data);
        }
    }
}

impl Protocol for WritesWhenTold {
    fn connection_made(&self, transport: &Transport) {
        *self.transport.borrow_mut() = Some(transport.clone());
    }
    fn data_received(&self, _: &[u8]) {}
    fn connection_lost(&self, _: Option<Error>) {
        self.transport.borrow_mut().take();
    }
    fn pause_writing(&self) {
        self.write(b"P");
    }
    fn resume_writing(&self) {
        self.write(b"R");
    }
}

/// `pause_writing` and `resume_writing` may write: the transport must not hold its buffer
/// borrowed while it tells the protocol (stage 5's did, and the write inside panicked).
#[test]
fn a_protocol_may_write_when_told_to_pause_or_to_resume_writing() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    let ours = Rc::try_unwrap(ours).unwrap();
    let protocol = Rc::new(WritesWhenTold::default());
    let transport = lp.make_socket_transport(ours, protocol.clone());
    assert!(run_until(&lp, 20, || protocol.transport.borrow().is_some()));
    // One write in flight, the rest buffered far over the high-water mark: paused.
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..4 {
        transport.write(&chunk);
    }
    let expected = (4 << 20) + 2;
    let read = Arc::new(AtomicBool::new(false));
    let r = read.clone();
    let reader = std::thread::spawn(move || {
        let mut got = vec![0; expected];
        let outcome = peer.read_exact(&mut got).map(|()| got);
        r.store(true, Ordering::Release);
        outcome
    });
    // Bounded: each iteration polls without waiting while the peer thread drains.
    assert!(run_until(&lp, 1_000_000, || read.load(Ordering::Acquire)));
    let got = reader.join().unwrap().unwrap();
    let told: Vec<u8> = got.into_iter().filter(|&b| b != b'x').collect();
    assert_eq!(told, b"PR", "every byte written, P and R too");
    transport.abort();
    assert!(run_until(&lp, 20, || protocol.transport.borrow().is_none()));
    assert!(run_until(&lp, 10, || lp.in_flight() == 0));
}

/// asyncio's `close` sends what is buffered, and a `write` made while it still sends is
/// sent too (its `write` asks only whether the connection is lost); once nothing is in
/// flight, a write is dropped. Stage 6 dropped every write after `close`.
#[test]
fn a_write_while_a_close_still_sends_is_sent_then_the_end() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    let ours = Rc::try_unwrap(ours).unwrap();
    let recorder = Rc::new(Recorder::default());
    let transport = lp.make_socket_transport(ours, recorder.clone());
    assert!(run_until(&lp, 20, || recorder.saw("made")));
    transport.write(&vec![b'x'; 4 << 20]); // in flight: more than the socket takes at once
    transport.close();
    transport.write(b"late");
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        peer.read_to_end(&mut got).map(|_| got)
    });
    // Bounded: each iteration polls without waiting while the peer thread drains.
    assert!(run_until(&lp, 1_000_000, || recorder.saw("lost false")));
    transport.write(b"after the end"); // nothing in flight: dropped
    drop(transport);
    let got = reader.join().unwrap().unwrap();
    assert_eq!(got.len(), (4 << 20) + 4, "every byte, then EOF");
    assert!(got.ends_with(b"xlate"));
    assert!(run_until(&lp, 10, || lp.in_flight() == 0));
}
