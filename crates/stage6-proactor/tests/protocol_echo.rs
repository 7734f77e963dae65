//! Chapter 8's protocol echo on the proactor's transports (book chapter 10, "Transports on
//! the proactor"; asyncio's `_ProactorSocketTransport`): the same lines as stage 5's, at
//! the same virtual times.

mod support;

#[allow(dead_code)]
#[path = "support/protocol_echo.rs"]
mod protocol_echo;

#[test]
fn the_protocol_echo_says_stage_5s_lines_at_stage_5s_times() {
    if stage6::setup::ring().is_err() {
        return eprintln!("skipped: io_uring refused here");
    }
    let text = scaffold::transcript(false, |clock| {
        let ring = stage6::setup::ring().expect("checked above");
        let lp = stage6::ProactorLoop::new(ring, clock).expect("a loop");
        protocol_echo::scenario(&lp);
    });
    insta::assert_snapshot!(text);
}
