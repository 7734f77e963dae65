//! `--step`'s keys, read from the terminal here rather than by crossterm (book introduction,
//! "Watching a run", "Stepping in the terminal"). No seed section: the project's own
//! instrument.
//!
//! A terminal that goes away (its window closed, its pty's other side gone) leaves its
//! reader at the end of input: every `read` returns nothing (or fails), at once, for ever.
//! crossterm 0.29's event reader retries such a read without end, so a paused run whose
//! terminal went away spun a whole core (a known crossterm bug, open upstream). Here the
//! terminal is polled and read with rustix's safe calls, and a read of nothing, a failed
//! read or a hang-up is [`Key::Quit`]: the run ends as `q` ends it.
//!
//! What is read is decoded by [`decode`], a pure function: the few keys `--step` knows,
//! and the arrows' escape sequences (left steps back, right steps on). Everything else is
//! skipped.

use std::collections::VecDeque;
use std::io;
use std::os::fd::AsFd;
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, Timespec};

use super::Key;

/// How long the rest of an escape sequence may take after its `Esc`: a terminal sends an
/// arrow's three bytes at once, so an `Esc` alone this long is the Esc key.
const REST: Duration = Duration::from_millis(30);

/// The bytes typed and not yet decoded.
#[derive(Debug, Default)]
pub struct Keys {
    pending: VecDeque<u8>,
}

/// What the front of the typed bytes means.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A key `--step` knows (its bytes consumed).
    Key(Key),
    /// Bytes that mean nothing here (consumed).
    Nothing,
    /// The start of an escape sequence whose rest has not come yet (nothing consumed).
    More,
}

/// What one wait for input found.
enum Input {
    /// Bytes, now pending.
    Bytes,
    /// Nothing within the wait.
    Nothing,
    /// The end of input, a hang-up or a read that failed: nobody is left to type.
    Gone,
}

impl Keys {
    /// The next key, waiting at most `timeout` for it (`None`: no key came in time). The
    /// terminal's end is [`Key::Quit`].
    pub fn next(&mut self, timeout: Duration) -> Option<Key> {
        loop {
            // What was typed ahead comes first.
            let mut more = false;
            while !self.pending.is_empty() && !more {
                match decode(&mut self.pending, false) {
                    Decoded::Key(key) => return Some(key),
                    Decoded::Nothing => {}
                    Decoded::More => more = true,
                }
            }
            match self.read(if more { REST } else { timeout }) {
                Input::Bytes => {}
                Input::Gone => return Some(Key::Quit),
                // Nothing more of the sequence came: decode what there is, as it is.
                Input::Nothing if more => {
                    if let Decoded::Key(key) = decode(&mut self.pending, true) {
                        return Some(key);
                    }
                }
                Input::Nothing => return None,
            }
        }
    }

    /// Wait up to `wait` for standard input (the terminal), and read what it has.
    fn read(&mut self, wait: Duration) -> Input {
        let stdin = io::stdin();
        let fd = stdin.as_fd();
        let mut polled = [PollFd::new(&fd, PollFlags::IN)];
        let timeout = Timespec {
            tv_sec: wait.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: wait.subsec_nanos().into(),
        };
        match rustix::event::poll(&mut polled, Some(&timeout)) {
            Ok(0) => return Input::Nothing,
            Ok(_) => {}
            // A signal came (a resize, say): the caller looks at the size and asks again.
            Err(rustix::io::Errno::INTR) => return Input::Nothing,
            // Polling the terminal fails: nothing can be read from it again.
            Err(_) => return Input::Gone,
        }
        let mut buffer = [0u8; 256];
        match rustix::io::read(fd, &mut buffer) {
            // The end of input: the terminal is gone (in raw mode no key reads as nothing).
            Ok(0) => Input::Gone,
            Ok(n) => {
                self.pending.extend(&buffer[..n]);
                Input::Bytes
            }
            // Interrupted, or not ready after all: try again at the next wait.
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => Input::Nothing,
            // EIO, say: the pty's other side is closed.
            Err(_) => Input::Gone,
        }
    }
}

