#!/usr/bin/env bash
# Opens the reports in LibreOffice Calc itself (SPEC §5): no cell of
# violations.csv, impostors.csv or summary.csv may be a formula, whether the
# file is opened with `,` or with `;` as separator, with or without "trim
# spaces", and `cat` of a report must meet no terminal control.
#
# Takes: nothing (run from anywhere; builds target/release/robots-audit),
# or ROBOTS_AUDIT_BIN, a binary to check.
# Gives: one line per check, then `N passed, M failed`; exit 1 on a failure.
# Without LibreOffice it tries to install `libreoffice-calc-nogui` with
# apt-get; if that fails it prints SKIPPED and exits 0.
#
# The detector checks itself: the same log written with --raw-csv must show
# formulas in Calc, or the check could not see one and the run fails.
# LibreOffice runs with a private profile and reads only local files.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/scripts/lib.sh
source "$root/tests/scripts/lib.sh"

soffice=$(find_program soffice libreoffice)
if [[ -z $soffice ]]; then
    echo "LibreOffice Calc not found: installing libreoffice-calc-nogui" >&2
    apt_install libreoffice-calc-nogui libreoffice-calc
    soffice=$(find_program soffice libreoffice)
fi
if [[ -z $soffice ]]; then
    echo "SKIPPED: LibreOffice Calc could not be installed; no spreadsheet check was made"
    echo "*******************************************************************************"
    exit 0
fi

# ROBOTS_AUDIT_BIN names a binary to check instead of building one.
bin=${ROBOTS_AUDIT_BIN:-}
if [[ -z $bin ]]; then
    (cd "$root" && cargo build --release --quiet)
    bin=${CARGO_TARGET_DIR:-$root/target}/release/robots-audit
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/robots-audit-calc.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- The hostile log ---------------------------------------------------------
#
# Every formula start of SPEC §5 (tab and CR as the log writes them, `\t` and
# `\r`; the fullwidth forms as UTF-8) in every position: at the start, after
# spaces, after NULs (`\x00` in the log), after `;` and `,`, after `; ` and
# `;"`, behind ESC sequences and bidi controls; in user agents (impostors.csv),
# targets and methods (violations.csv). Crawler fetches come from an address
# that claims SeznamBot; impostors from one whose PTR name is not Seznam's.

starters=('=' '+' '-' '@' '\t' '\r' '＝' '＋' '－' '＠')
prefixes=('' '  ' '\x00' ' \x00 ' 'a;' 'a,' 'a; ' 'a;\"' 'a,\"' 'a;\x00' '\x1b[2J' $'\xe2\x80\xae' $'\xc2\x85')
payload="SUM(1+1)*cmd|' /C calc'!A0;=2+2,=3+3"

log=$work/access.log
: >"$log"
second=0
crawler_lines=0
impostor_lines=0
stamp() {
    printf '30/Nov/2026:%02d:%02d:%02d +0100' $((second / 3600)) $((second / 60 % 60)) $((second % 60))
    second=$((second + 1))
}
logline() { # client request user-agent
    printf '%s - - [%s] "%s" 200 1 "-" "%s"\n' "$1" "$(stamp)" "$2" "$3" >>"$log"
}
for p in "${prefixes[@]}"; do
    for s in "${starters[@]}"; do
        logline 77.75.77.123 "GET /cz/chat/$p$s$payload HTTP/1.1" "SeznamBot/4.0 $p$s$payload"
        crawler_lines=$((crawler_lines + 1))
        logline 6.6.6.6 "GET /cz/chat/$p$s$payload HTTP/1.1" "$p$s$payload SeznamBot/4.0"
        impostor_lines=$((impostor_lines + 1))
    done
done
for method in '+A1' '-A1' '+1+1'; do
    logline 77.75.77.123 "$method /cz/chat/method HTTP/1.1" 'SeznamBot/4.0'
    crawler_lines=$((crawler_lines + 1))
done
# `;` and `=` are no token characters (RFC 9110): no method, no fetch; the
# line is there all the same, and is not counted.
logline 77.75.77.123 '-1+2;=3 /cz/chat/method HTTP/1.1' 'SeznamBot/4.0'
# A client field that is no address; a stricter reading of the log may skip
# these lines, so they are not counted.
logline '=1+2' 'GET /cz/chat/client HTTP/1.1' 'SeznamBot/4.0'
logline '@SUM(A1)' 'GET /cz/chat/client HTTP/1.1' 'SeznamBot/4.0'

printf '6.6.6.6 evil.example.com\n' >"$work/ptr.txt"
# robots.txt text reaches the `group` and `rule` columns.
cat >"$work/robots.txt" <<'EOF'
User-agent: =HYPERLINK("http://evil.example/","x")
User-agent: SeznamBot
Disallow: /cz/
Disallow: /cz/chat/a;=1+1
EOF

