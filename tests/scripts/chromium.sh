#!/usr/bin/env bash
# Opens report.html in a real browser, headless Chromium (SPEC §7): the page
# of a crawler-heavy week opens without a console message (a blocked style,
# script or request under the Content-Security-Policy shows there), asks for
# nothing over the network, stays under 5,000,000 bytes, and the numbers it
# shows are the numbers of run.json, rules.csv and impostor-addresses.csv.
# A screenshot goes to target/report-screenshot.png for a person to look at.
#
# Takes: nothing (run from anywhere; builds the binary and examples/genlog),
# or ROBOTS_AUDIT_BIN, a binary to check.
# Gives: one line per check, then `N passed, M failed`; exit 1 on a failure.
# Without Chromium it tries `apt-get install -y chromium`; if that fails it
# prints SKIPPED and exits 0.
#
# The detector checks itself: the same page with a planted image, inline
# style and script must produce console messages, or the check could not see
# one and the run fails. Chromium reads only local files.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/scripts/lib.sh
source "$root/tests/scripts/lib.sh"

chromium=$(find_program chromium chromium-browser)
if [[ -z $chromium ]]; then
    echo "Chromium not found: installing the Debian package chromium" >&2
    apt_install chromium
    chromium=$(find_program chromium chromium-browser)
fi
if [[ -z $chromium ]] || ! command -v python3 >/dev/null; then
    echo "SKIPPED: Chromium (or python3) could not be installed; report.html was not opened in a browser"
    echo "***********************************************************************************************"
    exit 0
fi

target=${CARGO_TARGET_DIR:-$root/target}
bin=${ROBOTS_AUDIT_BIN:-}
(cd "$root" && cargo build --release --quiet --example genlog)
if [[ -z $bin ]]; then
    (cd "$root" && cargo build --release --quiet)
    bin=$target/release/robots-audit
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/robots-audit-chromium.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A week of a busy site: SeznamBot's daily bursts break Request-rate twice a
# day, impostors claim Seznam's user agent from other networks.
"$target/release/examples/genlog" --quiet --lines 400000 --span 1w \
    --start 2026-11-23T00:00:00+01:00 --ptr-map "$work/ptr.txt" --out "$work/access.log.gz"
code=0
# With a state, so that the page draws the trend: one row a night of the
# week.
"$bin" --quiet --log "$work/access.log.gz" --robots "$root/samples/robots.txt" \
    --ptr-map "$work/ptr.txt" --state "$work/state" --out "$work/out" || code=$?
if [[ $code -eq 1 ]]; then
    pass "the audit of a week found violations (exit 1)"
else
    fail "the audit exited $code, not 1"
fi
page=$work/out/report.html
size=$(wc -c <"$page")
if ((size < 5000000)); then
    pass "report.html of a week is $size bytes, under 5,000,000"
else
    fail "report.html is $size bytes"
fi

# One headless Chromium: the DOM after load, and everything it logged.
open_page() { # page dom-out log-out [screenshot]
    local extra=()
    if [[ -n ${4:-} ]]; then
        extra=(--screenshot="$4" --window-size=1200,3400 --hide-scrollbars)
    else
        extra=(--dump-dom)
    fi
    timeout 120 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run \
        --no-default-browser-check --disable-extensions --disable-sync \
        --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
        "${extra[@]}" "file://$1" >"$2" 2>"$3" || true
}
# What counts as a page error in Chromium's log: console messages (CSP
# violations are reported there) and failed loads.
page_errors() {
    { grep -E 'CONSOLE|net::ERR_|Failed to load|Refused to' "$1" || true; } | { grep -v 'DevTools' || true; }
}

# The detector first: a page with a planted image, style and script.
sed 's#<body>#<body><img src="http://127.0.0.1:9/x.png"><div style="color:red">x</div><script>document.title="ran"</script>#' \
    "$page" >"$work/planted.html"
open_page "$work/planted.html" "$work/planted.dom" "$work/planted.log"
planted=$(page_errors "$work/planted.log" | wc -l)
if ((planted >= 3)); then
    pass "the detector sees a planted image, style and script ($planted messages)"
else
    fail "the detector saw $planted messages for a planted image, style and script"
fi

open_page "$page" "$work/dom.html" "$work/chromium.log"
errors=$(page_errors "$work/chromium.log")
if [[ -s $work/dom.html && -z $errors ]]; then
    pass "report.html opens without a console message or failed request"
else
    fail "report.html in Chromium: ${errors:-no DOM was dumped}"
fi

# The numbers shown against the reports.
if python3 - "$work/dom.html" "$work/out" "$work/state/state.json" <<'PYEOF'; then
import csv, html.parser, json, sys

dom, out = sys.argv[1], sys.argv[2]

class Tables(html.parser.HTMLParser):
    """Each table by id: its body rows as lists of cell texts."""
    def __init__(self):
        super().__init__()
        self.tables, self.current, self.row, self.cell = {}, None, None, None
        self.elements = 0
    def handle_starttag(self, tag, attrs):
        self.elements += 1
        attrs = dict(attrs)
        if tag == "table":
            self.current = self.tables.setdefault(attrs.get("id", ""), [])
        elif tag == "tr" and self.current is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.current.append(self.row)
            self.row = None
        elif tag == "table":
            self.current = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)

