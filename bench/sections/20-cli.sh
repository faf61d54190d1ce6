#!/usr/bin/env bash
# The command-line tool as whole processes: the start on short responses
# against `cat` of the same file, and a 16 MiB parse in small chunks against
# the same parse whole. Prints a Markdown section. Needs the release binary
# (bench/performance.sh builds it). QUICK=1: fewer pairs.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=target/release/actionstream
[ -x "$bin" ] || { echo "no $bin: run bench/performance.sh" >&2; exit 1; }
pairs=7
[ "${QUICK:-0}" = 1 ] && pairs=3

now() { date +%s%N; }
# The time of one run of "$@", in ns: `loops` runs in a shell loop, divided.
per_run() {
    local loops=$1; shift
    local t0 t1
    t0=$(now)
    for ((i = 0; i < loops; i++)); do "$@" >/dev/null; done
    t1=$(now)
    echo $(((t1 - t0) / loops))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { awk -v ns="$1" 'BEGIN {printf "%.2f ms", ns / 1e6}'; }
secs() { awk -v ns="$1" 'BEGIN {printf "%.3f s", ns / 1e9}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# `pairs` pairs of (baseline, ours), run in turn; prints the medians and the
# median of the per-pair ratios.
compare() {
    local loops=$1 base=$2 ours=$3
    local bs=() os=() rs=()
    for ((p = 0; p < pairs; p++)); do
        local b o
        # Word-split on purpose: the commands are plain words (no quotes).
        # shellcheck disable=SC2086
        b=$(per_run "$loops" $base)
        # shellcheck disable=SC2086
        o=$(per_run "$loops" $ours)
        bs+=("$b"); os+=("$o"); rs+=("$(ratio "$o" "$b")")
    done
    echo "$(printf '%s\n' "${bs[@]}" | median) $(printf '%s\n' "${os[@]}" | median) $(printf '%s\n' "${rs[@]}" | median) $(printf '%s\n' "${rs[@]}" | sort -n | head -1) $(printf '%s\n' "${rs[@]}" | sort -n | tail -1)"
}
met() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN {ok = (op == "<=") ? v <= t : v < t; print ok ? "met" : "NOT met"}'; }

echo "## The command-line tool"
echo
echo "Whole processes of \`$bin\` (the default release build), each against a baseline run in turn with it, $pairs pairs: the median of each side and the median of the pairs' ratios (their spread in brackets)."
echo
echo "### Start-up"
echo
echo "One run is the mean of 100 runs in a shell loop; the baseline is \`cat\` of the same file."
echo
echo "| command | ours a run | \`cat\` a run | ours ÷ \`cat\` | target |"
echo "|---|---:|---:|---:|---|"
for f in examples/responses/gembrain_tasks.md examples/responses/release_plan.md; do
    size=$(wc -c <"$f")
    read -r b o r lo hi < <(compare 100 "cat $f" "$bin parse $f")
    echo "| \`actionstream parse $f\` ($size B) | $(ms "$o") | $(ms "$b") | ${r}x ($lo–$hi) | under 1 ms: $(met "$(awk -v n="$o" 'BEGIN{print n/1e6}')" 1 "<") |"
done

echo
echo "### Small chunks against whole input"
echo
big=$(mktemp)
trap 'rm -f "$big"' EXIT
# `head` closes the pipe early, on purpose.
(set +o pipefail; for ((i = 0; i < 6000; i++)); do cat examples/responses/*.md; done | head -c 16777216 >"$big")
echo "The bundled responses repeated to 16 MiB, \`parse --summary\` (the borrowing path), whole against \`--chunk-size N\`, one run each."
echo
echo "| command | chunked | whole | chunked ÷ whole | target |"
echo "|---|---:|---:|---:|---|"
for spec in "4 2.5" "1 6"; do
    set -- $spec
    read -r b o r lo hi < <(compare 1 "$bin parse --summary $big" "$bin parse --summary --chunk-size $1 $big")
    echo "| \`parse --summary --chunk-size $1\`, 16 MiB | $(secs "$o") | $(secs "$b") | ${r}x ($lo–$hi) | ≤ $2x: $(met "$r" "$2" "<=") |"
done
echo
