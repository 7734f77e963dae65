# async-from-scratch: shortcuts. Nothing here is required: each recipe is one plain
# command you can also type yourself.

# List the recipes.
default:
    @just --list

# Run an example of a stage: `just run 1 countdown --virtual-time`.
run STAGE EXAMPLE *ARGS:
    cargo run -p stage{{STAGE}} --example {{EXAMPLE}} -- {{ARGS}}

# Run every test (the README's test command).
test:
    cargo test --workspace

# Review changed snapshots, one by one (needs `cargo install cargo-insta`).
snap:
    cargo insta review

# Build the book into docs/book (needs `cargo install mdbook`).
book:
    mdbook build docs

# Serve the book at http://localhost:3000, rebuilding on change.
serve:
    mdbook serve docs

# Formatting and clippy, as CI checks them.
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets -- -D warnings

# Diff two stages' sources: `just diff 1 2`.
diff A B:
    bash scripts/diff-stages.sh {{A}} {{B}}

# Idle CPU and latency of the echo servers (chapters 1 and 4).
echo-cost *STAGES:
    bash bench/echo-cost.sh {{STAGES}}

# The benchmarks (about 7 minutes on 2 cores): writes docs/src/benchmarks.md.
bench:
    bash bench/run.sh

# The benchmarks once, at reduced sizes (under a minute): writes target/bench/benchmarks.md.
bench-quick:
    BENCH_QUICK=1 bash bench/run.sh

# Instructions and system calls per operation (valgrind, strace; a few minutes): writes
# bench/measured/counts.jsonl and counts.md, which the benchmarks page includes.
bench-counts:
    bash bench/counts.sh

# W1-W4 of the Rust systems through criterion: `just bench-criterion W2/`.
bench-criterion *ARGS:
    cargo bench -p bench -- {{ARGS}}

# Everything CI runs.
ci:
    bash .ci/run
