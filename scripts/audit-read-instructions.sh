#!/usr/bin/env bash
# Instructions and first-level data-cache misses per record of the core's read of a shuffle log
# (benches/rust/audit_read.rs: parse, check, tallies; one thread; valgrind, repeatable on a loaded
# machine), without and with the Caribbean dealt hands. The log is a fair CSV written by
# `tablecert simulate shuffler` (seed 42, logged input orders) unless LOG is given.
# Valgrind has no AVX-512: the counts are those of the AVX2 compilation (the guesser and the
# order hashes run one order at a time there), what a CPU without AVX-512 runs.
# Usage: scripts/audit-read-instructions.sh [SHUFFLES] [LOG]
set -euo pipefail
cd "$(dirname "$0")/.."
shuffles=${1:-20000}
log=${2:-}
if [ -z "$log" ]; then
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    log=$dir/fair.csv
    .venv/bin/python -m tablecert simulate shuffler --model fair --shuffles "$shuffles" --seed 42 \
        -o "$log" >/dev/null
fi
records=$(($(wc -l <"$log") - 1))
cargo bench --bench audit_read --no-run --quiet
bench=$(ls -t target/release/deps/audit_read-* | grep -v '\.d$' | head -1)
for game in "" --game; do
    out=$(RAYON_NUM_THREADS=1 valgrind --tool=cachegrind --cache-sim=yes \
        --cachegrind-out-file=/dev/null "$bench" "$log" $game 2>&1 >/dev/null)
    refs=$(echo "$out" | sed -n 's/.*I *refs: *//p' | tr -d ,)
    d1=$(echo "$out" | sed -n 's/.*D1 *misses: *\([0-9,]*\).*/\1/p' | tr -d ,)
    printf '%d records%s: %.0f instructions, %.1f D1 misses per record\n' "$records" \
        "${game:+ + dealt hands}" "$(echo "$refs / $records" | bc -l)" "$(echo "$d1 / $records" | bc -l)"
done
