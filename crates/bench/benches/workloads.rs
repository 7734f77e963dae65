//! `cargo bench -p bench`: W1 to W4 for every Rust system through criterion, one group per
//! workload, at the sizes of `bench/params.env` (environment variables override them, as
//! for `bench/run.sh`). Each iteration is one whole run of the workload, timed by the same
//! code the `bench-SYSTEM` binaries use, so criterion's figures are per run: divide by the
//! workload's size for per-operation figures. `bench/run.sh` is what writes the book's
//! table; this is for looking closer at one workload, e.g.
//! `cargo bench -p bench -- W2/`.

use std::time::Duration;

use bench::Params;
use bench::systems::ALL;
use criterion::{Criterion, criterion_group, criterion_main};

fn workloads(c: &mut Criterion) {
    let params = Params::load().expect("bench/params.env");
    for id in ["W1", "W2", "W3", "W4"] {
        let mut group = c.benchmark_group(id);
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        for system in ALL {
            for w in system.workloads.iter().filter(|w| w.id == id) {
                group.bench_function(w.system, |b| {
                    b.iter_custom(|iters| (0..iters).map(|_| (w.run)(&params).wall).sum())
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, workloads);
criterion_main!(benches);
