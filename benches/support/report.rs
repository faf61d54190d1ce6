//! What the one-run reports (`examples/bench_report.rs` and the peer
//! bench, `bench/peers`) share, each including this file by path: how they
//! time, and the long argument they feed the dialects.

use std::time::{Duration, Instant};

use actionstream::dialect::Dialect;
use actionstream::{Config, Parser};

/// The median of `runs` timings of `f`, each repeated until it takes at
/// least 30 ms (per-call time).
pub fn time<R>(runs: usize, mut f: impl FnMut() -> R) -> Duration {
    let mut reps = 1u32;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(f());
        }
        if t.elapsed() >= Duration::from_millis(30) {
            break;
        }
        reps *= 2;
    }
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(f());
            }
            t.elapsed() / reps
        })
        .collect();
    samples.sort();
    samples[runs / 2]
}

/// The fastest of `runs` timings of each of `fs`, taken in turn (one run
/// of each, then the next round), so that a busy spell on a shared machine
/// falls on all of them alike; per-call time, each run repeated until it
/// takes at least 30 ms, as in [`time`].
pub fn fastest_of_each(runs: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let mut best = vec![Duration::MAX; fs.len()];
    for _ in 0..runs {
        for (f, best) in fs.iter_mut().zip(&mut best) {
            *best = (*best).min(time(1, &mut **f));
        }
    }
    best
}

pub fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e6
}

/// A file body of about `size` bytes: lines of code-like text with no
/// quotes or backslashes, so each format can write it without escapes
/// beyond its line endings.
pub fn file_body(size: usize) -> String {
    let mut body = String::with_capacity(size + 64);
    let mut i = 0;
    while body.len() < size {
        body.push_str(&format!(
            "    let value_{i} = compute(input[{i}], scale * {i}) + offset; // step {i}\n"
        ));
        i += 1;
    }
    body.truncate(size);
    body
}

/// A parser of the built-in dialect `name`, argument deltas on or off.
pub fn dialect_parser(name: &str, argument_deltas: bool) -> Parser {
    let dialect = Dialect::builtin(name).expect("a built-in dialect");
    Parser::new(
        Config::default()
            .dialect(dialect)
            .argument_deltas(argument_deltas),
    )
}
