#!/usr/bin/env bash
# compare.sh: whole-run throughput of robots-audit against plain decompression.
#
# Takes a size (or an existing gzip log) and a number of runs. Gives, for
#   gzip -dc FILE                        the system's own decompressor,
#   inflate_count FILE                   the bare baseline: the same flate2
#                                        backend as the audit, counting lines,
#   robots-audit --log FILE ...          the whole audit,
# the median wall time in seconds, MB/s of uncompressed data, the ratios
# audit/baseline and audit/gzip, and each command's peak RSS. The commands
# run alternately in one session, so a busy machine slows them all alike
# (STYLE "Benches": whole-run MB/s against gzip -dc on the same file in the
# same run).
#
# The log is generated once by examples/genlog.rs into bench-data/ (which
# git ignores) and reused on later runs.
#
# Usage: benches/compare.sh [--size 1G] [--runs 5] [--threads N]
#                           [--log FILE.gz] [--data DIR]

set -euo pipefail

usage() {
    cat <<'EOF'
Usage: benches/compare.sh [OPTIONS]

  --size SIZE    uncompressed size of the generated log: 1G, 200M, ... (default 1G)
  --runs N       timed runs of each command (default 5)
  --threads N    pass --threads N to robots-audit (default: its own choice)
  --log FILE     time this gzip log instead of a generated one
  --data DIR     where generated logs are kept (default bench-data)
  -h, --help     this text

MB are 10^6 bytes of uncompressed log. Exit status 0 unless a command failed.
EOF
}

die() {
    echo "compare.sh: $*" >&2
    exit 2
}

size=1G
runs=5
threads=
log=
data=bench-data

