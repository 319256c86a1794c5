#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run the cmocka unit tests (ASan/UBSan builds) and count their tests from
# cmocka's summary: passed, failed, skipped (a test that skips prints
# "SKIP: binary: PREREQ: why" first). A binary that dies or exits non-zero
# without a failed test of its own counts as one failure. One summary
# line last.
pass=0 fail=0 skip=0
out=$(mktemp /tmp/lockstat-unit.XXXXXX)
trap 'rm -f "$out"' EXIT

# summed LABEL: the N of cmocka's "[  LABEL ] N test(s)" line, or 0.
summed() { sed -n "s/^\\[ *$1 *\\] \\([0-9]*\\) test(s).*/\\1/p" "$out" | head -n 1 | grep . || echo 0; }

for t in "$@"; do
	"$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	p=$(summed PASSED) f=$(summed FAILED) s=$(summed SKIPPED)
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
		echo "FAILED: $t (exit $rc${p:+, after $p passed})"
	elif [ "$f" != 0 ]; then
		echo "FAILED: $t ($f failed)"
	fi
	if [ "$s" != 0 ] && ! grep -q '^SKIP: ' "$out"; then
		echo "FAILED: $t skipped $s test(s) without a SKIP: line naming why"
		f=$((f + 1))
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done
echo "unit: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
