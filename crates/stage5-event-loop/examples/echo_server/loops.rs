//! `echo_server --loops N`: one event loop per thread, N threads (the book's "Beyond one
//! core", after chapter 7; no public source: the talk's scheduler, like asyncio's loop, runs
//! on one thread, and asyncio's answer to "how do I use more cores?" is more loops, one
//! per process or thread).
//!
//! Loop 0 runs on the main thread and handles the signals; loops 1 to N-1 run on threads
//! of their own. Each has its own listening socket, bound to the same port with
//! `SO_REUSEPORT`, so the kernel spreads new connections between them, and nothing else
//! in common: its own tasks, its own console, its own `EchoServer`. A loop is an `Rc` and
//! cannot leave its thread; what crosses threads is a `ThreadsafeLoop`, and the only message
//! is loop 0's request to stop, sent with `call_soon_threadsafe` when a signal comes. Each
//! loop then shuts down gracefully on its own, and its thread hands back what it served
//! when it ends. A second SIGINT or SIGTERM sets a flag they share and sends `stop` again:
//! each loop then cuts what it still has open. A loop the operating system refuses (each needs an epoll descriptor, a
//! self-pipe and a listener: `--loops 300` under `ulimit -n 1024` runs out) is an error
//! that names the loop and the reason, never a panic.

use std::net::TcpListener;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;

use scaffold::{Clock, Options};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use stage5::{Error, EventLoop, ThreadsafeLoop, say};

use super::{EchoServer, Settings, Summary, producer_consumer, serve_with};

/// How the server runs: how it serves, on how many loops, and what runs beside it.
#[derive(Debug, Clone)]
pub struct Config {
    /// How each loop's server answers and stops.
    pub settings: Settings,
    /// How many event loops (`--loops`), each on its own thread.
    pub loops: usize,
    /// `--with-producer N`: the talk's producer and consumer, on loop 0.
    pub with_producer: Option<u32>,
}

// ANCHOR: run
/// Serve on `listener` with `config.loops` loops until SIGINT, SIGTERM or SIGHUP, then
/// shut every loop down gracefully. Loop 0 runs here, on `clock`; each other loop gets a
/// thread, a console made from `options`, and a listener of its own on the same port.
/// Returns each loop's summary, loop 0's first. The three signals stay held for the rest
/// of the process ([`stage5::hold_signal`]): once loop 0 has closed they are ignored.
pub fn run(
    clock: Rc<dyn Clock>,
    options: Options,
    listener: TcpListener,
    config: &Config,
) -> Result<Vec<Summary>, Error> {
    let addr = listener.local_addr()?;
    let mut others = Others(Vec::new());
    let cut = Arc::new(AtomicBool::new(false)); // set by a second signal
    for i in 1..config.loops {
        let listener = scaffold::net::listen_reuse_port(addr).map_err(Error::custom)?;
        let settings = named(&config.settings, i, config.loops);
        // Each loop records its own `--record` (loop 0 writes them all: one file, one
        // writer); `--timeline` draws one loop, and is refused with several.
        let options = Options {
            timeline: None,
            ..options.clone()
        };
        others
            .0
            .push(Other::spawn(i, options, listener, settings, cut.clone())?);
    }
    // Out of file descriptors, say: the operating system's reason, not a panic.
    let lp = EventLoop::try_with_clock(clock).map_err(cannot_create)?;
    let server = serve_with(&lp, listener, named(&config.settings, 0, config.loops))?;
    let remotes: Rc<[ThreadsafeLoop]> = others.0.iter().map(|o| o.remote.clone()).collect();
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        let again = (sig != SIGHUP).then(|| cut.clone()); // a terminal gone twice: no hurry
        lp.add_signal_handler(sig, stop_all(server.clone(), remotes.clone(), again))?;
        // Closing the loop puts the signal's default action back; a third Ctrl-C then
        // would end the process before it says its last line and exits with its code.
        stage5::hold_signal(sig)?;
    }
    if let Some(count) = config.with_producer {
        producer_consumer::start(&lp, count)?;
    }
    let outcome = lp.run_forever();
    let closing = lp.close();
    outcome?;
    closing?;
    let mut summaries = vec![server.summary()];
    summaries.extend(others.join()?);
    if config.loops > 1 {
        let served: usize = summaries.iter().map(|s| s.served).sum();
        say!("clients served: {served}");
    }
    match summaries.iter().map(|s| s.cut).sum::<usize>() {
        0 => Ok(summaries),
        1 => Err(Error::msg("stopped by a second signal: 1 connection cut")),
        n => Err(Error::msg(format!(
            "stopped by a second signal: {n} connections cut"
        ))),
    }
}
// ANCHOR_END: run

