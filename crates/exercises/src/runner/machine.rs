//! What this machine cannot run (book introduction, "Exercises", and chapter 10, "Where
//! io_uring is refused"; the project's own). Chapter 10's exercises run on stage 6, which
//! waits on io_uring; where the kernel refuses it (too old, `io_uring_disabled`, a seccomp
//! filter, or `STAGE6_IO_URING=refuse` to see this answer), their tests could only pass
//! without testing anything. The runner asks once, as stage 6's examples do, and tells
//! those exercises "not run here" with the reason, rather than "done".

use std::sync::OnceLock;

use exercises::catalog::Exercise;

/// The chapter whose exercises need io_uring.
const PROACTOR_CHAPTER: u32 = 10;

/// Why `exercise` cannot run on this machine, or `None` if it can.
pub fn cannot_run(exercise: &Exercise) -> Option<String> {
    if exercise.chapter.number != PROACTOR_CHAPTER {
        return None;
    }
    static REFUSED: OnceLock<Option<String>> = OnceLock::new();
    REFUSED.get_or_init(io_uring_refused).clone()
}

/// The kernel's answer to a ring, as stage 6's examples ask for one: why not, or `None`.
#[cfg(target_os = "linux")]
fn io_uring_refused() -> Option<String> {
    stage6::setup::ring()
        .err()
        .map(|refused| refused.to_string())
}

/// Elsewhere there is no io_uring to ask for.
#[cfg(not(target_os = "linux"))]
fn io_uring_refused() -> Option<String> {
    Some("io_uring is Linux's: chapter 10's exercises run on Linux only".to_owned())
}
