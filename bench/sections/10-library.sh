#!/usr/bin/env bash
# The library's figures: examples/bench_report.rs, every section, as
# Markdown. Prints a Markdown section.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo run --quiet --release --example bench_report -- --markdown
