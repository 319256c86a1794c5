#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# One test, by name, built and run through its tier's runner (so counted
# and judged as `make check` would), with no package installed first:
# `make test T=NAME` runs this. NAME is
#   a unit test       test_ctable, test_ctable.c, tests/unit/test_ctable.c
#   a host or VM      t0035-lost, t0035, lost (the part after the number),
#   script            t0035-lost.sh, tests/host/t0035-lost.sh; host/NAME
#                     or vm/NAME where both tiers have the name
#   the fixtures tier fixtures
# A name that matches nothing, or more than one test, is an error that
# lists what it matched. The runner's exit status is this script's.
# With -n, prints the test NAME names, and builds and runs nothing.
#
# Environment: MAKE (the make that builds what the test needs; `make test`
# sets it), OUTPUT (the build directory, default build).
set -u
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/.." && pwd)
cd "$root" || exit 1
make=${MAKE:-make}
out=${OUTPUT:-build}
abs_out=$(realpath -m "$out")

die() {
	echo "run-test: $*" >&2
	exit 2
}

dry=0
[ "${1:-}" = -n ] && { dry=1; shift; }
if [ $# != 1 ] || [ -z "$1" ]; then
	die "usage: make test T=NAME (a unit test, test_ctable; a host or VM script, t0035-lost, t0035 or lost; fixtures)"
fi

# found NAME TIER...: every test of the tiers that NAME names, one a line.
found() {
	local name=$1 tier f b
	shift
	for tier in "$@"; do
		case $tier in
		unit)
			[ -f "tests/unit/$name.c" ] && [[ $name == test_* ]] && echo "tests/unit/$name.c" ;;
		fixtures)
			[ "$name" = fixtures ] && echo fixtures ;;
		host|vm)
			for f in "tests/$tier"/t[0-9]*.sh; do
				b=$(basename "$f" .sh)
				[[ $b =~ ^(t[0-9]+)-(.*)$ ]] || continue
				# the whole name, its number, or the part after it
				[ "$name" = "$b" ] || [ "$name" = "${BASH_REMATCH[1]}" ] ||
					[ "$name" = "${BASH_REMATCH[2]}" ] && echo "$f"
			done ;;
		esac
	done | sort -u
}

name=${1#./}
name=${name#tests/}
tiers="unit fixtures host vm"
case $name in
unit/*|host/*|vm/*) tiers=${name%%/*} name=${name#*/} ;;
*/*) die "T=$1: not a test (unit/, host/ or vm/ are the tiers)" ;;
esac
name=${name%.c}
name=${name%.sh}
# shellcheck disable=SC2086 # tiers is a list of words
mapfile -t tests < <(found "$name" $tiers)
case ${#tests[@]} in
0) die "T=$1: no such test (ls tests/unit/test_*.c tests/host/t*.sh tests/vm/t*.sh; or fixtures)" ;;
1) ;;
*) die "T=$1 names more than one test: ${tests[*]}; say which: $(printf '%s\n' "${tests[@]}" |
	sed 's|^tests/\([a-z]*\)/\(t[0-9]*-\)\?\([^.]*\).*|\1/\2\3|' | paste -sd ' ')" ;;
esac
t=${tests[0]}
base=$(basename "$t")
base=${base%.*}
[ "$dry" = 0 ] || { echo "$t"; exit 0; }

case $t in
tests/unit/*)
	$make --no-print-directory "$out/tests/$base" || exit
	exec "$dir/run-unit.sh" "$out/tests/$base" ;;
fixtures)
	$make --no-print-directory "$out/asan/lockstat" workloads || exit
	ASAN_LOCKSTAT=$abs_out/asan/lockstat WORKLOADS=$abs_out/workloads exec "$dir/run-fixtures.sh" ;;
tests/host/*)
	# all, and the ASan build that t0205 and t0210 run top under
	$make --no-print-directory all "$out/asan/lockstat" || exit
	LOCKSTAT=$abs_out/lockstat WORKLOADS=$abs_out/workloads ASAN_LOCKSTAT=$abs_out/asan/lockstat \
		SKEL_DIR=$abs_out/skel TESTS=$base exec "$dir/run-host.sh" ;;
tests/vm/*)
	$make --no-print-directory "$out/lockstat" workloads || exit
	LOCKSTAT_BUILD=$abs_out TESTS=$base exec "$dir/vm/run-vm.sh" ;;
esac
