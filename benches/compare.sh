#!/usr/bin/env bash
# compare.sh: the whole audit against bare inflate, on the inputs issue 10
# names (SPEC §5 limits; README "Performance").
#
# Takes a size (--lines, or --small to try it fast) and a number of runs.
# Generates at bench time, into bench-data/ (git ignores it), with
# examples/genlog.rs:
#   heavy  a crawler-heavy week: 5 M lines (about 1.3 GB, 120 MB gzip), 8%
#          Seznam crawler fetches, a quarter of them off limits, and the
#          sample robots.txt with `Crawl-delay: 1` added beside its windowed
#          `Request-rate`: about 216,000 violation rows;
#   light  the same size with 2% Seznam crawler lines;
#   halves heavy cut in two files, for two files on two cores.
# A smaller --lines keeps the lines per second of the week (the span
# shrinks with it), so the violation rows shrink in proportion.
#
# Gives, run alternately (each round starts with the next command, so a
# busy machine slows all alike) and as medians over the rounds:
#   inflate_count HEAVY          the limit: zlib-rs inflate + line count
#   robots-audit HEAVY           the full audit, --out to a temporary dir
#   gzip -dc HEAVY               the system's decompressor
#   zcat HEAVY | grep -c SeznamBot
#   zcat HEAVY | goaccess -      GoAccess (Debian's 1.7 reads no gzip)
#   inflate_count LIGHT, robots-audit LIGHT
#   robots-audit HALF1 HALF2     two files
#   taskset -c 0 robots-audit HEAVY   one file held to one core
# each as a ratio to bare inflate of the same file (median of the rounds'
# ratios), beside issue 10's targets: audit/inflate <= 1.15 on heavy,
# <= 1.10 on light, two files >= 1.8x the throughput of one. Beside the
# target, the two files on two cores against one file on one core: how far
# the audit's throughput grows with a second core. Also the
# audit's peak RSS (GNU time's %M), the violation rows the heavy audit
# wrote, whether zlib-rs is built with its `std` feature (CPU detection),
# and whether the reports are identical at --threads 1 and --threads 2
# (checked, not timed). Exit 0, or 1 when the reports differ by threads,
# 2 when something could not run.
#
# Usage: benches/compare.sh [--small] [--lines N] [--runs N] [--threads N]
#                           [--data DIR] [--no-goaccess]

set -euo pipefail

usage() {
    cat <<'EOF'
Usage: benches/compare.sh [OPTIONS]

  --lines N      lines of the heavy and light logs (default 5000000)
  --small        a quick try: --lines 200000 --runs 3
  --runs N       timed rounds, every command once a round (default 5)
  --threads N    pass --threads N to the timed audits (default: theirs)
  --data DIR     where generated logs are kept (default bench-data)
  --no-goaccess  leave GoAccess out (by far the slowest: minutes a run)
  -h, --help     this text

MB are 10^6 bytes of uncompressed log, MiB 2^20 bytes of memory.
EOF
}

die() {
    echo "compare.sh: $*" >&2
    exit 2
}

# The week issue 10 measured: 5 M lines over 7 days, 216,000 rows.
week_lines=5000000
week_seconds=604800
week_rows=216000

lines=$week_lines
runs=5
threads=
data=bench-data
goaccess=yes
while [[ $# -gt 0 ]]; do
    case $1 in
        --lines) lines=${2:?--lines needs a value}; shift 2 ;;
        --lines=*) lines=${1#*=}; shift ;;
        --small) lines=200000; runs=3; shift ;;
        --runs) runs=${2:?--runs needs a value}; shift 2 ;;
        --runs=*) runs=${1#*=}; shift ;;
        --threads) threads=${2:?--threads needs a value}; shift 2 ;;
        --threads=*) threads=${1#*=}; shift ;;
        --data) data=${2:?--data needs a value}; shift 2 ;;
        --data=*) data=${1#*=}; shift ;;
        --no-goaccess) goaccess=no; shift ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
