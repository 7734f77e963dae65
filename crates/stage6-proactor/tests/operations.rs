//! The socket operations as completions (book chapter 10, "Submit, then wait"; asyncio's
//! `BaseProactorEventLoop.sock_*`, `IocpProactor.select`).

mod support;

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::rc::Rc;
use std::time::Duration;

use support::{pair, proactor_loop, run_until};

#[test]
fn recv_sendall_accept_and_connect_complete_and_hand_the_buffers_back() {
    let Some(lp) = proactor_loop() else { return };
    let listener = Rc::new(TcpListener::bind("127.0.0.1:0").unwrap());
    let addr = listener.local_addr().unwrap();
    let l = lp.clone();
    let server = lp
        .create_task(async move {
            let (conn, _) = l.sock_accept(&listener).await?;
            let conn = Rc::new(conn);
            let got = l.sock_recv(&conn, 64).await?;
            let back = l.sock_sendall(&conn, got).await?;
            Ok::<_, stage6::Error>(back)
        })
        .unwrap();
    let l = lp.clone();
    let client = lp
        .create_task(async move {
            let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
                .map_err(|e| stage6::Error::Io(Rc::new(e)))?;
            let sock = Rc::new(sock);
            l.sock_connect(&sock, addr).await?;
            let sent = l.sock_sendall(&sock, b"ping".to_vec()).await?;
            let (n, buf) = l.sock_recv_into(&sock, vec![0; 16]).await?;
            Ok::<_, stage6::Error>((sent, n, buf))
        })
        .unwrap();
    let both = stage6::gather(&lp, [server.clone()]);
    lp.run_until_complete(&both).unwrap();
    let (sent, n, buf) = lp.run_until_complete(&client).unwrap();
    assert_eq!(
        server.result().unwrap(),
        b"ping",
        "the server's buffer came back whole"
    );
    assert_eq!(sent, b"ping", "sendall hands its buffer back");
    assert_eq!((n, &buf[..n], buf.len()), (4, &b"ping"[..], 16));
    assert_eq!(lp.in_flight(), 0);
}

#[test]
fn a_large_sendall_is_sent_in_several_completions_in_order() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    let data: Vec<u8> = (0..4 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        peer.read_to_end(&mut got).unwrap();
        got
    });
    let l = lp.clone();
    let o = ours.clone();
    let send = lp
        .create_task(async move { l.sock_sendall(&o, data).await })
        .unwrap();
    let back = lp.run_until_complete(&send).unwrap();
    drop(ours);
    drop(lp);
    let got = reader.join().unwrap();
    assert_eq!(got.len(), back.len());
    assert!(got == back, "bytes out of order or lost");
}

#[test]
fn each_iteration_enters_the_kernel_once() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    let l = lp.clone();
    let task = lp
        .create_task(async move {
            let mut total = 0;
            for _ in 0..4 {
                total += l.sock_recv(&ours, 8).await?.len();
                stage6::sleep(&l, 0.5).await?;
            }
            Ok::<_, stage6::Error>(total)
        })
        .unwrap();
    peer.write_all(b"abcdefghijklmnopqrstuvwxyz").unwrap();
    let (enters, iterations) = (lp.ring_stats().enters, lp.iteration());
    assert_eq!(lp.run_until_complete(&task).unwrap(), 26, "8 + 8 + 8 + 2");
    let stats = lp.ring_stats();
    assert_eq!(stats.enters - enters, lp.iteration() - iterations);
    assert_eq!(
        stats.completed,
        stats.submitted - 1,
        "all but the selector's poll"
    );
}

#[test]
fn call_soon_threadsafe_wakes_a_loop_waiting_in_the_ring() {
    let Some(lp) = proactor_loop() else { return };
    let remote = lp.threadsafe();
    let woke = Rc::new(RefCell::new(Vec::new()));
    let w = woke.clone();
    // Nothing ready and no timer: the loop waits in io_uring_enter without a limit, and
    // only the other thread's callback, through the poll of epoll, can end the wait.
    let other = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        remote.call_soon_threadsafe(|lp| lp.stop()).unwrap();
    });
    lp.call_soon(move |lp| w.borrow_mut().push(lp.iteration()))
        .unwrap();
    lp.run_forever().unwrap();
    other.join().unwrap();
    assert_eq!(woke.borrow().len(), 1);
    assert!(lp.ring_stats().enters >= 2);
}

#[test]
fn stage_5_readers_still_work_under_the_ring() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    let mut ours2 = ours.try_clone().unwrap();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&ours2);
    lp.add_reader(fd, move |lp| {
        let mut buf = [0; 16];
        let n = ours2.read(&mut buf).unwrap_or(0);
        s.borrow_mut().extend_from_slice(&buf[..n]);
        lp.stop();
    })
    .unwrap();
    peer.write_all(b"ready").unwrap();
    lp.run_forever().unwrap();
    assert_eq!(&seen.borrow()[..], b"ready");
}

#[test]
fn a_virtual_loop_with_only_an_operation_in_flight_waits_for_it() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    // No timer, nothing ready, no reader: only the receive in flight can end the wait. A
    // virtual loop that did not count it would give up (`NothingToWaitFor`).
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        peer.write_all(b"late").unwrap();
        peer
    });
    let l = lp.clone();
    let task = lp
        .create_task(async move { l.sock_recv(&ours, 16).await })
        .unwrap();
    assert_eq!(lp.run_until_complete(&task).unwrap(), b"late");
    drop(writer.join().unwrap());
}

/// A send's completion submits its rest at once, in the middle of a batch of completions,
/// and may be given the slot a later completion of the same batch has just left: that
/// completion still runs its own continuation, and its future resolves.
#[test]
fn a_send_resubmitted_within_a_batch_leaves_the_next_completion_its_own() {
    let Some(lp) = proactor_loop() else { return };
    let (sending, mut slow) = pair();
    // A small send buffer, nobody reading: the first send completes with part of it.
    let sock = socket2::SockRef::from(&*sending);
    sock.set_send_buffer_size(4096).unwrap();
    let (receiving, mut peer) = pair();
    peer.write_all(b"ready").unwrap();
    let data = vec![7u8; 1 << 20];
    // Both submitted by the same io_uring_enter, both answered by it: a batch of two.
    let send = lp.sock_sendall(&sending, data);
    let recv = lp.sock_recv(&receiving, 16);
    let (s, r) = (send.future().clone(), recv.future().clone());
    assert!(
        run_until(&lp, 20, || r.done()),
        "the receive's completion was lost: its future never resolved"
    );
    assert_eq!(r.result().unwrap().take().unwrap(), b"ready");
    let reader = std::thread::spawn(move || {
        let mut got = vec![0; 1 << 20];
        slow.read_exact(&mut got).map(|()| got.len())
    });
    let lp2 = lp.clone();
    let sent = lp2.run_until_complete(&s).unwrap().take().unwrap();
    assert_eq!(
        (sent.len(), reader.join().unwrap().unwrap()),
        (1 << 20, 1 << 20)
    );
    drop(send);
}
