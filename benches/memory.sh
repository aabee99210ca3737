#!/usr/bin/env bash
# memory.sh: the audit's peak memory where it used to grow without bound
# (SPEC §5: within --memory, default 100 MiB resident; issue 10 item 1).
#
# Takes a size (--small to try it fast) and an optional --memory to pass.
# Generates at bench time, into a temporary folder:
#   fetches  10 M SeznamBot fetches from Seznam's addresses (named in a PTR
#            map), one a second, each of a distinct target under a path the
#            robots.txt forbids: every one a `disallow` row;
#   attack   100,000 requests with 16 KB targets and 16 KB user agents that
#            claim SeznamBot: half from addresses whose PTR names are
#            another's (spoofed: impostors.csv), half from addresses nothing
#            is known of (unverified: counted, and off limits, so rows);
#   outages  300,000 answers of 503 to SeznamBot's /robots.txt, each
#            followed by a fetch: every one a robots.txt outage of its own
#            time, a rule of its own (SPEC §6, §7), audited with --state;
#   flood    10 M SeznamBot fetches in one day, each of its own millisecond
#            (Apache's %{msec}t), under `Request-rate: 9000/1d`: a day of
#            distinct times that the rate's count keeps, every fetch past
#            the 9,000th a `request-rate` row, audited with --state;
#   pairs    the flood's fetches two to a millisecond: half as many
#            distinct times, each of two fetches (which the count keeps
#            as a number beside the time).
# Gives, for each, robots-audit's peak RSS (GNU time's %M), its wall time,
# the rows it wrote (checked against what was generated), and the peak
# beside 100 MiB. Runs at the default --memory unless --memory is given;
# a robots-audit without the flag is measured all the same, and the table
# says so. Exit 0 when every peak is within 100 MiB, 1 when one is not,
# 2 when something could not run.
#
# Usage: benches/memory.sh [--small] [--fetches N] [--attack N] [--outages N]
#                          [--flood N] [--memory SIZE] [--threads N] [--keep DIR]

set -euo pipefail

usage() {
    cat <<'EOF'
Usage: benches/memory.sh [OPTIONS]

  --fetches N    SeznamBot fetches, each breaking a rule (default 10000000)
  --attack N     requests with 16 KB targets and user agents (default 100000)
  --outages N    robots.txt outages, each a rule of its own (default 300000)
  --flood N      fetches in a day of distinct milliseconds, and as many
                 two to a millisecond (default 10000000)
  --small        a quick try: --fetches 200000 --attack 5000 --outages 20000
                 --flood 200000
  --memory SIZE  pass --memory SIZE to robots-audit (default: its default)
  --threads N    pass --threads N to robots-audit
  --keep DIR     generate into DIR and keep the logs (for a profiler)
  -h, --help     this text
EOF
}

die() {
    echo "memory.sh: $*" >&2
    exit 2
}

