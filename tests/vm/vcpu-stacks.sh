#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What each vCPU of a running VM-tier guest is doing, through QEMU's gdb
# stub: its instruction pointer, flags (IF: interrupts on) and the kernel
# addresses found on its stack, symbolized with the guest's kallsyms. A
# scan, not an unwind (the cloud kernel's debug info is not at hand): read
# it as the kernel's own "? func" lines, newest first.
#
# Usage: vcpu-stacks.sh PIPE [SYMS]
#   PIPE  QEMU's -chardev pipe,id=gdb,path=PIPE -gdb chardev:gdb (the
#         FIFOs PIPE.in and PIPE.out)
#   SYMS  "address type name" lines as /proc/kallsyms has them (the guest
#         boots with nokaslr); without it the addresses stay raw
set -u -o pipefail
pipe=$1
syms=${2:-}
words=${LOCKSTAT_VM_STACK_WORDS:-128}

command -v gdb >/dev/null || { echo "# vcpu-stacks: no gdb here (apt-get install gdb)"; exit 1; }
# Per vCPU: its registers, then its stack up to the top (kernel stacks
# are 16 KiB and aligned: the guard page beyond would end the read).
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<GDB
define vcpu
	info registers rip rsp eflags
	set \$n = ((unsigned long)\$rsp | 0x3fff) + 1 - (unsigned long)\$rsp
	set \$n = \$n / 8 > $words ? $words : \$n / 8
	eval "x/%dgx \$rsp", \$n
end
GDB
raw=$(timeout 60 gdb -batch -nx -ex 'set pagination off' -ex 'set confirm off' \
	-ex "target remote | cat '$pipe.out' & exec cat >'$pipe.in'" \
	-ex "source $script" -ex 'thread apply all -c vcpu' -ex detach 2>&1) ||
	{ echo "# vcpu-stacks: gdb failed:"; tail -n 5 <<<"$raw" | sed 's/^/#   /'; exit 1; }

# The addresses on stdin, as "ADDR name+0xoff" where SYMS has them.
# Sixteen hex digits compare as strings; offsets use the low 32 bits,
# which awk holds exactly.
symbolize() {
	if [ -z "$syms" ] || [ ! -s "$syms" ]; then
		awk '{ print $1, $1 }'
		return
	fi
	{
		awk '$2 ~ /^[tTwW]$/ { print $1, "S", $3 $4 }' "$syms"
		while read -r a; do printf '%016x Q %s\n' "$((a))" "$a"; done
	} | LC_ALL=C sort -k1,1 -k2,2r | awk '
	function lo(h,   i, n) {
		h = substr(h, 9)
		for (i = 1; i <= 8; i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return n
	}
	$2 == "S" { s = $3; sa = $1; next }
	s == "" || substr($1, 1, 8) != substr(sa, 1, 8) || lo($1) - lo(sa) > 65536 { print $3, $3; next }
	{ printf "%s %s+0x%x\n", $3, s, lo($1) - lo(sa) }'
}

# Per thread (= vCPU): its registers, then its stack's kernel addresses.
parsed=$(awk '
/^Thread [0-9]+ \(.*\):$/ { sub(/^Thread [0-9]+ \(Thread [0-9.]+ \(/, ""); sub(/\)+:$/, ""); print "cpu", $0; next }
/^(rip|rsp|eflags) / { print "reg", $1, $2, $3, $4, $5, $6, $7, $8; next }
/^0x[0-9a-f]+:/ { for (i = 2; i <= NF; i++) if ($i ~ /^0xffffffff[89a-f][0-9a-f]+$/) print "addr", $i }
/^Cannot access memory/ { print "note", $0 }
' <<<"$raw")
declare -A name
while read -r a n; do
	name[$a]=$n
done < <(awk '$1 == "addr" { print $2 } $1 == "reg" && $2 == "rip" { print $3 }' <<<"$parsed" | sort -u | symbolize)
while read -r kind a rest; do
	case $kind in
	cpu) echo "# vCPU $a $rest" ;;
	reg) if [ "$a" = rip ]; then echo "#   rip ${name[${rest%% *}]:-$rest}"; else echo "#   $a $rest"; fi ;;
	addr) [ "${name[$a]:-$a}" != "$a" ] && echo "#     ? ${name[$a]#* }" ;;
	note) echo "#   $a $rest" ;;
	esac
done <<<"$parsed"
