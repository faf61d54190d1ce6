//! Criterion benches: throughput on a narrative-heavy and an action-heavy
//! corpus, whole and in 1/4/16/64-byte chunks; the re-parse-per-chunk
//! baseline; serde_json alone on the same blocks; hostile inputs at n and
//! 2n. For ratios measured in one run, see `examples/bench_report.rs`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

#[path = "support/mod.rs"]
mod support;

fn throughput(c: &mut Criterion) {
    let corpora = [
        ("narrative", support::narrative_corpus(100_000)),
        ("actions", support::action_corpus(100_000)),
    ];
    let mut g = c.benchmark_group("throughput");
    g.sample_size(20);
    for (name, text) in &corpora {
        g.throughput(Throughput::Bytes(text.len() as u64));
        for chunk in [0usize, 1, 4, 16, 64] {
            let label = if chunk == 0 {
                "whole".to_string()
            } else {
                format!("{chunk}B")
            };
            g.bench_with_input(BenchmarkId::new(*name, label), text, |b, t| {
                b.iter(|| support::parse_chunked(black_box(t.as_bytes()), chunk))
            });
        }
        let blocks = support::blocks(text);
        g.bench_with_input(
            BenchmarkId::new(*name, "serde_json floor"),
            &blocks,
            |b, bl| b.iter(|| support::serde_floor(black_box(bl))),
        );
    }
    g.finish();
}

fn baseline(c: &mut Criterion) {
    // The baseline is quadratic: a 10 KB response keeps it measurable.
    let text = support::action_corpus(10_000);
    let mut g = c.benchmark_group("reparse_baseline_10KB");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    for chunk in [4usize, 64] {
        g.bench_with_input(BenchmarkId::new("baseline", chunk), &text, |b, t| {
            b.iter(|| support::reparse_baseline(black_box(t), chunk))
        });
        g.bench_with_input(BenchmarkId::new("actionstream", chunk), &text, |b, t| {
            b.iter(|| support::parse_chunked(black_box(t.as_bytes()), chunk))
        });
    }
    g.finish();
}

fn linearity(c: &mut Criterion) {
    let mut g = c.benchmark_group("linearity");
    g.sample_size(10);
    for name in support::HOSTILE {
        for n in [250_000usize, 500_000] {
            let text = support::hostile(name, n);
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_with_input(BenchmarkId::new(*name, n), &text, |b, t| {
                b.iter(|| support::parse_chunked(black_box(t.as_bytes()), 64))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, throughput, baseline, linearity);
criterion_main!(benches);
