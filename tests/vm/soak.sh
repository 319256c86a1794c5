#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The VM tier again and again, to show it deterministic (or catch it
# failing): N consecutive runs of tests/vm/run-vm.sh, optionally with the
# host's CPUs kept busy by stress-ng, each run's time and result and the
# host's load average, a failing run's console log and vCPU stacks kept;
# before the runs, tests/vm/hang-evidence.sh (a hang is caught, with its
# evidence).
#
# Usage: soak.sh [-n RUNS] [-s RUNS_UNDER_STRESS] [-o DIR]
#   -n RUNS   runs in all (default 30)
#   -s K      the last K of them with `stress-ng --cpu $(nproc)` running
#             (default 0)
#   -o DIR    where the logs go (default $LOCKSTAT_BUILD/vm-soak)
# Environment: as run-vm.sh (TESTS, LOCKSTAT_BUILD, LOCKSTAT_VM_*).
#
# Prints one line per run, then "soak: N runs, F failed; median M s, max
# X s per run; load average L..H" and "soak: N passed, F failed". Exit 0
# when every run passed, 1 otherwise, 2 on bad usage.
set -u -o pipefail
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
build=${LOCKSTAT_BUILD:-$root/build}
runs=30 stressed=0 out=
usage() { echo "usage: $0 [-n RUNS] [-s RUNS_UNDER_STRESS] [-o DIR]" >&2; exit 2; }
while getopts n:s:o: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	s) stressed=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]*$ && $stressed =~ ^[0-9]+$ ]] && [ "$stressed" -le "$runs" ] || usage
out=${out:-$build/vm-soak}
mkdir -p "$out" || exit 1
if [ "$stressed" -gt 0 ] && ! command -v stress-ng >/dev/null; then
	echo "lockstat: soak: -s needs stress-ng (apt-get install stress-ng)" >&2
	exit 1
fi

stress_pid=
stop_stress() {
	[ -n "$stress_pid" ] && kill "$stress_pid" 2>/dev/null && wait "$stress_pid" 2>/dev/null
	stress_pid=
}
trap stop_stress EXIT

load1() { cut -d' ' -f1 /proc/loadavg; }
# First, that a hang would be caught with its evidence.
LOCKSTAT_BUILD=$build "$dir/hang-evidence.sh" >"$out/hang-evidence.txt" 2>&1
rc=$?
tail -n 1 "$out/hang-evidence.txt" | sed 's/^/soak: /'
[ "$rc" = 0 ] || [ "$rc" = 77 ] || { grep '^not ok' "$out/hang-evidence.txt"; exit 1; }
fail=0
: >"$out/times"
for i in $(seq 1 "$runs"); do
	busy=
	if [ "$i" -gt $((runs - stressed)) ] && [ -z "$stress_pid" ]; then
		stress-ng --cpu "$(nproc)" --timeout 0 >/dev/null 2>&1 &
		stress_pid=$!
	fi
	[ -n "$stress_pid" ] && busy=", stress-ng --cpu $(nproc)"
	l0=$(load1)
	start=$(date +%s.%N)
	LOCKSTAT_BUILD=$build "$dir/run-vm.sh" >"$out/run.txt" 2>&1
	rc=$?
	t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	l1=$(load1)
	echo "$t $l0 $l1" >>"$out/times"
	summary=$(tail -n 1 "$out/run.txt")
	if [ "$rc" = 0 ]; then
		echo "soak: run $i: ok, $t s, load $l0 -> $l1$busy ($summary)"
	else
		fail=$((fail + 1))
		echo "soak: run $i: FAILED (exit $rc), $t s, load $l0 -> $l1$busy ($summary); logs in $out/fail-$i"
		mkdir -p "$out/fail-$i"
		cp "$out/run.txt" "$build/vm/console.log" "$out/fail-$i/" 2>/dev/null
		cp "$build/vm/hang.txt" "$build/vm/hang.raw" "$out/fail-$i/" 2>/dev/null
		grep -E '^not ok|hung|panicked' "$out/run.txt" | head -n 5 | sed 's/^/#   /'
	fi
done
stop_stress
awk -v n="$runs" -v f="$fail" '
	{ t[NR] = $1; for (i = 2; i <= 3; i++) { if (!init++ || $i < lo) lo = $i; if ($i > hi) hi = $i } }
	END {
		# median of the run times: sort them (n is small)
		for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
		med = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		printf "soak: %d runs, %d failed; median %.1f s, max %.1f s per run; load average %s..%s\n", n, f, med, t[NR], lo, hi
	}' "$out/times"
echo "soak: $((runs - fail)) passed, $fail failed"
[ "$fail" = 0 ]
