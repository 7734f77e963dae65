//! Where io_uring is refused (book chapter 10, "Where io_uring is refused"; no asyncio
//! counterpart: CPython's proactor exists on Windows only, where IOCP always does).
//!
//! A kernel older than 5.1 has no io_uring (`ENOSYS`); one with
//! `/proc/sys/kernel/io_uring_disabled` set, or a seccomp filter (many container
//! runtimes' default), refuses it (`EPERM`); one older than 5.11 has it without the timed
//! wait step 3 needs. [`open`] turns each into a [`Refused`] with a one-line reason, and
//! takes the setup as an argument so that a test can refuse it on a machine that allows
//! it. [`ring`] is the setup the examples use; `STAGE6_IO_URING=refuse` in the
//! environment makes it refuse as a seccomp filter would, to see the examples' answer.

use std::fmt;
use std::io;

use crate::ring::Ring;

/// The environment variable that makes [`ring`] refuse, to see what a program does then.
pub const REFUSE_VAR: &str = "STAGE6_IO_URING";

/// io_uring was refused here: why, in one line.
#[derive(Debug)]
pub struct Refused(pub io::Error);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hint = match self.0.raw_os_error() {
            Some(libc::ENOSYS) => "this kernel has no io_uring (Linux 5.11 or later is needed)",
            Some(libc::EPERM | libc::EACCES) => {
                "not permitted: /proc/sys/kernel/io_uring_disabled, or a seccomp filter"
            }
            _ => "",
        };
        match hint {
            "" => write!(f, "io_uring refused here: {}", self.0),
            hint => write!(f, "io_uring refused here: {} ({hint})", self.0),
        }
    }
}

impl std::error::Error for Refused {}

/// A ring from `setup`, or why not.
pub fn open(setup: impl FnOnce() -> io::Result<Ring>) -> Result<Ring, Refused> {
    setup().map_err(Refused)
}

/// A ring from the kernel, unless [`REFUSE_VAR`] says to refuse (as `EPERM`).
pub fn ring() -> Result<Ring, Refused> {
    open(|| match std::env::var(REFUSE_VAR).as_deref() {
        Ok("refuse") => Err(io::Error::from_raw_os_error(libc::EPERM)),
        _ => Ring::new(),
    })
}

/// For examples: a ring, or the reason on one line and exit status 2.
pub fn ring_or_exit(program: &str) -> Ring {
    match ring() {
        Ok(ring) => ring,
        Err(refused) => {
            eprintln!("{program}: {refused}");
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_is_one_line_that_says_why() {
        for (errno, says) in [
            (libc::ENOSYS, "no io_uring"),
            (libc::EPERM, "io_uring_disabled"),
            (libc::EINVAL, "Invalid argument"),
        ] {
            let refused = open(|| Err(io::Error::from_raw_os_error(errno))).unwrap_err();
            let line = refused.to_string();
            assert!(line.starts_with("io_uring refused here: "), "{line}");
            assert!(line.contains(says), "{line}");
            assert!(!line.contains('\n'), "{line}");
        }
    }
}
