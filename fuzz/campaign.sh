#!/usr/bin/env bash
# Runs every fuzz target in turn for SECONDS each (default 120), with the
# seeds of fuzz/seeds and a corpus kept in fuzz/corpus between campaigns.
# Crashes land in fuzz/artifacts/TARGET/; turn each into a regression test.
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-120}"
# target:max_len. Large inputs let the CPU-time budget catch super-linear
# work; the matcher target stays small because its reference is exponential.
targets=(
  robots_txt:65536
  robots_matcher:600
  log_line:65536
  log_format:8192
  log_reader:65536
  ptr_map:65536
  request_rate:4096
)
for entry in "${targets[@]}"; do
  target="${entry%%:*}"
  max_len="${entry##*:}"
  mkdir -p "corpus/$target"
  echo "== $target for ${seconds}s (max_len $max_len)"
  cargo +nightly fuzz run -O "$target" "corpus/$target" "seeds/$target" -- \
    -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 2>&1 | grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|panicked|SUMMARY|Test unit written|^==" || true
done