tables = Tables()
tables.feed(open(dom, encoding="utf-8").read())
run = json.load(open(f"{out}/run.json"))
problems = []

# Verdict: fetches and, per kind, the accusing rows; informing apart.
shown = {row[0]: row for row in tables.tables.get("verdict-table", [])[1:]}
kinds = ["crawl-delay", "disallow", "request-rate"]
want = {}
for count in run["counts"]:
    c = want.setdefault(count["crawler"], {"fetches": count["fetches"], "informing": 0})
    c[count["kind"]] = count["violations"] - count["informing"]
    c["informing"] += count["informing"]
if set(shown) != set(want):
    problems.append(f"crawlers shown {sorted(shown)} != run.json {sorted(want)}")
for crawler, c in want.items():
    row = shown.get(crawler)
    if row is None:
        continue
    got = [int(x) for x in row[1:6]]
    expect = [c["fetches"]] + [c.get(k, 0) for k in kinds] + [c["informing"]]
    if got != expect:
        problems.append(f"{crawler}: shown {got}, run.json says {expect}")

# Rules: the rows shown are rules.csv's first rows, same counts.
rules = list(csv.DictReader(open(f"{out}/rules.csv", encoding="utf-8")))
shown_rules = tables.tables.get("rules-table", [])[1:]
if len(shown_rules) != min(len(rules), 50):
    problems.append(f"{len(shown_rules)} rules shown of {len(rules)}")
for got, row in zip(shown_rules, rules):
    total = int(got[3]) + int(got[4])
    if (got[0], got[2], total, got[5]) != (row["rule_line"], row["kind"], int(row["violations"]), row["distinct_targets"]):
        problems.append(f"rule shown {got} != rules.csv {row}")

# Impostor addresses: same order, same fetches.
addresses = list(csv.DictReader(open(f"{out}/impostor-addresses.csv", encoding="utf-8")))
shown_addresses = tables.tables.get("impostors-table", [])[1:]
if len(shown_addresses) != min(len(addresses), 100):
    problems.append(f"{len(shown_addresses)} addresses shown of {len(addresses)}")
for got, row in zip(shown_addresses, addresses):
    if (got[0], got[2], got[4]) != (row["client"], row["fetches"], row["reason"]):
        problems.append(f"address shown {got} != impostor-addresses.csv {row}")

# Trend: each night of the state, per crawler, fetches and violations.
state = json.load(open(sys.argv[3], encoding="utf-8"))
trend = tables.tables.get("trend-table", [])
names = trend[0][1:] if trend else []
shown_nights = {}
for row in trend[2:]:
    for i, name in enumerate(names):
        shown_nights[(row[0], name)] = (int(row[1 + 2 * i]), int(row[2 + 2 * i]))
kept = {}
for n in state["nights"]:
    kept[(n["night"], n["crawler"])] = (n["fetches"], sum(n["violations"].values()))
nights = sorted({night for night, _ in kept})
if len(nights) < 7:
    problems.append(f"the state holds {len(nights)} nights of a week")
for key, value in kept.items():
    if key[1] in names and shown_nights.get(key) != value:
        problems.append(f"trend {key}: shown {shown_nights.get(key)}, state.json {value}")
for key, value in shown_nights.items():
    if key not in kept and value != (0, 0):
        problems.append(f"trend {key}: shown {value}, not in state.json")
for crawler, c in want.items():
    total = sum(v[0] for k, v in kept.items() if k[1] == crawler)
    if total != c["fetches"]:
        problems.append(f"{crawler}: the nights add up to {total} fetches, run.json {c['fetches']}")

if not want or not rules or not addresses or not shown_nights:
    problems.append("the week had no crawler, rule or impostor to compare")
for p in problems[:20]:
    print("     ", p)
print(f"      compared {len(want)} crawlers, {len(shown_rules)} rules, "
      f"{len(shown_addresses)} addresses, {len(nights)} nights; "
      f"{tables.elements} elements in the DOM")
sys.exit(1 if problems else 0)
PYEOF
    pass "the numbers shown equal run.json, rules.csv, impostor-addresses.csv and the state's nights"
else
    fail "the numbers shown differ from the reports"
fi

# Charts: one SVG per crawler with fetches, each drawn in the DOM, and
# one of their fetches together: the week's crawlers are Seznam's, which
# share one count (SPEC §4).
charts=$(grep -o '<svg ' "$work/dom.html" | wc -l)
crawlers=$(python3 -c 'import json,sys; print(len({c["crawler"] for c in json.load(open(sys.argv[1]))["counts"]}))' "$work/out/run.json")
together=$(( crawlers > 1 ? 1 : 0 ))
if [[ $charts -eq $((crawlers + together)) && $charts -gt 0 ]] \
    && { [[ $together -eq 0 ]] || grep -q '(one count)' "$work/dom.html"; }; then
    pass "one chart per crawler and $together of the count they share ($charts)"
else
    fail "$charts charts for $crawlers crawlers and $together shared count"
fi

mkdir -p "$target"
open_page "$page" "$work/shot.out" "$work/shot.log" "$target/report-screenshot.png"
if [[ -s $target/report-screenshot.png ]]; then
    pass "screenshot written to $target/report-screenshot.png"
else
    fail "no screenshot was written"
fi

echo "chromium: $passed passed, $failed failed"
((failed == 0))
