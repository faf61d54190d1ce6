#!/usr/bin/env bash
# Writes docs/performance.md: every figure of the project, from one run of
# this one command.
#
#   bench/performance.sh > docs/performance.md           # every section
#   bench/performance.sh --quick > docs/performance.md   # fewer repetitions, the peers' speed left out
#
# It builds the release binaries, prints the machine, the date and the
# commit, then runs every executable bench/sections/*.sh in name order, each
# printing one Markdown section on standard output (diagnostics go to
# standard error). To add a measurement, add a section script: it must not
# depend on another section having run, and should honour QUICK=1.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        *) echo "usage: bench/performance.sh [--quick] > docs/performance.md" >&2; exit 2 ;;
    esac
done
export QUICK=$quick

echo "== building release binaries" >&2
cargo build --release --bin actionstream --example bench_report >&2

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
commit=$(git rev-parse --short HEAD)
dirty=""
git diff --quiet HEAD -- src Cargo.toml examples benches bench 2>/dev/null || dirty=" (with uncommitted changes)"
mode="full"
[ "$quick" = 1 ] && mode="quick (\`--quick\`)"
load=$(cut -d' ' -f1-3 /proc/loadavg)

cat <<MD
# Performance

Written by \`bench/performance.sh\`, in one run: every figure on this page
comes from that run (how to regenerate it, and how to add a section:
[CONTRIBUTING.md](../CONTRIBUTING.md#regenerating-docsperformancemd)).

| | |
|---|---|
| commit | \`$commit\`$dirty |
| date | $(date -u +"%Y-%m-%d %H:%M UTC") |
| machine | $(nproc) cores, $cpu, $mem of memory, $(uname -sr) |
| load average at the start | $load |
| mode | $mode |

The machine is shared with other builds, so absolute figures move from run
to run; each ratio is of two measurements taken in turn in the same run,
which a busy spell affects alike. A figure that moved is explained in the
commit that moved it.

MD

for section in bench/sections/*.sh; do
    [ -x "$section" ] || continue
    echo "== $section" >&2
    start=$(date +%s)
    "$section"
    echo
    echo "   $section took $(($(date +%s) - start)) s" >&2
done
