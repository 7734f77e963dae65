//! # echo_server (stage 5): not yet, it arrives with chapter 7
//!
//! Stage 5's echo server stands on readers and writers registered with the loop's selector
//! and on the socket operations built on them (`sock_accept`, `sock_recv`,
//! `sock_sendall`), with SIGINT and SIGTERM handled by `add_signal_handler`. Those are the
//! second part of stage 5: book chapter 7. Until they land, this example accepts the usual
//! flags (`--addr`, `--plain` and the output contract), says so, and exits with code 1.
//! Stage 4's echo server serves the same protocol on `select` meanwhile:
//!
//! ```text
//! cargo run -p stage4 --example echo_server
//! ```

use stage1::cli::exit_with_error;
use stage1::net::{ECHO_USAGE, EchoArgs};
use stage5::Options;

fn main() {
    let mut echo = EchoArgs::default();
    Options::parse_with(
        "a TCP echo server on the event loop (arrives with chapter 7)",
        ECHO_USAGE,
        |flag, parser| echo.flag(flag, parser),
    );
    exit_with_error(format!(
        "stage 5's echo server arrives with chapter 7 (it would listen on {}); \
         meanwhile: cargo run -p stage4 --example echo_server",
        echo.addr
    ));
}