while [[ $# -gt 0 ]]; do
    case $1 in
        --size) size=${2:?--size needs a value}; shift 2 ;;
        --size=*) size=${1#*=}; shift ;;
        --runs) runs=${2:?--runs needs a value}; shift 2 ;;
        --runs=*) runs=${1#*=}; shift ;;
        --threads) threads=${2:?--threads needs a value}; shift 2 ;;
        --threads=*) threads=${1#*=}; shift ;;
        --log) log=${2:?--log needs a value}; shift 2 ;;
        --log=*) log=${1#*=}; shift ;;
        --data) data=${2:?--data needs a value}; shift 2 ;;
        --data=*) data=${1#*=}; shift ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive number, not '$runs'"
[[ -z $threads || $threads =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive number, not '$threads'"
[[ $size =~ ^[0-9]+[KkMmGgTt]?$ ]] || die "--size must look like 1G, 200M or 65536, not '$size'"

# Paths given relative to where the script was started stay valid after the
# cd to the repository root.
start_dir=$PWD
absolute() {
    case $1 in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s\n' "$start_dir/$1" ;;
    esac
}
[[ -n $log ]] && log=$(absolute "$log")
data=$(absolute "$data")

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

echo "building release binaries and examples ..." >&2
cargo build --release --examples --bins --quiet

genlog=$root/target/release/examples/genlog
baseline=$root/target/release/examples/inflate_count
audit=$root/target/release/robots-audit
robots=$root/samples/robots.txt
for exe in "$genlog" "$baseline" "$audit"; do
    [[ -x $exe ]] || die "missing after the build: $exe"
done
command -v gzip >/dev/null || die "gzip is not installed"

# The log: given, or generated once per size. The generator writes to a
# temporary name first, so an interrupted run never leaves a short file
# that later runs would take for a whole one.
if [[ -z $log ]]; then
    mkdir -p "$data"
    log=$data/access-$size.log.gz
    if [[ ! -s $log ]]; then
        echo "generating $log (about $size uncompressed) ..." >&2
        "$genlog" --seed 1 --bytes "$size" --start 2026-11-29T00:00:00+01:00 --span 1d \
            --gzip --out "$log.part" --ptr-map "$data/access-$size.ptr-map.txt" --quiet
        mv "$log.part" "$log"
    fi
fi
[[ -r $log ]] || die "cannot read $log"
[[ $(head -c 2 "$log" | od -An -tx1 | tr -d ' \n') == 1f8b ]] || die "$log is not gzip: the comparison is with gzip -dc"

work=$(mktemp -d "${TMPDIR:-/tmp}/robots-audit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The uncompressed size, measured once and kept beside the log (gzip -l
# wraps at 4 GiB). A given log's size goes to the scratch directory.
if [[ $log == "$data"/* ]]; then
    bytes_file=$log.bytes
else
    bytes_file=$work/bytes
fi
if [[ ! -s $bytes_file || $bytes_file -ot $log ]]; then
    gzip -dc "$log" | wc -c | tr -d ' ' >"$bytes_file"
fi
bytes=$(<"$bytes_file")
[[ $bytes =~ ^[0-9]+$ && $bytes -gt 0 ]] || die "cannot tell the uncompressed size of $log"

# Peak RSS: GNU time if present (installed on demand where apt-get can),
# else the kernel's high-water mark, polled while the command runs.
timer=
if [[ -x /usr/bin/time ]] && /usr/bin/time -v true 2>/dev/null; then
    timer=/usr/bin/time
elif [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "installing GNU time to measure peak memory ..." >&2
    if apt-get install -y -qq time >/dev/null 2>&1 && /usr/bin/time -v true 2>/dev/null; then
        timer=/usr/bin/time
    fi
fi
[[ -n $timer ]] || echo "GNU time unavailable: reading peak memory from /proc/PID/status (VmHWM)" >&2

names=(gzip baseline audit)
labels=("gzip -dc" "inflate_count (baseline)" "robots-audit")
audit_args=(--log "$log" --robots "$robots" --out "$work/out" --quiet)
[[ -n $threads ]] && audit_args+=(--threads "$threads")

# Sets cmd to command N ($1), ready to run.
command_for() {
    case ${names[$1]} in
        gzip) cmd=(gzip -dc "$log") ;;
        baseline) cmd=("$baseline" "$log") ;;
        audit)
            rm -rf "$work/out"
            mkdir "$work/out"
            cmd=("$audit" "${audit_args[@]}")
            ;;
    esac
}

# Stops the script when command N ($1) ended with status $2. robots-audit
# exits 1 when it found violations: that is a result, not a failure.
check_status() {
    local name=${names[$1]}
    if [[ $2 -ne 0 && ! ($name == audit && $2 -eq 1) ]]; then
        echo "compare.sh: ${labels[$1]} failed with status $2:" >&2
        tail -n 20 "$work/$name.stderr" >&2
        exit 2
    fi
}

# Runs command N ($1) once. Appends its wall time in seconds to
# $work/NAME.times and, under GNU time, its peak RSS in KiB to
# $work/NAME.rss.
run_one() {
    local name=${names[$1]} status=0 start end
    local -a cmd
    command_for "$1"
    start=$(date +%s.%N)
    if [[ -n $timer ]]; then
        "$timer" -v -o "$work/$name.time" "${cmd[@]}" >"$work/$name.stdout" 2>"$work/$name.stderr" || status=$?
        end=$(date +%s.%N)
        awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$work/$name.time" >>"$work/$name.rss"
    else
        "${cmd[@]}" >"$work/$name.stdout" 2>"$work/$name.stderr" || status=$?
        end=$(date +%s.%N)
    fi
    check_status "$1" "$status"
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' >>"$work/$name.times"
}

# Without GNU time: runs command N ($1) once more, untimed, polling the
# kernel's high-water mark, which never falls, until it exits. Polling
# would blur the timed runs, hence the extra run.
poll_rss() {
    local name=${names[$1]} status=0 peak=0 now pid
    local -a cmd
    command_for "$1"
    "${cmd[@]}" >"$work/$name.stdout" 2>"$work/$name.stderr" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        now=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        [[ -n $now && $now -gt $peak ]] && peak=$now
        sleep 0.02
    done
    wait "$pid" || status=$?
    check_status "$1" "$status"
    echo "$peak" >>"$work/$name.rss"
}

median() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR % 2) printf "%.3f", v[(NR + 1) / 2]
        else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Warm the page cache so that the first command timed does not pay for it.
cat "$log" >/dev/null

compressed=$(wc -c <"$log" | tr -d ' ')
echo "timing $runs runs of each command on $log ..." >&2
for ((round = 0; round < runs; round++)); do
    # Rotate who goes first, so that no command always runs on a machine
    # warmed (or heated) by the same neighbour.
    for ((k = 0; k < 3; k++)); do
        run_one $(((round + k) % 3))
    done
    printf '  round %d/%d done\n' $((round + 1)) "$runs" >&2
done
if [[ -z $timer ]]; then
    for k in 0 1 2; do
        poll_rss "$k"
    done
fi

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
printf 'robots-audit whole-run benchmark, %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
printf 'machine: %s, %s CPUs, %s\n' "${cpu:-unknown CPU}" "$(nproc)" "$(uname -sr)"
printf 'input:   %s\n' "$log"
awk -v c="$compressed" -v u="$bytes" 'BEGIN {
    printf "         %.1f MB compressed, %.1f MB uncompressed (%.1fx)\n", c / 1e6, u / 1e6, u / c }'
printf 'runs:    %d of each, alternating; audit threads: %s\n\n' "$runs" "${threads:-default}"

printf '%-26s %10s %10s %12s   %s\n' command "median s" "MB/s" "peak RSS" "all runs (s)"
for i in 0 1 2; do
    name=${names[$i]}
    med=$(median "$work/$name.times")
    peak=$(sort -g "$work/$name.rss" | tail -n 1)
    all=$(paste -sd ' ' "$work/$name.times")
    awk -v l="${labels[$i]}" -v m="$med" -v u="$bytes" -v r="$peak" -v a="$all" 'BEGIN {
        printf "%-26s %10.3f %10.1f %9.1f MB   %s\n", l, m, (m > 0 ? u / 1e6 / m : 0), r / 1024, a }'
    printf -v "median_$name" '%s' "$med"
done

# shellcheck disable=SC2154 # set through printf -v above
awk -v a="$median_audit" -v b="$median_baseline" -v g="$median_gzip" 'BEGIN {
    printf "\naudit / baseline: %.2fx    audit / gzip -dc: %.2fx\n",
        (b > 0 ? a / b : 0), (g > 0 ? a / g : 0) }'
if [[ -s $work/baseline.stdout ]]; then
    printf 'inflate_count says: %s\n' "$(head -c 200 "$work/baseline.stdout" | tr '\n' ' ')"
fi
