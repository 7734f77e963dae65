//! `bench-stage6`: stage 6's W2 and its echo server (W5, W6), one JSON line each. See
//! `bench::cli`.

fn main() -> std::process::ExitCode {
    bench::cli::main(&bench::systems::stage6::SYSTEM)
}