fetches=10000000
attack=100000
outages=300000
flood=10000000
memory=
threads=
keep=
while [[ $# -gt 0 ]]; do
    case $1 in
        --fetches) fetches=${2:?--fetches needs a value}; shift 2 ;;
        --fetches=*) fetches=${1#*=}; shift ;;
        --attack) attack=${2:?--attack needs a value}; shift 2 ;;
        --attack=*) attack=${1#*=}; shift ;;
        --outages) outages=${2:?--outages needs a value}; shift 2 ;;
        --outages=*) outages=${1#*=}; shift ;;
        --flood) flood=${2:?--flood needs a value}; shift 2 ;;
        --flood=*) flood=${1#*=}; shift ;;
        --small) fetches=200000; attack=5000; outages=20000; flood=200000; shift ;;
        --memory) memory=${2:?--memory needs a value}; shift 2 ;;
        --memory=*) memory=${1#*=}; shift ;;
        --threads) threads=${2:?--threads needs a value}; shift 2 ;;
        --threads=*) threads=${1#*=}; shift ;;
        --keep) keep=${2:?--keep needs a value}; shift 2 ;;
        --keep=*) keep=${1#*=}; shift ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
[[ $fetches =~ ^[1-9][0-9]*$ ]] || die "--fetches must be a positive number, not '$fetches'"
[[ $attack =~ ^[1-9][0-9]*$ && $attack -ge 2 ]] || die "--attack must be a number of at least 2, not '$attack'"
[[ $outages =~ ^[1-9][0-9]*$ ]] || die "--outages must be a positive number, not '$outages'"
[[ $flood =~ ^[1-9][0-9]*$ ]] || die "--flood must be a positive number, not '$flood'"
((flood > 9000)) || die "--flood must be more than the rate's 9000 fetches, not '$flood'"
[[ -z $threads || $threads =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive number, not '$threads'"
command -v python3 >/dev/null || die "python3 is needed to generate the logs"
command -v gzip >/dev/null || die "gzip is not installed"
if [[ -n $keep ]]; then
    mkdir -p "$keep"
    work=$(cd "$keep" && pwd)
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/robots-audit-memory.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."
echo "building robots-audit ..." >&2
# The same build as compare.sh, so the two scripts share one set of
# compiled dependencies rather than rebuilding each other's.
CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build --release --examples --bins --quiet
audit=$PWD/target/release/robots-audit
[[ -x $audit ]] || die "missing after the build: $audit"

if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "installing GNU time to measure peak memory ..." >&2
        apt-get install -y -qq time >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq time >/dev/null 2>&1; } || true
    fi
    /usr/bin/time -f %M true >/dev/null 2>&1 || die "GNU time (/usr/bin/time) is missing and could not be installed"
fi

# --memory: passed when asked for; otherwise the default, whether or not
# this build has the flag yet.
audit_flags=(--quiet)
[[ -n $threads ]] && audit_flags+=(--threads "$threads")
if "$audit" --help | grep -q -- '--memory'; then
    if [[ -n $memory ]]; then
        audit_flags+=(--memory "$memory")
        memory_note="--memory $memory"
    else
        memory_note="the default --memory"
    fi
else
    [[ -z $memory ]] || die "this robots-audit has no --memory flag to pass $memory to"
    memory_note="no --memory: this robots-audit does not have the flag yet"
fi

cat >"$work/robots.txt" <<'EOF'
User-agent: SeznamBot
Disallow: /kosik
EOF
cat >"$work/robots-rate.txt" <<'EOF'
User-agent: SeznamBot
Disallow: /kosik
Request-rate: 9000/1d
EOF

# The logs and their PTR map, streamed through gzip -1: the attack is
# 3.3 GB of text, almost all of it runs that gzip folds away, each line
# made distinct by its number so that nothing can be shared between lines.
echo "generating $fetches fetches and an attack of $attack requests in $work ..." >&2
python3 - "$work" "$fetches" "$attack" "$outages" "$flood" <<'PY'
import subprocess, sys, time

work, fetches, attack, outages, flood = (
    sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
ua = "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)"
start = 1_790_000_000  # 2026-09-21, a Monday
month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

def stamp(t):
    g = time.gmtime(t)
    return f"{g.tm_mday:02}/{month[g.tm_mon - 1]}/{g.tm_year}:{g.tm_hour:02}:{g.tm_min:02}:{g.tm_sec:02} +0000"

def write_log(name, lines):
    """Streams `lines` through gzip -1 into {work}/{name}, a MB at a time."""
    with open(f"{work}/{name}", "wb") as out:
        proc = subprocess.Popen(["gzip", "-1", "-n"], stdin=subprocess.PIPE, stdout=out)
        batch, size = [], 0
        for line in lines:
            batch.append(line)
            size += len(line)
            if size >= 1 << 20:
                proc.stdin.write("".join(batch).encode())
                batch, size = [], 0
        proc.stdin.write("".join(batch).encode())
        proc.stdin.close()
        if proc.wait() != 0:
            sys.exit(f"gzip failed on {name}")

# 2,048 of Seznam's addresses in 77.75.72.0/21, each named in the map.
seznam = [f"77.75.{72 + i // 256}.{i % 256}" for i in range(2048)]
with open(f"{work}/ptr-map.txt", "w") as m:
    for a in seznam:
        m.write(f"{a} fulltextrobot-{a.replace('.', '-')}.seznam.cz\n")
    # The spoofing half of the attack: hosting names, not Seznam's.
    for i in range(256):
        m.write(f"198.51.100.{i} vps-198-51-100-{i}.hosting.example.net\n")

write_log("fetches.log.gz", (
    f'{seznam[n % 2048]} - - [{stamp(start + n)}] "GET /kosik/{n}?krok=2 HTTP/1.1" 200 {5000 + n % 4000} "-" "{ua}"\n'
    for n in range(fetches)
))

pad = "A" * 16_384
def attack_line(n):
    # Even lines spoof from named hosting addresses, odd ones come from
    # addresses nothing is known of.
    client = f"198.51.100.{n % 256}" if n % 2 == 0 else f"203.0.113.{n % 256}"
    target = f"/kosik/{n}/{pad}"[:16_384]
    agent = f"{ua} {n} {pad}"[:16_384]
    return f'{client} - - [{stamp(start + n)}] "GET {target} HTTP/1.1" 404 1200 "-" "{agent}"\n'
write_log("attack.log.gz", (attack_line(n) for n in range(attack)))

# A verified crawler's /robots.txt answered 503 each second, a fetch after
# each: the outage of each second is a rule of its own.
def outage_lines(n):
    client, t = seznam[n % 2048], stamp(start + n)
    yield f'{client} - - [{t}] "GET /robots.txt HTTP/1.1" 503 0 "-" "{ua}"\n'
    yield f'{client} - - [{t}] "GET /clanek/{n % 1000} HTTP/1.1" 200 900 "-" "{ua}"\n'
write_log("outages.log.gz", (line for n in range(outages) for line in outage_lines(n)))

# A day of fetches, each of its own millisecond (%{msec}t), spread evenly.
day_ms = 86_400_000
write_log("flood.log.gz", (
    f'{seznam[n % 2048]} - - {start * 1000 + n * day_ms // flood} "GET /clanek/{n % 1000} HTTP/1.1" 200 900 "-" "{ua}"\n'
    for n in range(flood)
))
# The same fetches two to a millisecond.
write_log("pairs.log.gz", (
    f'{seznam[n % 2048]} - - {start * 1000 + (n // 2) * day_ms // (flood // 2)} "GET /clanek/{n % 1000} HTTP/1.1" 200 900 "-" "{ua}"\n'
    for n in range(flood)
))
PY

# Runs the audit on log $1 into $work/out-$1; sets peak (KiB), wall (s),
# rows (violations) and spoofed (impostors).
measure() {
    local name=$1 out=$work/out-$1 status=0 start end extra=() robots=$work/robots.txt
    rm -rf "$out" "$work/state-$name"
    mkdir "$out"
    # Outages, the flood and its pairs are of a continuing story (SPEC §6): audited
    # with a state, which keeps the flood's latest million times.
    [[ $name == outages || $name == flood || $name == pairs ]] && extra=(--state "$work/state-$name")
    if [[ $name == flood || $name == pairs ]]; then
        robots=$work/robots-rate.txt
        extra+=(--robots-since 2026-01-01 --log-format
            '%h %l %u %{msec}t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"')
    fi
    start=$(date +%s.%N)
    /usr/bin/time -f %M -o "$work/$name.time" "$audit" --log "$work/$name.log.gz" \
        --robots "$robots" --ptr-map "$work/ptr-map.txt" "${audit_flags[@]}" \
        "${extra[@]}" --out "$out" 2>"$work/$name.stderr" || status=$?
    end=$(date +%s.%N)
    if [[ $status -gt 1 ]]; then
        echo "memory.sh: robots-audit on $name.log.gz failed with status $status:" >&2
        tail -n 20 "$work/$name.stderr" >&2
        peak=$(tail -n 1 "$work/$name.time")
        echo "memory.sh: its peak RSS before failing: $((peak / 1024)) MiB" >&2
        exit 2
    fi
    peak=$(tail -n 1 "$work/$name.time")
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    rows=$(($(wc -l <"$out/violations.csv") - 1))
    spoofed=$(($(wc -l <"$out/impostors.csv") - 1))
}

over=0
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
report=()
for name in fetches attack outages flood pairs; do
    echo "auditing $name.log.gz ..." >&2
    measure "$name"
    case $name in
        fetches)
            what="$fetches SeznamBot fetches, each a disallow row"
            want_rows=$fetches want_spoofed=0
            ;;
        attack)
            what="$attack requests, 16 KB targets and user agents"
            want_rows=$((attack / 2)) want_spoofed=$((attack - attack / 2))
            ;;
        outages)
            what="$outages robots.txt outages, a rule each"
            want_rows=$outages want_spoofed=0
            ;;
        flood)
            what="$flood fetches in a day, each its own ms, 9000/1d"
            want_rows=$((flood - 9000)) want_spoofed=0
            ;;
        pairs)
            what="$flood fetches in a day, two a ms, 9000/1d"
            want_rows=$((flood - 9000)) want_spoofed=0
            ;;
    esac
    check=ok
    if [[ $name == outages ]] && (($(wc -l <"$work/out-$name/rules.csv") - 1 != outages)); then
        check="UNEXPECTED: wanted $outages rules in rules.csv"
    fi
    [[ $rows -eq $want_rows && $spoofed -eq $want_spoofed ]] ||
        check="UNEXPECTED: wanted $want_rows rows and $want_spoofed impostors"
    verdict=$(awk -v p="$peak" 'BEGIN { print (p <= 102400 ? "within 100 MiB" : "OVER 100 MiB") }')
    [[ $verdict == within* ]] || over=1
    report+=("$(awk -v w="$what" -v p="$peak" -v s="$wall" -v r="$rows" -v i="$spoofed" -v v="$verdict" -v c="$check" 'BEGIN {
        printf "%-50s %8.1f MiB %8s s %9d %9d   %s (rows %s)", w, p / 1024, s, r, i, v, c }')")
done

printf 'robots-audit peak memory, %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
printf 'machine: %s, %s CPUs, %s; load %s before, %s after\n' "${cpu:-unknown CPU}" "$(nproc)" \
    "$(uname -sr)" "$load_before" "$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)"
printf 'build:   %s; %s; threads: %s\n\n' "$(git describe --always --dirty 2>/dev/null || echo '?')" "$memory_note" "${threads:-default}"
printf '%-50s %12s %10s %9s %9s   %s\n' log "peak RSS" wall rows impostors "SPEC §5: 100 MiB"
printf '%s\n' "${report[@]}"
exit "$over"
