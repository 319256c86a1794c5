#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Every test tier this machine can run. A tier that cannot run says why
# and counts as skipped, never as passed; one that fails, or dies before
# its summary line, counts as failed. The last line is the summary.
#
# LOCKSTAT_CI_EXPECT=FILE (see tests/ci-expect): what this machine has.
# Then a skipped tier that FILE lists, or a skip (SKIP: lines, TAP's
# "# SKIP") naming a prerequisite FILE lists, is a failure: on the CI
# machine a skip means something broke, not that something is missing.
# LOCKSTAT_CI_MAX_CONCURRENCY=N (.ci/run): more than N checks skipped as
# CONCURRENCY (the workers hardly ran at once) in one run is a failure.
# Before the summary line, every tier's skips by prerequisite
# (tests/skips.sh): "# skipped: PREREQ N (test: check; ...)".
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/.." && pwd)
. "$dir/skips.sh"
pass=0 fail=0 skip=0
logs=$(mktemp -d /tmp/lockstat-all.XXXXXX)
trap 'rm -rf "$logs"' EXIT
skipped_tiers=

tier() {	# name, then the command; parses the tier's "N passed, N failed, N skipped" line
	local name=$1 rc last p f s
	shift
	echo "=== $name"
	"$@" 2>&1 | tee "$logs/$name"
	rc=${PIPESTATUS[0]}
	last=$(tail -n 1 "$logs/$name")
	p=$(sed -n 's/^[a-z]*: \([0-9]*\) passed.*/\1/p' <<<"$last")
	f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$last")
	s=$(sed -n 's/.* \([0-9]*\) skipped.*/\1/p' <<<"$last")
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
	if [ -z "$p" ]; then
		echo "not ok - $name tier: exit $rc before its summary line"
		fail=$((fail + 1))
	elif [ "$rc" = 77 ]; then	# the whole tier could not run; it said why
		skipped_tiers+=" $name"
		[ -n "$s" ] || skip=$((skip + 1))
	elif [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then
		echo "not ok - $name tier: exit $rc with no failure counted"
		fail=$((fail + 1))
	fi
}

# The prerequisites a tier's skips name.
skipped_prereqs() { skip_lines "$1" | cut -f1 | sort -u; }

# Fail for every skip that LOCKSTAT_CI_EXPECT says this machine cannot have.
ci_expect() {
	local want=$1 t name p
	[ -r "$want" ] || { echo "not ok - ci: cannot read LOCKSTAT_CI_EXPECT=$want"; fail=$((fail + 1)); return; }
	for t in $(awk '$1 == "tier" { print $2 }' "$want"); do
		if [[ " $skipped_tiers " == *" $t "* ]] || [ ! -e "$logs/$t" ]; then
			echo "not ok - ci: the $t tier did not run, but $want says this machine runs it"
			fail=$((fail + 1))
		fi
	done
	for name in $(ls "$logs"); do
		for p in $(skipped_prereqs "$logs/$name"); do
			awk -v p="$p" -v t="$name" '$1 == "has" && ($2 == p || $2 == t ":" p) { found = 1 } END { exit !found }' "$want" ||
				continue
			echo "not ok - ci: the $name tier skipped for want of $p, which $want says this machine has:"
			grep -E "SKIP:? ([^:]*: )?([A-Z0-9_]+, )*$p[,:]" "$logs/$name" | sed 's/^/#   /'
			fail=$((fail + 1))
		done
	done
}

# Fail when more checks than LOCKSTAT_CI_MAX_CONCURRENCY were skipped
# because the workers hardly ran at once: the run then says too little
# about contention to pass.
ci_concurrency() {
	local max=$1 n
	n=$(skip_lines "$logs"/* | skip_count CONCURRENCY)
	[ "$n" -le "$max" ] && return
	echo "not ok - ci: $n checks skipped as CONCURRENCY, more than the $max LOCKSTAT_CI_MAX_CONCURRENCY allows"
	fail=$((fail + 1))
}

tier unit "$dir/run-unit.sh" "$root"/build/tests/test_*
tier fixtures "$dir/run-fixtures.sh"
tier fuzz "$dir/run-fuzz.sh" "${FUZZ_BIN:-$root/build/fuzz/fuzz_profile}" "${FUZZ_SECONDS:-30}"
if [ "$(id -u)" = 0 ]; then
	tier host "$dir/run-host.sh"
	# fentry, kprobes and an older kernel, in Debian's cloud kernel under QEMU
	tier vm "$dir/vm/run-vm.sh"
else
	echo "SKIP: host tier: ROOT: needs root (CAP_BPF, CAP_PERFMON)"
	echo "SKIP: vm tier: ROOT: needs root (apt-get, the VM's kernel cache)"
	skipped_tiers+=" host vm"
	skip=$((skip + 2))
fi
[ -n "${LOCKSTAT_CI_EXPECT:-}" ] && ci_expect "$LOCKSTAT_CI_EXPECT"
[ -n "${LOCKSTAT_CI_MAX_CONCURRENCY:-}" ] && ci_concurrency "$LOCKSTAT_CI_MAX_CONCURRENCY"
skip_lines "$logs"/* | skip_summary
echo "lockstat: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
