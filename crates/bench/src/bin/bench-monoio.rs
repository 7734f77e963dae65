//! `bench-monoio`: monoio's echo server (`bench-monoio serve`) for W5 and W6. See
//! `bench::cli`.

fn main() -> std::process::ExitCode {
    bench::cli::main(&bench::systems::monoio::SYSTEM)
}
