#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --user-stack dwarf (lib/record/dwunwind.c): a program built
# -O2 -fomit-frame-pointer, as distributions build theirs, burns CPU
# through nofp_one -> nofp_two -> nofp_three -> nofp_four. The kernel's
# frame-pointer walk cannot find that chain (the first check shows the
# test would fail without dwarf); unwound from the copied stack with
# the CFI, the samples have it whole, in order, down to _start, whether
# they interrupted user mode or a system call. Stacks that could not be
# completed are counted, and the options' bad values are refused.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_perf_event
[ "$(uname -m)" = x86_64 ] || skip_all "X86_64: --user-stack dwarf unwinds x86-64 registers only"

check "nofp builds without frame pointers" build_prog nofp -O2 -fomit-frame-pointer || { done_testing; exit; }
chain='nofp_one;nofp_two;nofp_three;nofp_four'

# shares MODE FILE [GREP]: "whole of all" among the samples in nofp_four (and matching GREP).
shares() {
	"$LOCKSTAT" export -i "$2" -f folded >"$1.folded"
	local all whole
	all=$(grep 'nofp_four' "$1.folded" | grep -e "${3:-.}" | awk '{ n += $NF } END { print n + 0 }')
	whole=$(grep "_start;.*main;$chain" "$1.folded" | grep -e "${3:-.}" | awk '{ n += $NF } END { print n + 0 }')
	echo "$whole $all"
}

"$LOCKSTAT" record -q -e sample -F 999 -o fp.data -- ./nofp 2 >/dev/null
read -r whole all < <(shares fp fp.data)
echo "# fp: $whole of $all samples in nofp_four have the whole chain"
check "fp: the samples are there (>= 100: $all)" test "$all" -ge 100
check "fp: the frame-pointer walk does not find the chain ($whole of $all)" test "$((whole * 10))" -lt "$all"

"$LOCKSTAT" record -v -e sample -F 999 --user-stack dwarf -o dwarf.data -- ./nofp 2 >/dev/null 2>dwarf.err
grep 'user stacks unwound' dwarf.err | sed 's/^/# /'
read -r whole all < <(shares dwarf dwarf.data)
echo "# dwarf: $whole of $all samples in nofp_four have the whole chain"
check "dwarf: the samples are there (>= 100: $all)" test "$all" -ge 100
check "dwarf: _start, main and the four, in order, in >= 98 % ($whole of $all)" \
	test "$((whole * 100))" -ge "$((all * 98))"
"$LOCKSTAT" report -i dwarf.data -f json >dwarf.json
check "dwarf: the profile says how its user stacks were taken ($(jq -r .meta.probes.sample dwarf.json))" \
	jqe '.meta.probes.sample | test(" user-stack=dwarf,8192$")' dwarf.json
incomplete=$(jq '.lost.sample_ustack_incomplete' dwarf.json)
dropped=$(jq '.lost.sample_ustack_dropped' dwarf.json)
check "dwarf: the incomplete stacks are counted, and few ($incomplete of $all)" \
	test "$incomplete" -ge 0 -a "$((incomplete * 50))" -le "$all"
check "dwarf: no sample dropped at -F 999 ($dropped)" test "$dropped" = 0

# In a system call: the registers the task entered the kernel with.
"$LOCKSTAT" record -q -e sample -F 999 --user-stack dwarf -o sys.data -- ./nofp 2 sys >/dev/null
read -r whole all < <(shares sys sys.data 'do_syscall_64')
echo "# dwarf, in the kernel: $whole of $all samples in a system call from nofp_four have the chain"
check "dwarf in the kernel: samples in system calls (>= 50: $all)" test "$all" -ge 50
check "dwarf in the kernel: the chain under the kernel stack in >= 95 % ($whole of $all)" \
	test "$((whole * 100))" -ge "$((all * 95))"

# 64 KiB: more than lies above main's frame; the read falls back to what the stack's mapping holds.
"$LOCKSTAT" record -q -e sample -F 999 --user-stack dwarf --user-stack-size 65536 -o big.data -- ./nofp 1 >/dev/null
read -r whole all < <(shares big big.data)
check "dwarf,65536: the copy stops at the stack's end, the chain whole ($whole of $all)" \
	test "$all" -ge 50 -a "$((whole * 100))" -ge "$((all * 98))"
# 64 bytes: nofp_four's frame at most; the rest is counted as incomplete, never silent.
"$LOCKSTAT" record -q -e sample -F 999 --user-stack dwarf --user-stack-size 64 -o small.data -- ./nofp 1 >/dev/null
read -r whole all < <(shares small small.data)
incomplete=$("$LOCKSTAT" report -i small.data -f json | jq '.lost.sample_ustack_incomplete')
check "dwarf,64: stacks cut short are counted ($incomplete for $all samples, $whole whole)" \
	test "$all" -ge 50 -a "$incomplete" -ge "$((all - whole))"

# Maps too small (-M 64: 64 user stacks) for manystacks' stacks: as with
# fp, a stack that finds its map full is counted without it, the sample kept.
if check "manystacks builds without frame pointers" build_prog manystacks -O2 -fomit-frame-pointer; then
	"$LOCKSTAT" record -v -e sample -F 999 -M 64 --user-stack dwarf -o full.data -- ./manystacks 2 >/dev/null 2>full.err
	unwound=$(sed -n 's/^sample: \([0-9]*\) user stacks unwound.*/\1/p' full.err)
	samples=$(sed -n 's/.*contended acquisitions, \([0-9]*\) samples.*/\1/p' full.err)
	full=$("$LOCKSTAT" report -i full.data -f json | jq '.lost.sample_stacks_full')
	check "dwarf, stacks map full: every unwound sample counted (${unwound:-?} unwound, ${samples:-?} samples, $full without their stack)" \
		test "${unwound:-0}" -ge 100 -a "${samples:-0}" -ge "${unwound:-1}" -a "$full" -gt 0
fi

for bad in "--user-stack frames" "--user-stack-size 100" "--user-stack-size 4" "--user-stack-size 131072" \
	"--user-stack fp --user-stack-size 4096" "-e locks --user-stack dwarf"; do
	# shellcheck disable=SC2086
	"$LOCKSTAT" record -q -o bad.data $bad -- true 2>err; rc=$?
	check "$bad: refused, the reason first (exit $rc: $(head -n 1 err))" \
		sh -c "test $rc = 2 && head -n 1 err | grep -q -- '--user-stack'"
done
done_testing