audit() { # out-dir extra-args...
    local out=$1
    shift
    local code=0
    "$bin" --quiet --log "$log" --robots "$work/robots.txt" --ptr-map "$work/ptr.txt" \
        --out "$out" "$@" || code=$?
    if [[ $code -ne 1 ]]; then
        fail "robots-audit $* exited $code, not 1 (violations found)"
        return 1
    fi
}

# --- Calc --------------------------------------------------------------------

profile=$work/profile
# Separators: 44 `,`, 59 `;`. Tokens past the 4th: column types, language,
# quoted as text, special numbers, 3 export-only, trim spaces, 1 export-only,
# evaluate formulas.
filters=(
    'comma:CSV:44,34,76,1'
    'semicolon:CSV:59,34,76,1'
    'comma-trimmed:CSV:44,34,76,1,,0,false,true,false,false,true,false,true'
    'semicolon-trimmed:CSV:59,34,76,1,,0,false,true,false,false,true,false,true'
)

# Converts every CSV of $1 with each filter; leaves $1/<filter>/<name>.fods.
open_in_calc() {
    local dir=$1 entry name filter
    for entry in "${filters[@]}"; do
        name=${entry%%:*}
        filter=${entry#*:}
        mkdir -p "$dir/$name"
        timeout 300 "$soffice" "-env:UserInstallation=file://$profile" --headless --norestore \
            --nolockcheck --infilter="$filter" --convert-to fods --outdir "$dir/$name" \
            "$dir"/*.csv >"$dir/$name.log" 2>&1 || true
    done
}

# How many cells of a converted file are formulas; -1 when it was not made.
formulas() {
    if [[ ! -s $1 ]]; then
        echo -1
        return
    fi
    { grep -o 'table:formula=' "$1" || true; } | wc -l
}

started=$(date +%s)

safe=$work/safe
raw=$work/raw
audit "$safe" || true
audit "$raw" --raw-csv || true

# Did the log reach the reports whole?
rows() { if [[ -f $1 ]]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }
if (($(rows "$safe/violations.csv") >= crawler_lines)); then
    pass "violations.csv holds all $crawler_lines hostile crawler fetches"
else
    fail "violations.csv holds $(rows "$safe/violations.csv") rows, want $crawler_lines or more"
fi
if (($(rows "$safe/impostors.csv") >= impostor_lines)); then
    pass "impostors.csv holds all $impostor_lines hostile impostor fetches"
else
    fail "impostors.csv holds $(rows "$safe/impostors.csv") rows, want $impostor_lines or more"
fi

# `cat` runs no terminal escape: no C0 but the line feed, no DEL, no C1,
# no bidi control, and the file is UTF-8.
for csv in "$safe"/*.csv; do
    name=$(basename "$csv")
    if ! iconv -f UTF-8 -t UTF-8 "$csv" >/dev/null 2>&1; then
        fail "$name is not UTF-8"
    elif LC_ALL=C grep -qP '[\x00-\x09\x0B-\x1F\x7F]' "$csv"; then
        fail "$name holds C0 controls or DEL"
    elif LC_ALL=C.UTF-8 grep -qP '[\x{80}-\x{9F}\x{202A}-\x{202E}\x{2066}-\x{2069}]' "$csv"; then
        fail "$name holds C1 or bidi controls"
    else
        pass "$name: cat meets no terminal control"
    fi
done

open_in_calc "$safe"
open_in_calc "$raw"

for entry in "${filters[@]}"; do
    sep=${entry%%:*}
    # The detector must see the formulas of the unguarded reports.
    seen=0
    for csv in "$raw"/*.csv; do
        n=$(formulas "$raw/$sep/$(basename "$csv" .csv).fods")
        ((n > 0)) && seen=$((seen + n))
    done
    if ((seen > 0)); then
        pass "self-check, $sep: Calc finds $seen formula cells in the --raw-csv reports"
    else
        fail "self-check, $sep: no formula found in the --raw-csv reports; the detector is blind (see $raw/$sep.log)"
    fi
    for csv in "$safe"/*.csv; do
        name=$(basename "$csv" .csv)
        n=$(formulas "$safe/$sep/$name.fods")
        if ((n == 0)); then
            pass "$name.csv opened with $sep separator: no formula"
        elif ((n < 0)); then
            fail "$name.csv opened with $sep separator: Calc made no file ($(tail -1 "$safe/$sep.log"))"
        else
            fail "$name.csv opened with $sep separator: $n formula cells:"
            grep -o 'table:formula="[^"]*"' "$safe/$sep/$name.fods" | head -5 || true
        fi
    done
done

echo "Calc checks took $(($(date +%s) - started)) s"
echo "$passed passed, $failed failed"
((failed == 0))
