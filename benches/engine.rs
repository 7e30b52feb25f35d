//! Engine throughput: simulated requests per wall second on the M/M/c model of the issue
//! (lambda = 9000/s, c = 10, mu = 1000/s) and on a three-layer scenario.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn load(path: &str, duration: &str) -> cascade::Model {
    let text = std::fs::read_to_string(path).expect("benchmark scenario");
    let set = cascade::scenario::Override {
        path: "scenario.duration".into(),
        value: duration.into(),
    };
    cascade::scenario::load_str(path, &text, &[set])
        .expect("valid benchmark scenario")
        .model
}

fn requests(model: &cascade::Model) -> u64 {
    let r = cascade::simulate(model).expect("the bench scenario runs");
    model
        .clients
        .iter()
        .map(|c| {
            r.metrics
                .get(&format!("client.{}.requests", c.name))
                .unwrap_or(0.0) as u64
        })
        .sum()
}

fn engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine");
    group.sample_size(20);
    for (name, path, duration) in [
        ("mmc_9000rps_10s", "scenarios/bench-mmc.toml", "10s"),
        (
            "three_layers_3000rps_10s",
            "scenarios/bench-layers.toml",
            "10s",
        ),
    ] {
        let model = load(path, duration);
        group.throughput(Throughput::Elements(requests(&model)));
        group.bench_function(name, |b| {
            b.iter(|| black_box(cascade::simulate(black_box(&model))))
        });
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