/// Decode the front of `pending`. `complete`: no more bytes are coming for a sequence
/// that has begun, so an `Esc` alone is the Esc key and a cut sequence is dropped.
pub fn decode(pending: &mut VecDeque<u8>, complete: bool) -> Decoded {
    const ESC: u8 = 0x1b;
    let Some(first) = pending.pop_front() else {
        return Decoded::Nothing;
    };
    let key = match first {
        // Enter sends a carriage return in raw mode; a line feed (Ctrl-J) steps too.
        b'\r' | b'\n' => Key::Step,
        b'c' | b'C' => Key::Continue,
        // q, Ctrl-C, Ctrl-D (raw mode turns no key into a signal or an end of input).
        b'q' | b'Q' | 0x03 | 0x04 => Key::Quit,
        // b, Backspace (DEL or Ctrl-H).
        b'b' | b'B' | 0x7f | 0x08 => Key::Back,
        ESC => return escape(pending, complete),
        _ => return Decoded::Nothing,
    };
    Decoded::Key(key)
}

/// After an `Esc`: an arrow (`Esc [ D`, or `Esc O D` in application mode), another
/// sequence (skipped whole), or the Esc key itself.
fn escape(pending: &mut VecDeque<u8>, complete: bool) -> Decoded {
    let sequence = match pending.front() {
        Some(b'[' | b'O') => pending
            .iter()
            .skip(1)
            .position(|b| (0x40..=0x7e).contains(b)),
        // Esc then another key (Alt and the key): nothing `--step` knows.
        Some(_) => {
            pending.pop_front();
            return Decoded::Nothing;
        }
        None if complete => return Decoded::Key(Key::Quit),
        None => None,
    };
    let Some(last) = sequence else {
        if complete {
            pending.clear(); // a sequence cut short: nothing to make of it
            return Decoded::Nothing;
        }
        pending.push_front(0x1b);
        return Decoded::More;
    };
    let bytes: Vec<u8> = pending.drain(..last + 2).collect();
    match bytes.last() {
        Some(b'D') => Decoded::Key(Key::Back),
        Some(b'C') => Decoded::Key(Key::Step),
        _ => Decoded::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key `bytes` decode to, typed at once and then nothing more.
    fn keys(bytes: &[u8]) -> Vec<Key> {
        let mut pending: VecDeque<u8> = bytes.iter().copied().collect();
        let mut keys = Vec::new();
        while !pending.is_empty() {
            match decode(&mut pending, false) {
                Decoded::Key(key) => keys.push(key),
                Decoded::Nothing => {}
                Decoded::More => {
                    if let Decoded::Key(key) = decode(&mut pending, true) {
                        keys.push(key);
                    }
                }
            }
        }
        keys
    }

    #[test]
    fn the_keys_mean_what_the_panels_say() {
        use Key::*;
        assert_eq!(keys(b"\r\nc"), [Step, Step, Continue]);
        assert_eq!(keys(b"q\x03\x04"), [Quit, Quit, Quit]);
        assert_eq!(keys(b"b\x7f"), [Back, Back]);
        // The arrows, in both modes; Up, and a key with parameters, are skipped whole.
        assert_eq!(
            keys(b"\x1b[D\x1bOD\x1b[C\x1b[A\x1b[1;5Dx"),
            [Back, Back, Step, Back]
        );
        assert_eq!(keys(b"x\x1b"), [Quit], "Esc alone, nothing after it");
    }

    #[test]
    fn an_escape_sequence_cut_short_waits_for_its_rest() {
        let mut pending: VecDeque<u8> = b"\x1b[".iter().copied().collect();
        assert_eq!(decode(&mut pending, false), Decoded::More);
        assert_eq!(pending.len(), 2, "nothing consumed");
        pending.push_back(b'D');
        assert_eq!(decode(&mut pending, false), Decoded::Key(Key::Back));
        assert!(pending.is_empty());
    }
}
