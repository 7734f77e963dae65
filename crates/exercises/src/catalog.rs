//! The catalog of the book's exercises (book introduction, "Exercises"; no public source:
//! the project's own). One row per exercise, in the order a reader meets them: its number
//! and title as its box in the book gives them, the section the box is in, the file and
//! item to edit, the test that says it is done, and a hint. The runner (`cargo run -p
//! exercises`) reads nothing else, and `tests/catalog.rs` checks every row against the
//! files it names, the tests and the book.
//!
//! Adding an exercise is one row here, at its place in reading order, beside its stub,
//! solution, test and box (CONTRIBUTING.md, "Adding an exercise"). A row for an exercise
//! in another file, such as a "Build it" exercise in `src/build/`, is the same row with its
//! own `file` and `binary`; the solution is always the same path under `src/solutions/`.

/// A chapter of the book that has exercises.
#[derive(Debug, PartialEq, Eq)]
pub struct Chapter {
    /// Its number: the `N` of the exercises `N.M`.
    pub number: u32,
    /// Its title, as its first heading gives it.
    pub title: &'static str,
    /// Its file, in `docs/src/`.
    pub file: &'static str,
}

/// One exercise: where the book asks for it, what to edit, and which test says it is done.
#[derive(Debug, PartialEq, Eq)]
pub struct Exercise {
    /// `N.M`: its number in the chapter's boxes, in reading order (`1.1`, `1.2`, ...).
    pub id: &'static str,
    /// Its title, as its box gives it.
    pub title: &'static str,
    /// The chapter whose box asks for it.
    pub chapter: &'static Chapter,
    /// The heading of the section (`##` or `###`) that holds its box.
    pub section: &'static str,
    /// The file to edit, relative to `crates/exercises`.
    pub file: &'static str,
    /// What to edit in it: a function, a type, or `Type::method`.
    pub item: &'static str,
    /// The test binary that holds its test: `tests/{binary}.rs`.
    pub binary: &'static str,
    /// The test, `#[ignore = "exercise N.M: ..."]`d, that fails until it is done.
    pub test: &'static str,
    /// A nudge for someone stuck, never the answer.
    pub hint: &'static str,
}

impl Exercise {
    /// The reference solution's file, relative to `crates/exercises`: the same path under
    /// `src/solutions/` (`src/ch1.rs` is solved in `src/solutions/ch1.rs`).
    pub fn solution(&self) -> String {
        match self.file.strip_prefix("src/") {
            Some(rest) => format!("src/solutions/{rest}"),
            None => format!("solutions/{}", self.file),
        }
    }
}

/// The exercise numbered `id` (`"1.1"`), if there is one.
pub fn find(id: &str) -> Option<&'static Exercise> {
    CATALOG.iter().find(|exercise| exercise.id == id)
}

/// Chapter 1.
pub const CH1: Chapter = Chapter {
    number: 1,
    title: "Stage 1: Callbacks",
    file: "ch01-callbacks.md",
};
/// Chapter 2.
pub const CH2: Chapter = Chapter {
    number: 2,
    title: "Stage 2: Generators",
    file: "ch02-generators.md",
};
/// Chapter 3.
pub const CH3: Chapter = Chapter {
    number: 3,
    title: "Stage 3: Tasks",
    file: "ch03-tasks.md",
};
/// Chapter 4.
pub const CH4: Chapter = Chapter {
    number: 4,
    title: "Stage 4: Select",
    file: "ch04-select.md",
};
/// Chapter 5.
pub const CH5: Chapter = Chapter {
    number: 5,
    title: "Stage 5: The event loop",
    file: "ch05-event-loop.md",
};
/// Chapter 6.
pub const CH6: Chapter = Chapter {
    number: 6,
    title: "Stage 5: Futures and tasks",
    file: "ch06-futures-tasks.md",
};
/// Chapter 7.
pub const CH7: Chapter = Chapter {
    number: 7,
    title: "Stage 5: I/O, threads and signals",
    file: "ch07-io.md",
};
/// Chapter 8.
pub const CH8: Chapter = Chapter {
    number: 8,
    title: "Stage 5: Transports, protocols and streams",
    file: "ch08-transports.md",
};
/// Chapter 9.
pub const CH9: Chapter = Chapter {
    number: 9,
    title: "Your loop runs asyncio",
    file: "ch09-asyncio-on-our-loop.md",
};
/// Chapter 10.
pub const CH10: Chapter = Chapter {
    number: 10,
    title: "Stage 6: Completion, asyncio's proactor on io_uring",
    file: "ch10-proactor.md",
};

