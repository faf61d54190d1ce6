#!/usr/bin/env sh
# CI fuzz smoke: builds the fuzz crate and runs each target for a few
# seconds from the seed corpora (generated from the test suite's inputs).
# Needs cargo-fuzz (`cargo install cargo-fuzz`); runs without sanitizers so
# a stable toolchain will do. Usage: fuzz/smoke.sh [seconds per target]
set -eu
cd "$(dirname "$0")"
secs="${1:-5}"
python3 seeds/make_seeds.py
cargo fuzz build -s none
for target in chunks bytes json_scan fences dialects protocols; do
    mkdir -p "corpus/$target" "seeds/$target"
    before=$(ls "artifacts/$target" 2>/dev/null | wc -l)
    echo "== $target (${secs}s)"
    cargo fuzz run "$target" -s none "corpus/$target" "seeds/$target" -- \
        -max_total_time="$secs" -max_len=4096 -print_final_stats=1 2>&1 |
        grep -E "^(stat::number_of_executed_units|==|thread|SUMMARY)|panicked|Done" || true
    # cargo fuzz exits non-zero on a finding; `set -e` does not see it through
    # the pipe, so look for a new artifact instead.
    if [ "$(ls "artifacts/$target" 2>/dev/null | wc -l)" -gt "$before" ]; then
        echo "finding in $target: fuzz/artifacts/$target" >&2
        exit 1
    fi
done
echo "fuzz smoke: all targets ran clean"
