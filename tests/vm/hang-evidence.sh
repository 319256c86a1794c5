#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The VM tier's hang path, end to end: a guest called hung (here by a
# silence limit shorter than t0110's quiet start) must fail the tier with
# "hung while TEST ran", and leave in hang.txt every vCPU's registers and
# a stack symbolized from the guest's kallsyms. And a slow run is told
# apart: a guest whose clock runs at half the host's (told a TSC rate
# twice the real one) fails the tier saying so. Run by hand or from
# soak.sh; exit 0 when all that holds, 1 otherwise, 77 when the VM tier
# itself cannot run here.
set -u -o pipefail
dir=$(cd "$(dirname "$0")" && pwd)
build=${LOCKSTAT_BUILD:-$(cd "$dir/../.." && pwd)/build}
smp=${LOCKSTAT_VM_SMP:-3}
pass=0 fail=0
check() {
	local what=$1
	shift
	if "$@"; then echo "ok - hang-evidence: $what"; pass=$((pass + 1))
	else echo "not ok - hang-evidence: $what"; fail=$((fail + 1)); fi
}

# The guest's kallsyms come with a first boot that lasts long enough.
ls "$build"/vm/kallsyms-* >/dev/null 2>&1 || TESTS=t0010 "$dir/run-vm.sh" >/dev/null 2>&1
out=$(LOCKSTAT_VM_SILENCE=2 TESTS=t0110 "$dir/run-vm.sh" 2>&1)
rc=$?
[ "$rc" = 77 ] && { echo "$out" | grep '^SKIP'; echo "hang-evidence: 0 passed, 0 failed, 1 skipped"; exit 77; }
hang=$build/vm/hang.txt
check "the tier fails ($rc)" test "$rc" = 1
check "it says the guest hung while t0110-hold ran" grep -q '^not ok - vm: hung while t0110-hold ran (silent for 2 s' <<<"$out"
check "hang.txt has $smp vCPUs ($(grep -c '^# vCPU ' "$hang" 2>/dev/null))" \
	test "$(grep -c '^# vCPU CPU#' "$hang" 2>/dev/null)" = "$smp"
check "each with its flags" test "$(grep -c '^#   eflags 0x' "$hang" 2>/dev/null)" = "$smp"
check "kernel instruction pointers are symbolized" grep -Eq '^#   rip [a-z_][a-z0-9_.]*\+0x[0-9a-f]+$' "$hang"
check "so are the stacks' return addresses" grep -Eq '^#     \? [a-z_][a-z0-9_.]*\+0x[0-9a-f]+$' "$hang"
[ "$fail" = 0 ] || { echo "$out" | tail -n 30 | sed 's/^/# /'; sed 's/^/# hang.txt: /' "$hang" 2>/dev/null | head -n 40; }

# The text-patching trap gets one more run, and only one: a pattern that
# every hang's evidence matches makes the forced hang look like it.
out=$(LOCKSTAT_VM_TRAP_PATTERN='^# vCPU' LOCKSTAT_VM_SILENCE=2 TESTS=t0110 "$dir/run-vm.sh" 2>&1)
rc=$?
check "a trap-like hang in t0110-hold runs the tier once more, saying so" \
	grep -q "that is the TCG text-patching trap.*running the tier once more" <<<"$out"
check "and a second hang fails it ($rc), saying it ran twice" \
	sh -c '[ "$1" = 1 ] && grep -q "^vm: 0 passed, 1 failed, 0 skipped (run twice" <<EOF
$2
EOF' - "$rc" "$out"

khz=$(sed -n 's/^# vm: .*(TSC \([0-9][0-9]*\) kHz).*/\1/p' <<<"$out")
if [ -n "$khz" ]; then
	out=$(LOCKSTAT_VM_TSC_KHZ=$((2 * khz)) TESTS=t0100 "$dir/run-vm.sh" 2>&1)
	check "a guest clock at half the host's fails the tier, saying so" \
		grep -Eq "^not ok - vm: the guest's clock ran 0\.[45][0-9]x the host's" <<<"$out" ||
		echo "$out" | tail -n 5 | sed 's/^/# /'
else
	echo "# hang-evidence: the host's TSC rate is unknown here: the clock check is not tried"
fi
echo "hang-evidence: $pass passed, $fail failed"
[ "$fail" = 0 ]
