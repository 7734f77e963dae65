//! `bench-tokio-mt`: the echo server of tokio's multi-thread runtime (`bench-tokio-mt
//! serve`), beside stage 5's `--loops N`. See `bench::cli`.

fn main() -> std::process::ExitCode {
    bench::cli::main(&bench::systems::tokio_mt::SYSTEM)
}
