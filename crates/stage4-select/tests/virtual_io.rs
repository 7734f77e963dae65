//! A scripted scenario on the virtual clock with real sockets (`support/scripted_io.rs`): a
//! client connects while timers are pending, and the order of everything printed is
//! snapshotted. Only program output is snapshotted: the trace would show file descriptor
//! numbers, which differ from run to run.

#[path = "support/scripted_io.rs"]
mod scripted_io;

use stage4::transcript;

#[test]
fn a_client_connects_while_timers_are_pending() {
    insta::assert_snapshot!(transcript(false, scripted_io::run));
}
