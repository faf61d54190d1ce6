#!/usr/bin/env bash
# Each model dialect against SGLang's Rust tool-call parser (the
# `tool-parser` crate), from bench/peers (its own workspace, built only
# here). Prints a Markdown section. QUICK=1: the correctness at splits only
# (the speed section takes minutes, most of it the peer's slowest formats),
# two-piece splits at every third offset. The splits run on every core.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "## Against SGLang's tool parsers"
echo
if [ "${QUICK:-0}" = 1 ]; then
    echo "\`cargo run --release --manifest-path bench/peers/Cargo.toml -- splits\` (quick mode: the speed section is left out)."
    echo
    cargo run --quiet --release --manifest-path bench/peers/Cargo.toml -- splits
else
    echo "\`cargo run --release --manifest-path bench/peers/Cargo.toml\`. The peer bench is a crate of its own, so the main build never compiles the peer."
    echo
    cargo run --quiet --release --manifest-path bench/peers/Cargo.toml
fi
echo
