#!/usr/bin/env bash
# Instructions of each JSON Lines reader of benches/rust/json_lines.rs (callgrind: repeatable on
# a loaded machine), net of making the lines. Usage: scripts/json-lines-instructions.sh [RECORDS]
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-20000}
cargo bench --bench json_lines --no-run --quiet
bench=$(ls -t target/release/deps/json_lines-* | grep -v '\.d$' | head -1)
count() {
    TABLECERT_BENCH_DATA=$data TABLECERT_BENCH_RECORDS=$records TABLECERT_BENCH_ONLY=$1 valgrind --tool=callgrind \
        --callgrind-out-file=/dev/null "$bench" 2>&1 >/dev/null | sed -n 's/.*Collected : //p'
}
names=("owned reader, the old allocating one (yardstick)" "reader (rust/logs/json), borrowed"
    "serde_json, same rules, borrowed" "serde_json::Value (duplicate keys kept)")
for data in shuffles rounds; do
    base=$(count none)
    echo "$records $data records: instructions per record"
    for k in 0 1 2 3; do
        n=$(count "$k")
        per=$(echo "($n - $base) / $records" | bc -l)
        printf '  %-42s %8.0f\n' "${names[$k]}" "$per"
    done
done