[[ $lines =~ ^[1-9][0-9]*$ && $lines -ge 1000 ]] || die "--lines must be a number of at least 1000, not '$lines'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive number, not '$runs'"
[[ -z $threads || $threads =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive number, not '$threads'"

# Paths given relative to where the script was started stay valid after the
# cd to the repository root.
case $data in
    /*) ;;
    *) data=$PWD/$data ;;
esac
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

echo "building release binaries and examples ..." >&2
CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build --release --examples --bins --quiet
genlog=$root/target/release/examples/genlog
inflate=$root/target/release/examples/inflate_count
audit=$root/target/release/robots-audit
for exe in "$genlog" "$inflate" "$audit"; do
    [[ -x $exe ]] || die "missing after the build: $exe"
done
for tool in gzip zcat grep awk; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done

# The limit is zlib-rs with its CPU detection on, which only its `std`
# feature turns on (flate2 leaves it off): say which build is measured.
if cargo tree -e features -i zlib-rs 2>/dev/null | grep -q 'zlib-rs feature "std"'; then
    zlib_std='on (cargo tree -e features -i zlib-rs shows "std")'
else
    zlib_std='OFF: cargo tree -e features -i zlib-rs shows no "std"; inflate runs without CPU detection'
    echo "compare.sh: warning: zlib-rs is built without its std feature" >&2
fi

# Peak RSS and pipelines' exit codes come from GNU time, installed on
# demand where apt-get can.
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "installing GNU time to measure peak memory ..." >&2
        apt-get install -y -qq time >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq time >/dev/null 2>&1; } || true
    fi
    /usr/bin/time -f %M true >/dev/null 2>&1 || die "GNU time (/usr/bin/time) is missing and could not be installed"
fi

# GoAccess: Debian's package, installed when missing; the table says so
# when it cannot be had.
goaccess_note=
if [[ $goaccess == yes ]] && ! command -v goaccess >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "installing goaccess (apt-get install -y goaccess) ..." >&2
        apt-get install -y -qq goaccess >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq goaccess >/dev/null 2>&1; } || true
    fi
    if ! command -v goaccess >/dev/null; then
        goaccess=no
        goaccess_note="GoAccess NOT MEASURED: not installed, and apt-get install -y goaccess failed or was not possible"
        echo "compare.sh: $goaccess_note" >&2
    fi
elif [[ $goaccess == no ]]; then
    goaccess_note="GoAccess left out (--no-goaccess)"
fi

# ---- inputs -------------------------------------------------------------

mkdir -p "$data"
span=$((week_seconds * lines / week_lines))
((span >= 60)) || span=60
heavy=$data/heavy-$lines.log.gz
light=$data/light-$lines.log.gz
half1=$data/heavy-$lines.half1.log.gz
half2=$data/heavy-$lines.half2.log.gz
ptr=$data/heavy-$lines.ptr-map.txt
ptr_light=$data/light-$lines.ptr-map.txt
robots=$data/robots-crawl-delay.txt

# The sample robots.txt plus `Crawl-delay: 1` in SeznamBot's group, beside
# its windowed Request-rate (Seznam reads no Crawl-delay: its rows carry
# the note not-read-by-crawler, and are rows all the same).
awk '{ print } /^Request-rate: 100\/1m 0600-2200$/ { print "Crawl-delay: 1"; n++ }
     END { exit n == 1 ? 0 : 1 }' samples/robots.txt >"$robots.part" ||
    die "samples/robots.txt no longer holds 'Request-rate: 100/1m 0600-2200' to add Crawl-delay beside"
mv "$robots.part" "$robots"

# Generates log $1 with genlog flags $3... and PTR map $2, unless the same
# flags made it before (they are kept beside it). Written under a
# temporary name first, so an interrupted run never leaves a short file
# that later runs would take for a whole one.
generate() {
    local out=$1 map=$2
    shift 2
    local args="$*"
    if [[ -s $out && -s $out.args && $(<"$out.args") == "$args" ]]; then
        return
    fi
    echo "generating $out ..." >&2
    rm -f "$out.args"
    "$genlog" "$@" --gzip --out "$out.part" --ptr-map "$map" --quiet
    mv "$out.part" "$out"
    printf '%s' "$args" >"$out.args"
}
common=(--lines "$lines" --span "${span}s" --start 2026-11-23T00:00:00+01:00)
generate "$heavy" "$ptr" --seed 1 "${common[@]}" --crawler-share 8 --off-limits 25
generate "$light" "$ptr_light" --seed 2 "${common[@]}" --crawler-share 2

# The halves: heavy's own lines, cut at the middle line, so that two files
# carry exactly the one file's bytes.
if [[ ! -s $half1 || ! -s $half2 || $half1 -ot $heavy || $half2 -ot $heavy ]]; then
    echo "cutting $heavy in two files ..." >&2
    total=$(zcat "$heavy" | wc -l)
    # One pass, each half to its own gzip (head would end zcat early,
    # which pipefail takes for a failure).
    zcat "$heavy" | awk -v half=$((total / 2)) -v one="$half1.part" -v two="$half2.part" '
        NR == 1 { first = "gzip -6 -n >\"" one "\""; second = "gzip -6 -n >\"" two "\"" }
        NR <= half { print | first; next }
        { print | second }
        END { close(first); close(second) }'
    mv "$half1.part" "$half1"
    mv "$half2.part" "$half2"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/robots-audit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Uncompressed sizes, for MB/s.
bytes_of() { zcat "$1" | wc -c | tr -d ' '; }
heavy_bytes=$(bytes_of "$heavy")
light_bytes=$(bytes_of "$light")

# ---- the commands -------------------------------------------------------

audit_flags=(--robots "$robots" --quiet)
[[ -n $threads ]] && audit_flags+=(--threads "$threads")

names=(inflate audit gzip zgrep)
[[ $goaccess == yes ]] && names+=(goaccess)
names+=(inflate_light audit_light audit_two)
command -v taskset >/dev/null && names+=(audit_one_core)

label() {
    case $1 in
        inflate) echo "inflate_count (limit)" ;;
        audit) echo "robots-audit" ;;
        gzip) echo "gzip -dc" ;;
        zgrep) echo "zcat | grep -c SeznamBot" ;;
        goaccess) echo "zcat | goaccess -o json" ;;
        inflate_light) echo "inflate_count, 2% log" ;;
        audit_light) echo "robots-audit, 2% log" ;;
        audit_two) echo "robots-audit, 2 files" ;;
        audit_one_core) echo "robots-audit on 1 core" ;;
    esac
}

# The uncompressed bytes command $1 reads.
bytes_for() {
    case $1 in
        *_light) echo "$light_bytes" ;;
        *) echo "$heavy_bytes" ;;
    esac
}

# Runs command $1 once under GNU time: wall seconds to $work/$1.times, peak
# RSS in KiB to $work/$1.rss. robots-audit exits 1 when it found
# violations: that is a result, not a failure.
run_one() {
    local name=$1 out=$work/out-$1 status=0 start end
    local -a cmd
    rm -rf "$out"
    mkdir "$out"
    # The shell snippets' "$1" and "$2" are theirs, given after them.
    # shellcheck disable=SC2016
    case $name in
        inflate) cmd=("$inflate" "$heavy") ;;
        inflate_light) cmd=("$inflate" "$light") ;;
        audit) cmd=("$audit" --log "$heavy" --ptr-map "$ptr" "${audit_flags[@]}" --out "$out") ;;
        audit_light) cmd=("$audit" --log "$light" --ptr-map "$ptr_light" "${audit_flags[@]}" --out "$out") ;;
        audit_two) cmd=("$audit" --log "$half1" --log "$half2" --ptr-map "$ptr" "${audit_flags[@]}" --out "$out") ;;
        audit_one_core) cmd=(taskset -c 0 "$audit" --log "$heavy" --ptr-map "$ptr" "${audit_flags[@]}" --out "$out") ;;
        gzip) cmd=(sh -c 'exec gzip -dc "$1" >/dev/null' sh "$heavy") ;;
        zgrep) cmd=(bash -o pipefail -c 'zcat "$1" | grep -c SeznamBot' sh "$heavy") ;;
        goaccess)
            cmd=(bash -o pipefail -c 'zcat "$1" | goaccess - --log-format=COMBINED --no-global-config --no-progress -o "$2/report.json"' sh "$heavy" "$out")
            ;;
    esac
    start=$(date +%s.%N)
    /usr/bin/time -f %M -o "$work/$name.time" "${cmd[@]}" >"$work/$name.stdout" 2>"$work/$name.stderr" </dev/null || status=$?
    end=$(date +%s.%N)
    if [[ $status -ne 0 && ! ($name == audit* && $status -eq 1) ]]; then
        echo "compare.sh: $(label "$name") failed with status $status:" >&2
        tail -n 20 "$work/$name.stderr" >&2
        exit 2
    fi
    tail -n 1 "$work/$name.time" >>"$work/$name.rss"
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' >>"$work/$name.times"
}

median() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR % 2) printf "%.3f", v[(NR + 1) / 2]
        else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The median over the rounds of round-by-round ratios $1/$2 of wall times:
# a machine whose speed drifts between rounds moves both alike.
ratio() {
    paste -d ' ' "$work/$1.times" "$work/$2.times" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }' >"$work/ratio"
    median "$work/ratio"
}

# ---- timing -------------------------------------------------------------

# Warm the page cache so that the first command timed does not pay for it.
cat "$heavy" "$light" "$half1" "$half2" >/dev/null
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)
count=${#names[@]}
echo "timing $runs rounds of $count commands ..." >&2
for ((round = 0; round < runs; round++)); do
    for ((k = 0; k < count; k++)); do
        run_one "${names[(round + k) % count]}"
    done
    printf '  round %d/%d done\n' $((round + 1)) "$runs" >&2
done
load_after=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)

# ---- checks, not timed --------------------------------------------------

# Reports at --threads 1 and --threads 2: every report file byte for
# byte, and run.json but for the arguments it records. Hidden entries are
# the run's lock, not reports.
echo "checking the reports at --threads 1 and --threads 2 ..." >&2
for t in 1 2; do
    mkdir "$work/threads-$t"
    status=0
    "$audit" --log "$heavy" --ptr-map "$ptr" --robots "$robots" --quiet --threads "$t" \
        --out "$work/threads-$t" 2>"$work/threads-$t.stderr" || status=$?
    [[ $status -le 1 ]] || die "robots-audit --threads $t failed with status $status: $(tail -n 5 "$work/threads-$t.stderr")"
done
differ=()
mapfile -t written < <(find "$work/threads-1" "$work/threads-2" -mindepth 1 -maxdepth 1 -xtype f ! -name '.*' -printf '%f\n' | sort -u)
[[ ${#written[@]} -ge 3 ]] || die "the audits at --threads 1 and 2 left ${#written[@]} report files in --out, not the three SPEC §5 names"
for name in "${written[@]}"; do
    one=$work/threads-1/$name
    two=$work/threads-2/$name
    if [[ $name == run.json ]] && command -v python3 >/dev/null; then
        python3 - "$one" "$two" <<'PY' || differ+=("$name")
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d.pop("arguments", None)
sys.exit(0 if a == b else 1)
PY
    elif [[ $name == run.json ]]; then
        # Without python3: everything after the arguments' list.
        cmp -s <(sed '1,/^  \],$/d' "$one") <(sed '1,/^  \],$/d' "$two") || differ+=("$name")
    else
        cmp -s "$one" "$two" || differ+=("$name")
    fi
done
reports=${#written[@]}
if [[ ${#differ[@]} -eq 0 ]]; then
    threads_check="identical ($reports report files; run.json but for its arguments)"
else
    threads_check="DIFFER: ${differ[*]}"
fi

violations=$work/threads-1/violations.csv
[[ -s $violations ]] || die "the heavy audit wrote no violations.csv"
rows=$(($(wc -l <"$violations") - 1))
by_kind=$(awk -F, 'NR > 1 { n[$11]++ } END { for (k in n) printf "%s %d, ", k, n[k] }' "$violations" | sed 's/, $//')
inflated_lines=$(head -n 1 "$work/inflate.stdout")
seznam_lines=$(head -n 1 "$work/zgrep.stdout")

# ---- the table ----------------------------------------------------------

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
printf 'robots-audit against bare inflate, %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
printf 'machine:  %s, %s CPUs, %s; load %s before, %s after\n' \
    "${cpu:-unknown CPU}" "$(nproc)" "$(uname -sr)" "$load_before" "$load_after"
printf 'build:    %s, zlib-rs std feature %s\n' "$(git describe --always --dirty 2>/dev/null || echo '?')" "$zlib_std"
printf 'heavy:    %s: %s lines (%s by inflate_count), %s MB, %s MB gzip; %s SeznamBot lines (grep -c)\n' \
    "${heavy##*/}" "$lines" "$inflated_lines" "$(mb "$heavy_bytes")" "$(mb "$(wc -c <"$heavy")")" "$seznam_lines"
printf '          %s s of clock, 8%% Seznam crawler lines, %s\n' "$span" "${robots##*/}"
printf 'light:    %s: %s MB, %s MB gzip, 2%% Seznam crawler lines\n' \
    "${light##*/}" "$(mb "$light_bytes")" "$(mb "$(wc -c <"$light")")"
printf 'two:      %s + %s, heavy cut at its middle line\n' "${half1##*/}" "${half2##*/}"
printf 'rows:     %s violation rows from heavy (%s); the issue'"'"'s week: about %s per %s lines, so about %s here\n' \
    "$rows" "$by_kind" "$week_rows" "$week_lines" "$((week_rows * lines / week_lines))"
printf 'runs:     %d rounds, commands alternating; audit threads: %s\n' "$runs" "${threads:-default}"
[[ -n $goaccess_note ]] && printf 'note:     %s\n' "$goaccess_note"
echo

printf '%-27s %9s %8s %10s %9s   %s\n' command "median s" "MB/s" "peak RSS" "/inflate" "all runs (s)"
for name in "${names[@]}"; do
    med=$(median "$work/$name.times")
    peak=$(sort -g "$work/$name.rss" | tail -n 1)
    case $name in
        *_light) base=inflate_light ;;
        *) base=inflate ;;
    esac
    r=$(ratio "$name" "$base")
    awk -v l="$(label "$name")" -v m="$med" -v u="$(bytes_for "$name")" -v p="$peak" -v r="$r" \
        -v a="$(paste -sd ' ' "$work/$name.times")" 'BEGIN {
        printf "%-27s %9.3f %8.1f %6.1f MiB %8.2fx   %s\n", l, m, (m > 0 ? u / 1e6 / m : 0), p / 1024, r, a }'
