//! What one operation keeps while the kernel has it, in one allocation (book chapter 10, "What
//! it costs"; asyncio's `_OverlappedFuture` keeps its `Overlapped` object, and
//! `IocpProactor._cache` the callback beside it).
//!
//! The number the kernel knows it by, the future its completion resolves, what runs then,
//! the socket, and the result until the awaiting task takes it: each of those was an
//! allocation of its own (a shared cell for the number, a boxed closure for the
//! continuation, another shared cell for the result). Here they are fields of one
//! `Record`, and the continuation is a plain function, not a closure: what it needs is
//! in the record. The proactor keeps the record (as `Rc<dyn Complete>`) until the
//! completion comes; the future's result is the same record, its value moved out once.
//!
//! Nothing here is what the chapter teaches; it only makes each operation cheaper.

use std::cell::{Cell, RefCell};
use std::os::fd::AsRawFd;
use std::rc::Rc;

use stage5::{CallbackId, Error, Future};

use super::{Slot, finish};
use crate::proactor::{Complete, Uring};
use crate::ring::{Done, Key};

/// What an operation's completion does.
pub(crate) enum Continue<T> {
    /// Make the future's result out of the completion.
    Finish(fn(Done) -> Result<T, Error>),
    /// Anything else (a send submits its rest): it finishes the record itself.
    Then(fn(&Rc<Uring>, Done, &Rc<Record<T>>)),
}

/// One operation's number, future, continuation, socket and result.
pub(crate) struct Record<T> {
    /// The number the kernel holds it under; `None` once it answered.
    pub(crate) key: Cell<Option<Key>>,
    /// The result, from the completion until the awaiting task takes it.
    pub(crate) value: Cell<Option<T>>,
    /// The future, until it is finished (then it holds this record as its result).
    pub(crate) future: RefCell<Option<Future<Slot<T>>>>,
    /// The done callback that asks the kernel to cancel, removed on completion.
    pub(crate) callback: Cell<Option<CallbackId>>,
    /// The socket, held open until the kernel answers.
    pub(crate) socket: Rc<dyn AsRawFd>,
    then: Continue<T>,
}

impl<T: 'static> Record<T> {
    /// The record of an operation that `future` stands for.
    pub(crate) fn new(
        future: Future<Slot<T>>,
        socket: Rc<dyn AsRawFd>,
        then: Continue<T>,
    ) -> Rc<Record<T>> {
        Rc::new(Record {
            key: Cell::new(None),
            value: Cell::new(None),
            future: RefCell::new(Some(future)),
            callback: Cell::new(None),
            socket,
            then,
        })
    }

    /// True once its future is done (cancelled, say, between two sends).
    pub(crate) fn done(&self) -> bool {
        self.future.borrow().as_ref().is_none_or(Future::done)
    }
}

impl<T: 'static> Complete for Record<T> {
    fn complete(self: Rc<Self>, uring: &Rc<Uring>, done: Done) {
        match self.then {
            Continue::Finish(make) => finish(&self, make(done)),
            Continue::Then(then) => then(uring, done, &self),
        }
    }
}
