//! Chapter 2's exercises, solved (book chapter 2; Beazley's talk, its generators). Compare
//! with `src/ch2.rs`, the stubs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use scaffold::say;
use stage2::generator::{Generator, GeneratorState};
use stage2::runtime::{self, Suspended};
use stage2::switch;

/// Exercise 2.1: `squares(n)` as a generator by hand. The talk would write
/// `for i in range(1, n + 1): print('Square', i * i); yield`.
#[derive(Debug)]
pub enum Squares {
    /// Created, not yet resumed.
    Start {
        /// The argument.
        n: u32,
    },
    /// Paused at the `yield` after printing `i * i`.
    Paused {
        /// The loop variable.
        i: u32,
        /// The argument, still needed after the pause.
        n: u32,
    },
    /// Returned.
    Done,
}

impl Squares {
    /// `squares(n)`, not started.
    pub fn new(n: u32) -> Self {
        Squares::Start { n }
    }
}

impl Generator for Squares {
    fn resume(&mut self) -> GeneratorState {
        let (i, n) = match *self {
            Squares::Start { n } => (1, n),
            Squares::Paused { i, n } => (i + 1, n),
            Squares::Done => return GeneratorState::Complete,
        };
        if i <= n {
            say!("Square {}", i * i);
            *self = Squares::Paused { i, n };
            GeneratorState::Yielded
        } else {
            *self = Squares::Done;
            GeneratorState::Complete
        }
    }
}

/// Exercise 2.2: a future that is `Pending` `n` times, then `Ready`: `switch()`, `n` times
/// over. Each time it returns `Pending` it must say it wants to be polled again, by waking
/// the waker its `Context` carries.
#[derive(Debug)]
pub struct Pause {
    left: u32,
}

/// Pause `n` times.
pub fn pause(n: u32) -> Pause {
    Pause { left: n }
}

impl Future for Pause {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.left == 0 {
            return Poll::Ready(());
        }
        self.left -= 1;
        // Nothing else will wake us: ask to be polled again at once.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Exercise 2.3: a small awaitable queue, whose `close` must wake *every* waiting consumer.
pub struct Mailbox<T> {
    state: Rc<RefCell<State<T>>>,
}

struct State<T> {
    items: VecDeque<T>,
    waiting: VecDeque<Suspended>,
    closed: bool,
}

impl<T> Clone for Mailbox<T> {
    fn clone(&self) -> Self {
        Mailbox {
            state: self.state.clone(),
        }
    }
}

impl<T> Default for Mailbox<T> {
    fn default() -> Self {
        Mailbox {
            state: Rc::new(RefCell::new(State {
                items: VecDeque::new(),
                waiting: VecDeque::new(),
                closed: false,
            })),
        }
    }
}

impl<T> Mailbox<T> {
    /// Add `item` and make the first waiting consumer ready.
    pub fn put(&self, item: T) {
        let mut state = self.state.borrow_mut();
        state.items.push_back(item);
        if let Some(waiter) = state.waiting.pop_front() {
            drop(state); // the borrow ends before the waiter is resumed
            waiter.resume();
        }
    }

    /// The next item; `None` once the mailbox is closed and empty.
    pub async fn get(&self) -> Option<T> {
        loop {
            {
                let mut state = self.state.borrow_mut();
                if let Some(item) = state.items.pop_front() {
                    return Some(item);
                }
                if state.closed {
                    return None;
                }
                state.waiting.push_back(runtime::suspend());
            }
            switch().await;
        }
    }

    /// Close the mailbox: every waiting consumer is woken, to find it closed.
    pub fn close(&self) {
        let waiters: Vec<Suspended> = {
            let mut state = self.state.borrow_mut();
            state.closed = true;
            state.waiting.drain(..).collect()
        };
        for waiter in waiters {
            waiter.resume();
        }
    }
}
