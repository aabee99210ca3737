#!/usr/bin/env bash
# wildcard.sh: the whole audit against 20,000 wildcard rules and against as
# many literal rules (SPEC §5's bound on hostile robots.txt files, issue 9).
#
# Takes a number of runs. Generates, deterministically, a combined-format log
# of 20,000 SeznamBot fetches whose targets hold hundreds of `xNNNNN` pieces
# (`zz` after them, before them, or nowhere) and two robots.txt files:
# 20,000 `Disallow: /*xNNNNN*zz` against 20,000 `Disallow: /xNNNNNzz`. Gives
# the median wall time of `robots-audit --log L --robots R --out DIR` for
# each, run alternately so a busy machine slows both alike, and their ratio.
# benches/wildcard.rs measures the matcher alone.
#
# Usage: benches/wildcard.sh [--runs 5] [--threads N] [--data DIR]
# (--data keeps the generated inputs in DIR, for a profiler.)

set -euo pipefail

runs=5
threads=()
while [ $# -gt 0 ]; do
    case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --threads) threads=(--threads "$2"); shift 2 ;;
    --data) data="$2"; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "wildcard.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}" cargo build --release --quiet
bin="$PWD/target/release/robots-audit"
if [ -n "${data:-}" ]; then
    mkdir -p "$data"
    work="$(cd "$data" && pwd)"
else
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
fi

python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
rules = 20_000
with open(f"{work}/wild.txt", "w") as f:
    f.write("User-agent: *\n")
    f.writelines(f"Disallow: /*x{i:05}*zz\n" for i in range(rules))
with open(f"{work}/literal.txt", "w") as f:
    f.write("User-agent: *\n")
    f.writelines(f"Disallow: /x{i:05}zz\n" for i in range(rules))
rng = random.Random(0x5EED)
ua = "Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)"
with open(f"{work}/access.log", "w") as f:
    for n in range(20_000):
        pieces = rng.choice((100, 300, 500))
        body = "".join(f"x{rng.randrange(rules):05}" for _ in range(pieces))
        target = (f"/zz{body}", f"/{body}zz", f"/{body}")[n % 3]
        sec = n % 60
        minute = n // 60 % 60
        hour = n // 3600
        f.write(
            f'77.75.77.{n % 250 + 1} - - [01/Dec/2026:{hour:02}:{minute:02}:{sec:02} +0000] '
            f'"GET {target} HTTP/1.1" 200 512 "-" "{ua}"\n'
        )
PY

TIMEFORMAT=%R
# Wall seconds of one audit against robots.txt $1.
one() {
    local out="$work/out-$1"
    mkdir -p "$out"
    { time "$bin" --quiet "${threads[@]}" --log "$work/access.log" \
        --robots "$work/$1.txt" --out "$out" >/dev/null 2>&1 || [ $? -eq 1 ]; } 2>&1
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

one wild >/dev/null
one literal >/dev/null
wild=()
literal=()
for _ in $(seq "$runs"); do
    wild+=("$(one wild)")
    literal+=("$(one literal)")
done
w=$(printf '%s\n' "${wild[@]}" | median)
l=$(printf '%s\n' "${literal[@]}" | median)
log_mb=$(awk -v b="$(wc -c <"$work/access.log")" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "log: 20,000 SeznamBot fetches, $log_mb MB; robots.txt: 20,000 rules each"
printf '%-10s %10s\n' "rules" "median s"
printf '%-10s %10s\n' "wildcard" "$w" "literal" "$l"
awk -v w="$w" -v l="$l" 'BEGIN { printf "ratio: %.1fx\n", w / l }'
