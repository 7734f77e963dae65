//! `bench-tokio`: the in-process workloads (W1-W4) of tokio, one JSON line each, and
//! its echo server (`bench-tokio serve`) for W5 and W6. See `bench::cli`.

fn main() -> std::process::ExitCode {
    bench::cli::main(&bench::systems::tokio::SYSTEM)
}
