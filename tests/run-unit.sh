#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run the cmocka unit tests (ASan/UBSan builds); prints one summary line.
pass=0 fail=0
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $t"; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" = 0 ]
