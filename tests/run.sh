#!/usr/bin/env bash
# The whole test suite, as the README's test command and CI run it: every
# Rust test (unit, integration, property), then the checks that need a real
# component the script installs itself when missing (LibreOffice Calc for
# spreadsheet safety: tests/scripts/calc.sh; headless Chromium for
# report.html: tests/scripts/chromium.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release
bash tests/scripts/calc.sh
bash tests/scripts/chromium.sh
