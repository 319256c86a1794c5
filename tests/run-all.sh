#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Every test tier this machine can run. A tier that cannot run says why
# and counts as skipped, never as passed. The last line is the summary.
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/.." && pwd)
pass=0 fail=0 skip=0

tier() {	# name, then the command; parses the tier's "N passed, N failed" line
	local name=$1 out rc p f s
	shift
	echo "=== $name"
	out=$("$@" 2>&1 | tee -a /dev/stderr | tail -n 1)
	rc=${PIPESTATUS[0]}
	p=$(sed -n 's/.*: \([0-9]*\) passed.*/\1/p' <<<"$out")
	f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$out")
	s=$(sed -n 's/.* \([0-9]*\) skipped.*/\1/p' <<<"$out")
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
	if [ "$rc" = 77 ]; then	# the whole tier could not run; it said why
		skip=$((skip + 1))
	elif [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then
		fail=$((fail + 1))
	fi
}

tier unit "$dir/run-unit.sh" "$root"/build/tests/test_*
tier fixtures "$dir/run-fixtures.sh"
tier fuzz "$dir/run-fuzz.sh" "${FUZZ_BIN:-$root/build/fuzz/fuzz_profile}" "${FUZZ_SECONDS:-30}"
if [ "$(id -u)" = 0 ]; then
	tier host "$dir/run-host.sh"
	# fentry, kprobes and an older kernel, in Debian's cloud kernel under QEMU
	tier vm "$dir/vm/run-vm.sh"
else
	echo "SKIP: host tier: needs root (CAP_BPF, CAP_PERFMON)"
	echo "SKIP: vm tier: needs root (apt-get, the VM's kernel cache)"
	skip=$((skip + 2))
fi
echo "lockstat: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