/// Every exercise, in the order the book asks for them.
#[rustfmt::skip] // a table: one exercise per block, aligned as rows rather than as code
pub const CATALOG: &[Exercise] = &[
    Exercise { id: "1.1", title: "let the timers in", chapter: &CH1, section: "Running it",
        file: "src/ch1.rs", item: "chunked", binary: "ch1", test: "ex1_1_a_due_timer_runs_between_chunks",
        hint: "Stage 1's `run` looks at the timer heap only when nothing is ready, and every chunk makes \
               the next one ready before that. Which other way of saying \"as soon as possible\" queues \
               the next chunk behind the timers that are already due?" },
    Exercise { id: "1.2", title: "`call_at`", chapter: &CH1, section: "Time without waiting",
        file: "src/ch1.rs", item: "call_at", binary: "ch1", test: "ex1_2_call_at_is_a_time_not_a_delay",
        hint: "`call_later` wants a delay from now, and `s.time()` says what time it is now. A time \
               already past would make the delay negative, which a `Duration` cannot be: look for a \
               subtraction that stops at zero instead of panicking." },
    Exercise { id: "1.3", title: "pop when promised", chapter: &CH1, section: "The queue and its bug",
        file: "src/ch1.rs", item: "CallbackQueue::get", binary: "ch1", test: "ex1_3_two_consumers_one_item",
        hint: "Between `get` seeing an item and its callback popping it, a second `get` sees the same \
               item. What if the item left the deque in `get` itself, and the callback carried it?" },
    Exercise { id: "1.4", title: "the callback scheduler", chapter: &CH1, section: "Build it",
        file: "src/build/ch1.rs", item: "Scheduler::run", binary: "build_ch1", test: "ex1_4_run_matches_stage_1",
        hint: "Look at the heap only when the ready queue is empty, and take one sleeper off it, not \
               every one that is due: what it makes ready, and what that schedules, runs before the \
               next one comes out. Pop each callback in a statement of its own, so that no borrow of \
               the queue is alive while it runs and schedules more." },
    Exercise { id: "2.1", title: "a generator by hand", chapter: &CH2, section: "Generators by hand",
        file: "src/ch2.rs", item: "Squares", binary: "ch2", test: "ex2_1_squares_pause_after_every_line",
        hint: "`squares` pauses at its `yield`, after each square. What is alive there and needed to go \
               on? Give that place a variant holding it, and let `resume` decide from the variant it \
               finds what to print next (with `stage1::say!`) or whether it is done." },
    Exercise { id: "2.2", title: "pause n times", chapter: &CH2, section: "A primer: `poll`, `Pin`, `Context` and `Waker`",
        file: "src/ch2.rs", item: "Pause::poll", binary: "ch2", test: "ex2_2_pause_is_pending_n_times_and_asks_to_be_polled_again",
        hint: "Count `left` down, one per poll. A future that answers `Pending` promises that someone \
               will wake its waker; nobody else will here, so `poll` must ask for itself, each time \
               (the `Context` carries the waker)." },
    Exercise { id: "2.3", title: "close wakes every waiter", chapter: &CH2, section: "The queue",
        file: "src/ch2.rs", item: "Mailbox::close", binary: "ch2", test: "ex2_3_close_wakes_every_waiting_consumer",
        hint: "Every waiter must be resumed, not the first. A resumed consumer borrows the state again, \
               so take all the waiters out first, let the borrow end, then resume them." },
    Exercise { id: "2.4", title: "generators that sleep, in turn", chapter: &CH2, section: "Build it",
        file: "src/build/ch2.rs", item: "Scheduler::run", binary: "build_ch2", test: "ex2_4_round_robin_matches_stage_2",
        hint: "One resume per turn, and the heap only when nothing is ready, one sleeper at a time: a \
               task that switches at a deadline runs again before the other sleepers due then. What \
               `resume` returns is all the scheduler needs to know where the task goes next." },
    Exercise { id: "3.1", title: "a task is a callback", chapter: &CH3, section: "Both worlds on one scheduler",
        file: "src/ch3.rs", item: "spawn_after", binary: "ch3", test: "ex3_1_the_first_step_runs_after_the_delay",
        hint: "`new_task` makes a `Task` and schedules its first step (`run`) at once. Make the task \
               yourself, and schedule that first step the way stage 1 schedules any callback for \
               later." },
    Exercise { id: "3.2", title: "from a callback to a task", chapter: &CH3, section: "What asyncio keeps",
        file: "src/ch3.rs", item: "Receiver::recv", binary: "ch3", test: "ex3_2_a_task_waits_for_a_callback_without_polling",
        hint: "No value yet: leave `runtime::suspend()`'s handle in the slot, `switch().await`, and look \
               again; `send` takes the handle and resumes it. The value can also never come: what runs \
               when a `Sender` is dropped without sending?" },
    Exercise { id: "3.3", title: "the talk's `Task.__call__`", chapter: &CH3, section: "Build it",
        file: "src/build/ch3.rs", item: "Task::step", binary: "build_ch3", test: "ex3_3_task_step_matches_stage_3",
        hint: "After the poll, the `current` slot says who reschedules the task: still there, nobody \
               did, so you must; emptied by `sleep`, `call_later` already has. A coroutine still \
               pending goes back into the task; a finished one never does." },
    Exercise { id: "4.1", title: "the select timeout", chapter: &CH4, section: "The run loop with I/O",
        file: "src/ch4.rs", item: "select_timeout", binary: "ch4", test: "ex4_1_how_long_select_may_block",
        hint: "Three cases: no timer, the virtual clock, a real deadline. For the last, `deadline - now` \
               panics once the deadline has passed; `Duration` has a subtraction that stops at zero." },
    Exercise { id: "4.2", title: "due at the deadline", chapter: &CH4, section: "The talk's bugs, fixed",
        file: "src/ch4.rs", item: "is_due", binary: "ch4", test: "ex4_2_a_timer_due_exactly_now_runs_and_the_loop_does_not_spin",
        hint: "The virtual clock jumps exactly to the deadline, so the loop asks `is_due(deadline, now)` \
               with the two equal. What does `deadline < now` answer then, and what should it?" },
    Exercise { id: "4.3", title: "`sendall`", chapter: &CH4, section: "The talk's bugs, fixed",
        file: "src/ch4.rs", item: "sendall", binary: "ch4", test: "ex4_3_sendall_writes_every_byte_or_says_why_not",
        hint: "Loop until nothing is left, moving past what each `write` took. `Interrupted` means try \
               again; a `write` that takes 0 bytes will never take more, which `ErrorKind` names." },
    Exercise { id: "4.4", title: "the run loop with `select`", chapter: &CH4, section: "Build it",
        file: "src/build/ch4.rs", item: "Scheduler::run", binary: "build_ch4", test: "ex4_4_select_loop_matches_stage_4",
        hint: "Go on while anything is ready, asleep or waiting (`pending` counts them). The timeout \
               ends at the earliest timer, or there is none when no timer sleeps; the sockets' \
               callbacks go in before the timers that came due." },
    Exercise { id: "5.1", title: "call it off", chapter: &CH5, section: "Step 1: clean the heap",
        file: "src/ch5.rs", item: "Timeout", binary: "ch5", test: "ex5_1_disarmed_timeouts_leave_the_heap",
        hint: "`call_later` returns a handle, and a cancelled handle is what step 1 takes out of the \
               heap. Keep the handle in `Timeout` instead of the flag." },
    Exercise { id: "5.2", title: "predict the order", chapter: &CH5, section: "Step 3: select",
        file: "src/ch5.rs", item: "predicted_order", binary: "ch5", test: "ex5_2_the_predicted_order_is_the_loops",
        hint: "One iteration runs the batch that was ready when it began. Read step 4: where do the due \
               timers go in the ready queue, front or back? And when does what a callback queues run?" },
    Exercise { id: "5.3", title: "one tick per turn", chapter: &CH5, section: "Step 5: run the batch",
        file: "src/ch5.rs", item: "ticker", binary: "ch5", test: "ex5_3_a_due_timer_runs_after_one_tick",
        hint: "Make each tick its own callback, which schedules the next. On this loop a callback \
               queued during an iteration runs in the next one, after the timers due by then." },
    Exercise { id: "5.4", title: "`run_once` in five steps", chapter: &CH5, section: "Build it",
        file: "src/build/ch5.rs", item: "MiniLoop::run_once", binary: "build_ch5", test: "ex5_4_run_once_matches_stage_5",
        hint: "Drop the cancelled timers off the heap's head before computing the timeout, and do not \
               wait at all while a handle is ready. Count the ready handles before running any: what \
               they schedule waits for the next iteration." },
    Exercise { id: "6.1", title: "an `Event`", chapter: &CH6, section: "The queue",
        file: "src/ch6.rs", item: "Event::set", binary: "ch6", test: "ex6_1_set_wakes_every_waiter_and_clear_makes_them_wait_again",
        hint: "`set` completes the first waiter's future only. Take every future out of the deque and \
               complete each; a waiter after `clear` will leave a new one." },
    Exercise { id: "6.2", title: "a `Lock`", chapter: &CH6, section: "The queue",
        file: "src/ch6.rs", item: "Lock::acquire", binary: "ch6", test: "ex6_2_a_cancelled_waiter_leaves_no_trace_and_passes_the_lock_on",
        hint: "A cancelled task's future is dropped where it awaits, and with it whatever `acquire` holds \
               across that `await`. A guard with a `Drop` can clean up: is our waiter still pending (leave \
               the deque), or was the lock handed to us already (pass it on)?" },
    Exercise { id: "6.3", title: "`shield`", chapter: &CH6, section: "Waiting for several things",
        file: "src/ch6.rs", item: "shield", binary: "ch6", test: "ex6_3_a_timeout_on_a_shielded_future_leaves_the_work_running",
        hint: "Return a new future, not `inner`. A done callback on `inner` copies its outcome over (a \
               result, an exception, a cancel), unless the new future was cancelled first." },
    Exercise { id: "6.4", title: "a `TaskGroup`", chapter: &CH6, section: "Waiting for several things",
        file: "src/ch6.rs", item: "TaskGroup::wait", binary: "ch6", test: "ex6_4_the_first_failure_cancels_the_rest_at_once",
        hint: "`gather` fails at the first failure, whichever task it comes from. When it does, cancel \
               every task, and await each until it has ended before returning the error." },
    Exercise { id: "6.5", title: "a future and its done callbacks", chapter: &CH6, section: "Build it",
        file: "src/build/ch6.rs", item: "MiniFuture", binary: "build_ch6", test: "ex6_5_done_callbacks_match_stage_5",
        hint: "Never call a done callback yourself, in `set_result` or in `add_done_callback`: hand \
               each to `lp.call_soon`, also when the future is already done. Take the list out of the \
               `RefCell` before scheduling, and give the closure a clone of the future to pass on." },
    Exercise { id: "7.1", title: "level-triggered", chapter: &CH7, section: "Level against edge, and why this selector is not stage 4's",
        file: "src/ch7.rs", item: "predicted_calls", binary: "ch7", test: "ex7_1_the_predicted_calls_are_the_loops",
        hint: "A level-triggered selector reports the socket in every iteration in which unread bytes \
               remain, and the reader is called once per iteration. How many calls until the bytes are \
               gone? And if nothing was sent, or the reader reads nothing?" },
    Exercise { id: "7.2", title: "a value from another thread", chapter: &CH7, section: "Threads",
        file: "src/ch7.rs", item: "Receiver::poll", binary: "ch7", test: "ex7_2_a_value_from_another_thread_wakes_the_waiting_task",
        hint: "When `poll` answers `Pending`, keep a clone of the `Context`'s waker in `Shared`. `send` \
               and the `Sender`'s `drop` take it and wake it, after they let go of the lock." },
    Exercise { id: "7.3", title: "a writer that waits for room", chapter: &CH7, section: "Socket operations",
        file: "src/ch7.rs", item: "sendall", binary: "ch7", test: "ex7_3_sendall_waits_for_room_and_removes_its_writer",
        hint: "`WouldBlock` means \"no room yet\", not an error. Write until then; if bytes remain, \
               `add_writer` a callback that writes more each time the loop calls it, and that removes \
               itself (`remove_writer`) when all is sent or an error comes." },
    Exercise { id: "7.4", title: "a reader plus a future", chapter: &CH7, section: "Build it",
        file: "src/build/ch7.rs", item: "sock_recv", binary: "build_ch7", test: "ex7_4_sock_recv_matches_stage_5",
        hint: "Try first; only \"would block\" needs a reader. The reader tries again each time it is \
               called, waits on if it would block again, and removes itself once it has completed \
               the future: a socket at its end stays readable for ever." },
    Exercise { id: "8.1", title: "a line-based protocol", chapter: &CH8, section: "Reading: the reader is the transport's",
        file: "src/ch8.rs", item: "Lines", binary: "ch8", test: "ex8_1_lines_are_answered_whole_however_they_arrive",
        hint: "`data_received` gets whatever bytes arrived, not a line. Append them to `buffer`, then \
               answer each line the buffer now holds up to its `\\n`, taking it out; what is after \
               the last `\\n` stays for the next call." },
    Exercise { id: "8.2", title: "`drain` by hand", chapter: &CH8, section: "Flow control",
        file: "src/ch8.rs", item: "Drain::drain", binary: "ch8", test: "ex8_2_drain_keeps_the_write_buffer_near_the_high_water_mark",
        hint: "Unless paused, return at once. Paused: make a future with the loop, keep it in \
               `waiter`, and await it; `resume` takes it out and sets its result." },
    Exercise { id: "8.3", title: "a transport's write buffer", chapter: &CH8, section: "Build it",
        file: "src/build/ch8.rs", item: "WriteBuffer", binary: "build_ch8", test: "ex8_3_the_write_buffer_matches_stage_5",
        hint: "Only an empty buffer may try the socket: bytes behind others wait their turn. The writer \
               is added when the buffer stops being empty and removes itself when it is empty again. \
               Compare the size with a mark after each change, and let `paused` make each call happen \
               once; drop the buffer's borrow before calling the protocol." },
    Exercise { id: "9.1", title: "a callback's exception, sorted", chapter: &CH9, section: "How a Python callback becomes a Rust handle",
        file: "src/ch9.rs", item: "failed", binary: "ch9", test: "ex9_1_only_system_exit_and_keyboard_interrupt_leave_run_forever",
        hint: "`Handle._run` names two classes to let go up, not one class to catch. Which variants \
               of `Raised` are those two? Everything else, `Exception` or not, is the handler's." },
    Exercise { id: "9.2", title: "`call_soon_threadsafe`'s order", chapter: &CH9, section: "Other threads and the self-pipe",
        file: "src/ch9.rs", item: "call_soon", binary: "ch9", test: "ex9_2_a_threadsafe_call_made_first_runs_first",
        hint: "The other thread's callback is already in stage 5's remote queue, waiting for step 3. \
               Stage 5 has a public method that moves that queue into the ready queue now." },
    Exercise { id: "10.1", title: "the buffer handed back", chapter: &CH10, section: "Who owns the buffer",
        file: "src/ch10.rs", item: "echo_once", binary: "ch10", test: "ex10_1_only_what_came_is_sent_back_and_the_same_buffer_comes_back_whole",
        hint: "`sock_recv_into` hands the buffer back with a count: only that many bytes are the \
               peer's. Cut the buffer to the count before `sock_sendall` takes it, and when it comes \
               back, make it its old length again: `Vec` keeps its capacity, so nothing is copied." },
    Exercise { id: "10.2", title: "free only when the kernel says", chapter: &CH10, section: "Cancel is a request",
        file: "src/ch10.rs", item: "call_off", binary: "ch10", test: "ex10_2_a_cancelled_receive_is_free_only_after_the_kernels_answer",
        hint: "A cancelled future is not a free buffer: the cancel request goes to the kernel at the \
               next `io_uring_enter`, and its answer comes back as a completion. Run the loop an \
               iteration at a time until `in_flight` is 0, with a callback ready so that no \
               iteration blocks, and give up after `limit`." },
    Exercise { id: "10.3", title: "the completion dispatch", chapter: &CH10, section: "Build it",
        file: "src/build/ch10.rs", item: "MiniProactor::dispatch", binary: "build_ch10", test: "ex10_3_each_completion_resolves_its_own_future_as_stage_6s",
        hint: "The kernel completes operations in the order their data comes, not the order they \
               were submitted. Each completion carries its key (`done.key`): remove that key's \
               future from `waiting`, in a statement of its own so the borrow ends, skip it if it is \
               done (cancelled), and set it from `done.result` and the buffer in `done.op`." },
];
