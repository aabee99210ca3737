# Shared by the scripts beside it (sourced, not run): the pass/fail tally,
# finding a program by its names, and installing a Debian package when a
# program is missing.
#
# Takes: nothing. Gives: `passed`, `failed`, `pass MSG`, `fail MSG`,
# `find_program NAME...` (the first on PATH, or nothing) and
# `apt_install PACKAGE...` (tries each package in turn with apt-get, as
# root or through `sudo -n`; never fails the script: the caller looks for
# the program again and says SKIPPED when it is still missing).

passed=0
failed=0

pass() {
    passed=$((passed + 1))
    echo "ok    $1"
}

fail() {
    failed=$((failed + 1))
    echo "FAIL  $1"
}

find_program() {
    local name path
    for name in "$@"; do
        path=$(command -v "$name" || true)
        if [[ -n $path && -x $path ]]; then
            echo "$path"
            return
        fi
    done
}

apt_install() {
    local sudo=() package
    if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null; then
        sudo=(sudo -n)
    fi
    command -v apt-get >/dev/null || return 0
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update >&2 || return 0
    for package in "$@"; do
        if "${sudo[@]}" apt-get install -y --no-install-recommends "$package" >&2; then
            return 0
        fi
    done
    return 0
}