done

# Issue 10's targets beside what was measured.
heavy_ratio=$(ratio audit inflate)
light_ratio=$(ratio audit_light inflate_light)
two_ratio=$(ratio audit audit_two)
audit_peak=$(cat "$work"/audit.rss "$work"/audit_light.rss "$work"/audit_two.rss | sort -g | tail -n 1)
echo
printf '%-44s %9s   %s\n' "issue 10" measured target
verdict() { awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN { ok = (op == "<=" ? v <= t : v >= t); print ok ? "met" : "NOT MET" }'; }
printf '%-44s %8.2fx   <= 1.15x  %s\n' "audit / inflate, 8% crawler lines" "$heavy_ratio" "$(verdict "$heavy_ratio" '<=' 1.15)"
printf '%-44s %8.2fx   <= 1.10x  %s\n' "audit / inflate, 2% crawler lines" "$light_ratio" "$(verdict "$light_ratio" '<=' 1.10)"
printf '%-44s %8.2fx   >= 1.80x  %s\n' "two files' throughput / one file's" "$two_ratio" "$(verdict "$two_ratio" '>=' 1.80)"
if [[ -s $work/audit_one_core.times ]]; then
    printf '%-44s %8.2fx   (no target: two files on 2 cores against one file on 1 core)\n' \
        "  the same, one file on 1 core" "$(ratio audit_one_core audit_two)"
else
    printf '%-44s %s\n' "  the same, one file on 1 core" "not measured: no taskset (util-linux)"
fi
awk -v p="$audit_peak" 'BEGIN { printf "%-44s %5.1f MiB   <= 100 MiB %s\n", "audit peak RSS (largest of the three)", p / 1024, (p <= 102400 ? "met" : "NOT MET") }'
printf '%-44s %s\n' "reports at --threads 1 and 2" "$threads_check"

[[ ${#differ[@]} -eq 0 ]] || exit 1
