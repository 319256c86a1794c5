#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Lock names that need no slab lookup: every CPU's run queue (found through
# the task group, where the per-CPU runqueues symbol does not resolve
# without CONFIG_KALLSYMS_ALL), zone.lock (its self-check on two real
# zones and two other addresses), and the anonymous locks, named by the
# function with the most waits over the whole recording, not the first.
# Static locks: never 0xffffffff...@function where a name source exists
# (System.map, a debug vmlinux, or vmlinux+0xOFFSET), the System.map path
# through a map made from this kernel's kallsyms with a KASLR offset, and a
# map of another build refused; locks on a task's stack are [stack]@function.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

# ksym NAME: a core text symbol's address in kallsyms (hex, no 0x).
ksym() { awk -v n="$1" '$3 == n && NF == 3 { print $1; exit }' /proc/kallsyms; }

# A System.map of this kernel as linked SHIFT lower (a KASLR offset of
# SHIFT), its text symbols from kallsyms, and one data symbol NAME over
# [_text + FROM, _text + TO): map_of SHIFT FROM TO NAME [DO_EXIT_SHIFT].
map_of() {
	local shift=$1 from=$2 to=$3 name=$4 skew=${5:-0} text addr type sym
	text=$((0x$(ksym _text)))
	while read -r addr type sym; do
		[ "$sym" = do_exit ] && addr=$(printf '%x' $((0x$addr - skew)))
		printf '%016x %s %s\n' $((0x$addr - shift)) "$type" "$sym"
	done < <(awk 'NF == 3 && $2 ~ /^[Tt]$/ &&
		$3 ~ /^(_text|_stext|_etext|start_kernel|__schedule|vfs_read|schedule|do_exit)$/' /proc/kallsyms)
	printf '%016x D %s\n' $((text - shift + from)) "$name"
	printf '%016x D lockstat_test_after\n' $((text - shift + to))
}

# in_range FROM TO < names: how many vmlinux+0xOFF names lie in [FROM, TO).
in_range() {
	local n=0 name o
	while read -r name; do
		o=$((${name#vmlinux+}))
		[ "$o" -ge "$1" ] && [ "$o" -lt "$2" ] && n=$((n + 1))
	done < <(grep -E '^vmlinux\+0x[0-9a-f]+$')
	echo "$n"
}

static_checks() {
	local names first last region
	if ! command -v dbench >/dev/null 2>&1; then
		skip_check DBENCH "dbench's static locks are named" "dbench is not installed"
		return
	fi
	mkdir -p db1 db2
	"$LOCKSTAT" record -q -e locks -o db.data -- dbench -D db1 -t 3 4 >db.out 2>db.err
	check "record dbench exits 0" test $? = 0 || tail -n 5 db.err
	"$LOCKSTAT" report -i db.data -f json | jq -r '.locks[].name' >db.names
	echo "# dbench: $(wc -l <db.names) locks; $(grep -c '^vmlinux+0x' db.names) vmlinux+0x, $(grep -c '^\[stack\]' db.names) [stack]"
	check "no static lock is left 0xffffffff...@function" \
		test "$(grep -Ec '^0xffffffff[0-9a-f]+(@|$)' db.names)" = 0 || grep -E '^0xffffffff' db.names
	check "every on-stack lock is [stack]@function, no address" \
		test "$(grep -Ec '^0xffffc9' db.names)" = 0 || grep '^0xffffc9' db.names
	check "no heap lock is called vmlinux+ (offsets below 1 GiB)" \
		test "$(in_range $((1 << 30)) $((1 << 62)) <db.names)" = 0
	names=$(grep -E '^vmlinux\+0x' db.names | sed 's/^vmlinux+//' | sort -u)
	if [ -z "$names" ]; then
		skip_check CONCURRENCY "System.map names what was vmlinux+0x" "no static lock contended in this run"
		return
	fi
	# One symbol over the lowest offsets seen, a page either side and within
	# the 64 KiB a data symbol names, as a System.map moved by 2 MiB.
	first=$(for o in $names; do echo $((o)); done | sort -n | head -n 1)
	last=$(for o in $names; do echo $((o)); done | sort -n | awk -v f="$first" '$1 < f + 32768' | tail -n 1)
	map_of $((0x200000)) $((first - 4096)) $((last + 4096)) lockstat_test_region >test.map
	LOCKSTAT_SYSTEM_MAP=$PWD/test.map "$LOCKSTAT" record -q -e locks -o db2.data -- dbench -D db2 -t 3 4 >db2.out 2>db2.err
	check "record dbench with a System.map exits 0" test $? = 0 || tail -n 5 db2.err
	"$LOCKSTAT" report -i db2.data >db2.txt
	check "the header says the System.map and its KASLR offset" \
		grep -q "static locks: $PWD/test.map (KASLR offset 0x200000)" db2.txt || grep '^# lock names' db2.txt
	"$LOCKSTAT" report -i db2.data -f json | jq -r '.locks[].name' >db2.names
	region=$(in_range $((first - 4096)) $((last + 4096)) <db2.names)
	check "no lock inside the map's symbol is still vmlinux+0x ($region)" test "$region" = 0
	if grep -q '^lockstat_test_region' db2.names; then
		check "the symbol's locks are lockstat_test_region+0xOFF" \
			test "$(grep -c '^lockstat_test_region+0x[0-9a-f]*$' db2.names)" = "$(grep -c '^lockstat_test_region' db2.names)"
	else
		skip_check CONCURRENCY "the symbol's locks are lockstat_test_region+0xOFF" "no lock there was contended again"
	fi
	# Another build: its do_exit is elsewhere; the map is refused and said so.
	map_of $((0x200000)) 0 4096 lockstat_test_region 4096 >other.map
	LOCKSTAT_SYSTEM_MAP=$PWD/other.map "$LOCKSTAT" record -q -e locks -o other.data -- true 2>other.err
	"$LOCKSTAT" report -i other.data >other.txt
	check "a System.map of another build is refused" \
		grep -q "static locks: no data symbols, vmlinux+0xOFFSET: $PWD/other.map: another build" other.txt
	elf_checks
}

# A vmlinux with symbols, 2 MiB lower as linked: its text symbols absolute,
# a data object where the dbench locks were; read through libelf.
elf_checks() {
	local text shift=$((0x200000)) defs="" s a
	text=$((0x$(ksym _text)))
	for s in _text _stext start_kernel __schedule do_exit vfs_read; do
		a=$(ksym "$s")
		[ -n "$a" ] && defs+=" -Wl,--defsym,$s=$(printf '0x%x' $((0x$a - shift)))"
	done
	printf 'int lockstat_test_region[1024] = { 1 };\nvoid _start(void) { for (;;); }\n' >v.c
	# shellcheck disable=SC2086
	check "a vmlinux with symbols links (gcc, ld)" \
		gcc -O0 -nostdlib -static -no-pie -fno-pic -o v.elf v.c $defs \
		-Wl,-Ttext="$(printf '0x%x' $((text - shift + 0x1000)))" \
		-Wl,--section-start=.data="$(printf '0x%x' $((text - shift + first)))" || return
	LOCKSTAT_SYSTEM_MAP=$PWD/v.elf "$LOCKSTAT" probe >probe-elf.txt 2>&1
	check "probe: a vmlinux's ELF symbols serve, at the KASLR offset 0x200000" \
		grep -Eq "^static locks +yes +$PWD/v.elf \(KASLR offset 0x200000\)" probe-elf.txt ||
		grep '^static locks' probe-elf.txt
}

# CPUs the kernel may bring up: "0-1", "0,2-3" in /sys/devices/system/cpu/possible.
possible=$(tr ',' '\n' </sys/devices/system/cpu/possible |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
"$LOCKSTAT" probe >probe.txt 2>probe.err
check "probe: rq.__lock of all $possible possible CPUs" \
	grep -Eq "^rq\.__lock +yes +rq\.__lock \($possible of $possible CPUs" probe.txt
check "probe: zone.lock, its self-check told 2 zones from 2 other addresses" \
	grep -Eq '^zone\.lock +yes +.*self-check: 2 zones told from 2 other addresses' probe.txt

# 4 threads on a mutex (onefile's shared f_pos_lock) sleep and wake all
# the time: the run queues' locks are contended, and named rq.something.
"$LOCKSTAT" record -q -e locks -o rq.data -- "$WL/onefile" --mode pos -t 4 -d 2 >rq.out 2>rec.err
check "record onefile exits 0" test $? = 0
echo "# onefile: $(tail -n 1 rq.out)"
"$LOCKSTAT" report -i rq.data -f json >rq.json
rq_waits=$(jq -r '[.locks[] | select(.name | startswith("rq.")) | .contended] | add' rq.json)
what="the run queues' waits are under rq.* names ($rq_waits waits)"
if [ "$rq_waits" != null ] || overlapped_in rq.out; then
	check "$what" jqe '[.locks[] | select(.name | startswith("rq.")) | .contended] | add > 0' rq.json
else
	concurrency_skip "$what"
fi
check "no lock waited on from __schedule is left anonymous" \
	jqe '[.locks[] | select(.name | test("^0x[0-9a-f]+@__schedule$"))] | length == 0' rq.json
check "no name has a caller in brackets ([stack not sampled] is no function)" \
	jqe '[.locks[] | select(.name | test("@\\["))] | length == 0' rq.json
check "the header says what the recording could name" \
	sh -c "'$LOCKSTAT' report -i rq.data | grep -Eq '^# lock names: rq\.__lock \($possible of $possible CPUs'"
check "the header says where static locks' names come from" \
	sh -c "'$LOCKSTAT' report -i rq.data | grep -Eq '^# lock names: .*; static locks: '"

# Threads faulting side by side share page tables: their split page-table
# lock, inside a struct page in the vmemmap, is ptdesc.ptl (page.ptl before 6.6).
"$LOCKSTAT" record -q -e locks -o pt.data -- "$WL/mmapstorm" -t 2 -d 2 >pt.out 2>pt.err
check "record mmapstorm exits 0" test $? = 0 || tail -n 5 pt.err
"$LOCKSTAT" report -i pt.data -f json | jq -r '.locks[].name' >pt.names
if grep -Eq '^page-table locks +yes' probe.txt; then
	check "no lock in the vmemmap is left 0xffffea...@function" test "$(grep -c '^0xffffea' pt.names)" = 0 ||
		grep '^0xffffea' pt.names
	if grep -Eq '^(ptdesc|page)\.ptl$' pt.names; then
		ok "the page-table lock is named $(grep -Em1 '^(ptdesc|page)\.ptl$' pt.names)"
	else
		skip_check CONCURRENCY "the page-table lock is named ptdesc.ptl" "no page-table lock was contended"
	fi
else
	skip_check VMEMMAP "the page-table lock is named ptdesc.ptl" "$(grep '^page-table locks' probe.txt)"
fi

static_checks
done_testing
