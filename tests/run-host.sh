#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run the host tests (root, this kernel) and count their checks from the
# TAP lines they print: "ok" passed, "not ok" failed, "ok ... # SKIP"
# skipped. A script exits 0 (its checks passed), 77 (skipped whole, with
# "SKIP: name: PREREQ: why") or anything else (failed); one that fails,
# dies or times out without a failing check of its own counts as one
# failure, as does one that ran no check at all. Before the summary
# line, the skips by prerequisite (tests/skips.sh): "# skipped: PREREQ N
# (test: check; ...)". One summary line last.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/skips.sh"
limit=${LOCKSTAT_TEST_TIMEOUT:-900}
pass=0 fail=0 skip=0
out=$(mktemp /tmp/lockstat-host.XXXXXX)
skips=$(mktemp /tmp/lockstat-host-skips.XXXXXX)
trap 'rm -f "$out" "$skips"' EXIT

# count SCRIPT RC: add the script's checks, from $out, to the totals.
count() {
	local name=$1 rc=$2 p f s
	p=$(grep -c '^ok - ' "$out")
	s=$(grep -c '^ok - .*# SKIP' "$out")
	f=$(grep -c '^not ok - ' "$out")
	p=$((p - s))
	# A check whose TAP line went elsewhere (check ... >file) is no check.
	if grep -q "^# $name: [0-9]* passed, [0-9]* failed" "$out" &&
	   ! grep -q "^# $name: $p passed, $f failed, $s skipped$" "$out"; then
		echo "not ok - $name: its TAP lines ($p passed, $f failed, $s skipped) are not its own count: $(grep "^# $name: [0-9]* passed" "$out")"
		f=$((f + 1))
	fi
	case $rc in
	77)
		grep -q '^SKIP: ' "$out" || { echo "not ok - $name: exit 77 without a SKIP: line naming why"; f=$((f + 1)); }
		s=$((s + 1)) ;;
	0)
		[ $((p + f + s)) -gt 0 ] || { echo "not ok - $name: exit 0 without a single check"; f=$((f + 1)); } ;;
	*)
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			echo "not ok - $name: timed out after $limit s"; f=$((f + 1))
		elif [ "$f" = 0 ]; then
			echo "not ok - $name: exit $rc without a failing check"; f=$((f + 1))
		fi ;;
	esac
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	[ "$rc" = 0 ] || [ "$rc" = 77 ] || echo "FAILED: $name (exit $rc)"
}

for t in "$dir"/host/t[0-9]*.sh; do
	[ -n "${TESTS:-}" ] && ! [[ $(basename "$t") == *$TESTS* ]] && continue
	timeout -k 10 "$limit" bash "$t" 2>&1 | tee "$out"
	count "$(basename "$t" .sh)" "${PIPESTATUS[0]}"
	skip_lines "$out" >>"$skips"
done
skip_summary <"$skips"
echo "host: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
