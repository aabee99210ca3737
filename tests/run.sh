#!/usr/bin/env bash
# The whole test suite, as the README's test command and CI run it: every
# Rust test (unit, integration, property), then the checks that need a real
# component the script installs itself when missing (LibreOffice Calc for
# spreadsheet safety: tests/scripts/calc.sh; headless Chromium for
# report.html: tests/scripts/chromium.sh; strace, before the Rust tests).
set -euo pipefail
cd "$(dirname "$0")/.."
# strace fails a folder's flush for one test (nights_state): installed
# when missing; without it that test says SKIPPED.
# shellcheck source=tests/scripts/lib.sh
source tests/scripts/lib.sh
if [[ -z $(find_program strace) ]]; then
    echo "strace not found: installing it" >&2
    apt_install strace
    [[ -n $(find_program strace) ]] || echo "SKIPPED: strace could not be installed; the state folder's failing flush is not tested" >&2
fi
cargo test --release
bash tests/scripts/calc.sh
bash tests/scripts/chromium.sh
