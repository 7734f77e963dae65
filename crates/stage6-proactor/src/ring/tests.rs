//! The ownership invariant, tested on the ring alone (book chapter 10, "Who owns the
//! buffer"; asyncio's `_register` and `_poll`).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;

use super::*;

/// A ring, or `None` with the reason printed: where io_uring is refused these tests
/// cannot run (chapter 10, "Where io_uring is refused").
fn ring() -> Option<Ring> {
    match Ring::new() {
        Ok(ring) => Some(ring),
        Err(error) => {
            eprintln!("skipped: io_uring refused here: {error}");
            None
        }
    }
}

fn pair() -> (Rc<UnixStream>, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    (Rc::new(a), b)
}

/// Enter and reap until `key` completes (each wait bounded by the kernel's answer).
fn until_done(ring: &mut Ring, key: Key) -> Done {
    let mut done = Vec::new();
    for _ in 0..100 {
        ring.enter(Some(Duration::from_millis(100))).unwrap();
        ring.reap(&mut done);
        if let Some(i) = done.iter().position(|d| d.key == key) {
            return done.swap_remove(i);
        }
    }
    panic!("no completion for {key}");
}

#[test]
fn a_recv_takes_the_buffer_and_its_completion_hands_it_back_filled() {
    let Some(mut ring) = ring() else { return };
    let (a, mut b) = pair();
    let fd = a.as_raw_fd();
    let key = ring
        .submit(fd, Some(a), Op::Recv { buf: vec![0; 16] })
        .unwrap();
    assert_eq!(
        ring.in_flight(),
        1,
        "the table holds the buffer while the kernel has it"
    );
    b.write_all(b"hello").unwrap();
    let done = until_done(&mut ring, key);
    assert_eq!(done.result.unwrap(), 5);
    let Op::Recv { buf } = done.op else {
        panic!("{:?}", done.op)
    };
    assert_eq!(&buf[..5], b"hello");
    assert_eq!(ring.in_flight(), 0);
}

#[test]
fn a_send_hands_its_buffer_back_with_how_much_went() {
    let Some(mut ring) = ring() else { return };
    let (a, mut b) = pair();
    let fd = a.as_raw_fd();
    let op = Op::Send {
        buf: b"xxhello".to_vec(),
        from: 2,
    };
    let key = ring.submit(fd, Some(a), op).unwrap();
    let done = until_done(&mut ring, key);
    assert_eq!(done.result.unwrap(), 5);
    assert!(matches!(done.op, Op::Send { ref buf, from: 2 } if buf == b"xxhello"));
    let mut got = [0; 5];
    b.read_exact(&mut got).unwrap();
    assert_eq!(&got, b"hello");
}

// ANCHOR: cancel_test
#[test]
fn a_cancelled_recv_keeps_its_buffer_until_the_kernel_answers() {
    let Some(mut ring) = ring() else { return };
    let (a, mut b) = pair();
    let fd = a.as_raw_fd();
    let key = ring
        .submit(fd, Some(a.clone()), Op::Recv { buf: vec![0; 16] })
        .unwrap();
    ring.enter(Some(Duration::ZERO)).unwrap(); // the kernel has it now
    assert!(ring.cancel(key).unwrap());
    // Asked, not answered: the buffer is still the kernel's, and still in the table.
    assert!(ring.holds(key), "freed before the kernel's answer");
    assert!(
        !ring.cancel(key).unwrap(),
        "one cancel request per operation"
    );
    let done = until_done(&mut ring, key);
    assert_eq!(
        done.result.unwrap_err().raw_os_error(),
        Some(libc::ECANCELED)
    );
    assert!(
        matches!(done.op, Op::Recv { ref buf } if buf.len() == 16),
        "handed back"
    );
    assert!(!ring.holds(key));
    // The cancelled read took nothing: what comes next is there for the next reader.
    b.write_all(b"later").unwrap();
    let mut got = [0; 5];
    (&*a).read_exact(&mut got).unwrap();
    assert_eq!(&got, b"later");
}
// ANCHOR_END: cancel_test

#[test]
fn dropping_a_ring_with_a_recv_in_flight_waits_for_the_kernel_and_takes_nothing() {
    let Some(mut ring) = ring() else { return };
    let (a, mut b) = pair();
    let fd = a.as_raw_fd();
    ring.submit(fd, Some(a.clone()), Op::Recv { buf: vec![0; 16] })
        .unwrap();
    ring.enter(Some(Duration::ZERO)).unwrap();
    drop(ring); // cancels, and waits for the answer before the buffer goes
    b.write_all(b"after").unwrap();
    let mut got = [0; 5];
    (&*a).read_exact(&mut got).unwrap();
    assert_eq!(
        &got, b"after",
        "a recv left in the kernel would have taken these bytes"
    );
}

#[test]
fn a_timed_wait_with_nothing_to_complete_returns_without_error() {
    let Some(mut ring) = ring() else { return };
    ring.enter(Some(Duration::from_millis(1))).unwrap();
    let mut done = Vec::new();
    ring.reap(&mut done);
    assert!(done.is_empty());
    assert_eq!(ring.stats().enters, 1);
}
