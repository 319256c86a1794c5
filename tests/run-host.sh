#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run the host tests (root, this kernel). Each script exits 0 (passed),
# 77 (skipped, with its reason printed) or anything else (failed).
dir=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0
for t in "$dir"/host/t[0-9]*.sh; do
	[ -n "${TESTS:-}" ] && ! [[ $(basename "$t") == *$TESTS* ]] && continue
	bash "$t"
	rc=$?
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)); echo "FAILED: $(basename "$t") (exit $rc)" ;;
	esac
done
echo "host: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
