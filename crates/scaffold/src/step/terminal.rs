//! `--step`'s terminal: its keys, one at a time, and a screen of its own to draw on (book
//! introduction, "Watching a run", "Stepping in the terminal"). No seed section: the
//! project's own instrument.
//!
//! Reading Enter, `c` or `q` without waiting for a whole line needs the terminal in raw
//! mode, and a terminal left in raw mode (no echo, no line editing) is broken for the shell
//! that gets it back. That is the part worth a well-kept crate rather than our own
//! `termios` calls (which would need `unsafe`): `crossterm` switches raw mode on and off,
//! opens the alternate screen (so the panels never mix with the lines already on the
//! screen, and vanish when stepping ends), and, except on Unix, decodes keys. On Unix the
//! keys are read by the child module `keys`, which sees the terminal go away, where
//! crossterm's reader spins. A [`Terminal`] puts everything back when it is dropped, and a
//! panic on the way puts it back too.
//!
//! While it is open, the console's writer threads are held ([`crate::console`]): the
//! program's lines wait and come out, in order, on the ordinary screen once it closes.

use std::io::{self, IsTerminal, Write};
use std::sync::Once;

#[cfg(not(unix))]
use crossterm::event::{self, Event, KeyEventKind};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use crossterm::terminal::{self, ClearType};
use crossterm::{cursor, execute, queue, style::Print};

use crate::console;
use crate::output::Held;

#[cfg(unix)]
mod keys;

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Enter (or the right arrow): one step.
    Step,
    /// `b` (or the left arrow, or Backspace): show the step before, as recorded.
    Back,
    /// `c`: run to the end without pausing.
    Continue,
    /// `q`, Esc, Ctrl-C or Ctrl-D (or the terminal is gone: its end of input): quit.
    Quit,
    /// The terminal changed size: draw again.
    Redraw,
}

/// The terminal while stepping: raw mode, the alternate screen, the output held.
pub struct Terminal {
    /// Standard error's sink, taken from its writer thread (or standard error itself).
    out: Box<dyn Write>,
    /// Standard output's sink, held while it is the same terminal.
    _stdout: Option<Held<'static>>,
    /// The keys typed and not yet decoded.
    #[cfg(unix)]
    keys: keys::Keys,
}

impl Terminal {
    /// Take the terminal, or say why not: `--step` needs keys from a terminal on standard
    /// input and a terminal on standard error to draw on (never a pipe, which would leave
    /// it waiting for keys nobody types).
    pub fn open() -> Result<Terminal, String> {
        if !io::stdin().is_terminal() || !io::stderr().is_terminal() {
            return Err(
                "--step needs a terminal: it reads keys from standard input and draws \
                        on standard error, and one of them is not a terminal"
                    .to_owned(),
            );
        }
        restore_on_panic();
        let (stdout, stderr) = console::hold(io::stdout().is_terminal());
        let out: Box<dyn Write> = match stderr {
            Some(held) => Box::new(held),
            None => Box::new(io::stderr()),
        };
        terminal::enable_raw_mode().map_err(|e| format!("--step: no raw mode: {e}"))?;
        let mut taken = Terminal {
            out,
            _stdout: stdout,
            #[cfg(unix)]
            keys: keys::Keys::default(),
        };
        // On error the terminal is dropped here, and put back.
        execute!(taken.out, terminal::EnterAlternateScreen, cursor::Hide)
            .map_err(|e| format!("--step: cannot draw on the terminal: {e}"))?;
        Ok(taken)
    }

    /// Columns and rows (80 by 24 if the terminal does not say).
    pub fn size(&self) -> (usize, usize) {
        let (columns, rows) = terminal::size().unwrap_or((80, 24));
        (columns.into(), rows.into())
    }

    /// Clear the screen and draw `lines` from the top.
    pub fn draw(&mut self, lines: &[String]) -> io::Result<()> {
        queue!(self.out, terminal::Clear(ClearType::All))?;
        for (row, line) in (0u16..).zip(lines) {
            queue!(self.out, cursor::MoveTo(0, row), Print(line))?;
        }
        self.out.flush()
    }

    /// Wait for a key that means something (the one wait `--step` adds to a run), or for
    /// the terminal to be resized from `drawn`, the size last drawn at ([`Key::Redraw`]).
    #[cfg(unix)]
    pub fn key(&mut self, drawn: (usize, usize)) -> Key {
        // Looked at four times a second for a new size: no signal handler to wake us.
        const LOOK: std::time::Duration = std::time::Duration::from_millis(250);
        loop {
            if let Some(key) = self.keys.next(LOOK) {
                return key;
            }
            if self.size() != drawn {
                return Key::Redraw;
            }
        }
    }

    /// Wait for a key that means something (the one wait `--step` adds to a run).
    #[cfg(not(unix))]
    pub fn key(&mut self, _drawn: (usize, usize)) -> Key {
        loop {
            match event::read() {
                Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => {
                    if let Some(meant) = meaning(key) {
                        return meant;
                    }
                }
                Ok(Event::Resize(..)) => return Key::Redraw,
                Ok(_) => {}
                // The terminal is gone (or unreadable): nobody is left to press a key.
                Err(_) => return Key::Quit,
            }
        }
    }
}

/// What `key` asks for, if anything (as crossterm decodes keys: where it reads them).
#[cfg_attr(unix, allow(dead_code))]
fn meaning(key: KeyEvent) -> Option<Key> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        // In raw mode a line feed is Ctrl-J: typed ahead, before raw mode, Enter is one.
        KeyCode::Enter | KeyCode::Right => Key::Step,
        KeyCode::Char('j') if ctrl => Key::Step,
        KeyCode::Left | KeyCode::Backspace | KeyCode::Char('b' | 'B') => Key::Back,
        KeyCode::Char('c' | 'd') if ctrl => Key::Quit,
        KeyCode::Char('c' | 'C') => Key::Continue,
        KeyCode::Char('q' | 'Q') | KeyCode::Esc => Key::Quit,
        _ => return None,
    })
}

impl Drop for Terminal {
    fn drop(&mut self) {
        // Nothing more to do if the terminal is gone: there is nobody left to see it.
        execute!(self.out, cursor::Show, terminal::LeaveAlternateScreen).ok();
        terminal::disable_raw_mode().ok();
        // The fields go next: the held output is released, and its lines come out.
    }
}

/// Before a panic's message is printed, put the terminal back (a panic in a lesson
/// while stepping would otherwise leave the shell in raw mode, on the alternate screen).
fn restore_on_panic() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // As in `drop`: if the terminal is gone, there is nothing to put back.
            execute!(io::stderr(), cursor::Show, terminal::LeaveAlternateScreen).ok();
            terminal::disable_raw_mode().ok();
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Option<Key> {
        meaning(KeyEvent::new(code, modifiers))
    }

    #[test]
    fn the_keys_mean_what_the_panels_say() {
        let none = KeyModifiers::NONE;
        assert_eq!(key(KeyCode::Enter, none), Some(Key::Step));
        assert_eq!(key(KeyCode::Char('c'), none), Some(Key::Continue));
        assert_eq!(key(KeyCode::Char('q'), none), Some(Key::Quit));
        assert_eq!(
            key(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Key::Quit)
        );
        assert_eq!(
            key(KeyCode::Char('j'), KeyModifiers::CONTROL),
            Some(Key::Step)
        );
        assert_eq!(key(KeyCode::Char('x'), none), None);
    }
}
