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
# Environment: VCPU_STACKS_PEEK=REGEX: also the first 5 bytes of the text
# of each function whose name matches (an ftrace site: a 5-byte nop, a
# call, or an int3 while the kernel patches it), as memory has them.
set -u -o pipefail
pipe=$1
syms=${2:-}
words=${LOCKSTAT_VM_STACK_WORDS:-128}

command -v gdb >/dev/null || { echo "# vcpu-stacks: no gdb here (apt-get install gdb)"; exit 1; }
# Per vCPU: its registers and the instruction there, then its stack, a
# page at a time up to 16 KiB (a task's stack; an interrupt or exception
# stack may be shorter, and a read past its end fails alone). Each its own
# "thread apply": gdb drops a thread's whole output when a command fails.
peek=()
if [ -n "${VCPU_STACKS_PEEK:-}" ] && [ -s "$syms" ]; then
	while read -r a n; do
		peek+=(-ex "echo text $n:\\n" -ex "x/5xb 0x$a")
	done < <(awk -v re="$VCPU_STACKS_PEEK" '$2 ~ /^[tT]$/ && $3 ~ re { print $1, $3 }' "$syms")
fi
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<GDB
define stackpage
	set \$p = ((unsigned long)\$rsp & ~0xfffUL) + \$arg0 * 4096
	set \$s = \$arg0 == 0 ? (unsigned long)\$rsp : \$p
	eval "x/%dgx %lu", (\$p + 4096 - \$s) / 8, \$s
end
GDB
raw=$(timeout 60 gdb -batch -nx -ex 'set pagination off' -ex 'set confirm off' \
	-ex "target remote | cat '$pipe.out' & exec cat >'$pipe.in'" -ex "source $script" \
	-ex 'thread apply all -c info registers rip rsp eflags' -ex 'thread apply all -c x/2i $rip' \
	-ex 'thread apply all -c stackpage 0' -ex 'thread apply all -c stackpage 1' \
	-ex 'thread apply all -c stackpage 2' -ex 'thread apply all -c stackpage 3' "${peek[@]}" -ex detach 2>&1) ||
	{ echo "# vcpu-stacks: gdb failed:"; tail -n 5 <<<"$raw" | sed 's/^/#   /'; exit 1; }
[ -n "${VCPU_STACKS_RAW:-}" ] && printf '%s\n' "$raw" >"$VCPU_STACKS_RAW"

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

# Per thread (= vCPU), in the order gdb first names them: its registers,
# the instruction at rip, then its stack's kernel addresses.
parsed=$(awk '
function cpu_of(line) { sub(/^Thread [0-9]+ \(Thread [0-9.]+ \(/, "", line); sub(/\)+:$/, "", line); return line }
/^Thread [0-9]+ \(.*\):$/ { c = cpu_of($0); if (!(c in seen)) { seen[c] = 1; order[++n] = c }; next }
/^text [^ ]+:$/ { t = $2; next }
/^0x[0-9a-f]+:/ && t != "" { $1 = ""; text = text "text " t $0 "\n"; t = ""; next }
c == "" { next }
/^(rip|rsp|eflags) / { out[c] = out[c] "reg " $1 " " $2 " " $3 " " $4 " " $5 " " $6 " " $7 " " $8 "\n"; next }
/^=> / { sub(/^=> /, ""); out[c] = out[c] "insn " $0 "\n"; next }
/^0x[0-9a-f]+:/ { for (i = 2; i <= NF; i++) if ($i ~ /^0xffffffff[89a-f][0-9a-f]+$/) out[c] = out[c] "addr " $i "\n"; next }
/^Cannot access memory/ { out[c] = out[c] "note " $0 "\n" }
END { for (i = 1; i <= n; i++) printf "cpu %s\n%s", order[i], out[order[i]]; printf "%s", text }
' <<<"$raw")
declare -A name
while read -r a n; do
	name[$a]=$n
done < <(awk '$1 == "addr" { print $2 } $1 == "reg" && $2 == "rip" { print $3 }' <<<"$parsed" | sort -u | symbolize)
while read -r kind a rest; do
	case $kind in
	cpu) echo "# vCPU $a $rest" ;;
	reg) if [ "$a" = rip ]; then echo "#   rip ${name[${rest%% *}]:-$rest}"; else echo "#   $a $rest"; fi ;;
	insn) echo "#   at rip: $a $rest" ;;
	addr) [ "${name[$a]:-$a}" != "$a" ] && echo "#     ? ${name[$a]}" ;;
	note) echo "#   (stack: $a $rest)" ;;
	text) echo "# text of $a $rest" ;;
	esac
done <<<"$parsed"
