//! Wait, for real and for a bounded time, until a descriptor is readable. The test and
//! benchmark harness's own plumbing: no book chapter or public source.
//!
//! Tests that step a loop on the virtual clock with real loopback sockets need it: an
//! iteration with no event ready lets the virtual clock jump to the next timer, so a
//! connection or a message the kernel delivers late on a busy machine would be seen
//! "later" in virtual time. Right after the test causes such an event, it waits here for
//! the kernel to deliver it, and only then steps the loop.

use std::io;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

/// Wait until `fd` is readable (a listener with a connection to accept, a socket with
/// data or an end of stream), at most `limit`. `Ok(false)` if the time ran out.
pub fn wait_readable(fd: impl AsFd, limit: Duration) -> io::Result<bool> {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let timeout = Timespec {
            tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            // Something happened: readable, or an error or hang-up that a read would
            // report at once (also "readable" for the loop's selector).
            Ok(n) if n > 0 => return Ok(true),
            // The time ran out.
            Ok(_) => return Ok(false),
            // A signal interrupted the wait: wait again for what is left.
            Err(rustix::io::Errno::INTR) => {}
            // Anything else (a closed descriptor): the caller's error.
            Err(e) => return Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;

    #[test]
    fn readable_once_data_comes_and_not_before() {
        let (a, mut b) = UnixStream::pair().unwrap();
        assert!(!wait_readable(&a, Duration::ZERO).unwrap());
        b.write_all(b"x").unwrap();
        assert!(wait_readable(&a, Duration::from_secs(10)).unwrap());
    }
}
