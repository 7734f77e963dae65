//! `bench-stage5`: the in-process workloads (W1-W4) of stage5, one JSON line each (its
//! echo server is the stage's own `echo_server` example). See `bench::cli`.

fn main() -> std::process::ExitCode {
    bench::cli::main(&bench::systems::stage5::SYSTEM)
}