// ANCHOR: stop_all
/// Loop 0's signal handler: tell the other loops to stop (once), and shut down its own
/// server. The message is only `stop`: a loop's server is an `Rc` on its own thread,
/// which no closure sent from here can carry; the thread that owns it does the rest. A
/// second signal, if `cut` is given, sets it, sends `stop` again, and cuts loop 0's own.
fn stop_all(
    server: Rc<EchoServer>,
    others: Rc<[ThreadsafeLoop]>,
    cut: Option<Arc<AtomicBool>>,
) -> impl FnMut(&EventLoop) {
    move |lp| {
        let again = server.stopping();
        if again {
            let Some(cut) = &cut else { return }; // SIGHUP again: the shutdown goes on
            cut.store(true, Ordering::Relaxed);
        }
        for other in others.iter() {
            // A loop that has ended already (its thread failed) needs no telling.
            drop(other.call_soon_threadsafe(EventLoop::stop));
        }
        match again {
            false => server.shutdown(lp),
            true => server.cut(),
        }
    }
}
// ANCHOR_END: stop_all

/// Why a loop could not be made (the operating system refused its selector or self-pipe),
/// in words that say what failed.
fn cannot_create(error: Error) -> Error {
    Error::msg(format!("cannot create the event loop: {error}"))
}

/// `settings` for loop `i` of `loops`: named `loop i: ` when there are several.
fn named(settings: &Settings, i: usize, loops: usize) -> Settings {
    let name = if loops > 1 {
        format!("loop {i}: ")
    } else {
        String::new()
    };
    Settings {
        name,
        ..settings.clone()
    }
}

/// A loop on a thread of its own: what reaches it from other threads, and the thread.
struct Other {
    remote: ThreadsafeLoop,
    thread: thread::JoinHandle<Result<Summary, String>>,
}

impl Other {
    // ANCHOR: other_loop
    /// Start loop `i` on a new thread, and wait until it serves (its `ThreadsafeLoop` comes back).
    fn spawn(
        i: usize,
        options: Options,
        listener: TcpListener,
        settings: Settings,
        cut: Arc<AtomicBool>,
    ) -> Result<Other, Error> {
        let (ready, serving) = mpsc::sync_channel(1);
        let thread = thread::Builder::new().name(format!("loop {i}")).spawn(
            move || -> Result<Summary, String> {
                let lp = EventLoop::try_with_clock(options.install_loop())
                    .map_err(|e| cannot_create(e).to_string())?;
                let server = serve_with(&lp, listener, settings).map_err(|e| e.to_string())?;
                if ready.send(lp.threadsafe()).is_err() {
                    return Ok(server.summary()); // loop 0 gave up before we started
                }
                // Serve until loop 0's `stop` comes, then shut down as loop 0 does; a `stop`
                // while connections are still open is the second signal's: cut them.
                lp.run_forever().map_err(|e| e.to_string())?;
                server.shutdown(&lp);
                while server.open_count() > 0 {
                    if cut.load(Ordering::Relaxed) {
                        server.cut();
                    }
                    lp.run_forever().map_err(|e| e.to_string())?;
                }
                lp.close().map_err(|e| e.to_string())?;
                options.finish_loop(i); // its recording, for loop 0 to write
                Ok(server.summary())
            },
        )?;
        match serving.recv() {
            Ok(remote) => Ok(Other { remote, thread }),
            // The thread ended before it could serve: say why.
            Err(_) => Err(Error::msg(match thread.join() {
                Ok(Err(why)) => format!("loop {i}: {why}"),
                _ => format!("loop {i} did not start"),
            })),
        }
    }
    // ANCHOR_END: other_loop
}

/// The other loops. Dropped early (loop 0 failed), it stops them and waits for them.
struct Others(Vec<Other>);

impl Others {
    /// Wait for every other loop to end; their summaries, in order.
    fn join(mut self) -> Result<Vec<Summary>, Error> {
        let mut summaries = Vec::new();
        for (i, other) in std::mem::take(&mut self.0).into_iter().enumerate() {
            match other.thread.join() {
                Ok(Ok(summary)) => summaries.push(summary),
                Ok(Err(why)) => return Err(Error::msg(format!("loop {}: {why}", i + 1))),
                Err(_) => return Err(Error::msg(format!("loop {} panicked", i + 1))),
            }
        }
        Ok(summaries)
    }
}

impl Drop for Others {
    fn drop(&mut self) {
        for other in &self.0 {
            // Already ended: nothing to stop.
            drop(other.remote.call_soon_threadsafe(EventLoop::stop));
        }
        for other in self.0.drain(..) {
            // Loop 0's own error is the one reported; theirs would only repeat it.
            drop(other.thread.join());
        }
    }
}
