#!/bin/sh
# Lock names on Debian's 6.1 kernel, which has no bpf_get_kmem_cache()
# (Linux 6.13+): the contention probes still load (their call to it is
# dead code there), record and report say once that slab fields are
# missing, the run queues are still rq.__lock (found through the task
# group, not the per-CPU symbol), and the locks left are named by address
# and busiest caller, never by a slab cache.
# Static locks both ways: kallsyms lists data symbols there
# (CONFIG_KALLSYMS_ALL), and with them ignored a System.map names them (the
# package's, which run-vm.sh puts in the guest's /boot, is Debian's stub).
# Page-table locks: the vmemmap from /proc/kcore, page.ptl on 6.1.
. "$(dirname "$0")/lib.sh"
require_feature tp_btf:lock

"$LOCKSTAT" probe >probe.txt 2>&1
check "probe: no slab fields, and why" \
	grep -Eq '^slab fields +no +no slab fields: this kernel has no bpf_get_kmem_cache\(\) \(Linux 6\.13\+\)' probe.txt ||
	show probe.txt
cpus=$(grep -c '^processor' /proc/cpuinfo)
check "probe: rq.__lock of every CPU ($cpus)" \
	grep -Eq "^rq\.__lock +yes +rq\.__lock \($cpus of [0-9]+ CPUs" probe.txt || show probe.txt
check "probe: zone.lock, its self-check passed" grep -Eq "^zone\.lock +yes +zone\.lock .*self-check: 2 zones told from 2 other addresses" probe.txt || show probe.txt
check "probe: no self-check without the kfunc" test "$(grep -c '^slab self-check' probe.txt)" = 0

# 3 threads on 3 CPUs: file_lock contention, and the scheduler's run queues.
"$LOCKSTAT" record -e locks -o n.data -- "$WL/fdstorm" -t 3 -d 2 -q >wl.out 2>rec.err
check "record exits 0" test $? = 0 || show rec.err
"$LOCKSTAT" report -i n.data >n.txt
check "report: the contention probes loaded (tp_btf)" grep -q '^# probes: contention=tp_btf' n.txt || show rec.err
check "report: one header line says slab fields are missing and why" \
	test "$(grep -c '^# lock names: .*no slab fields: this kernel has no bpf_get_kmem_cache() (Linux 6.13+)' n.txt)" = 1 ||
	show n.txt
"$LOCKSTAT" report -i n.data -f csv >n.csv
csv_col n.csv lock "" lock | sort -u >names.txt
check "files_struct.file_lock is named ($(tr '\n' ' ' <names.txt))" grep -qx 'files_struct.file_lock' names.txt
check "no name from a slab cache without the kfunc" test "$(grep -c '^&' names.txt)" = 0
check "no run-queue lock left anonymous (named by a scheduler function)" \
	test "$(grep -Ec '^0x[0-9a-f]+@(__schedule|try_to_wake_up|sched_tick|raw_spin_rq_lock_nested|_raw_spin_rq_lock)' names.txt)" = 0 ||
	show names.txt
check "every anonymous lock is 0xADDRESS or 0xADDRESS@function, never @[...]" \
	test "$(grep '^0x' names.txt | grep -Evc '^0x[0-9a-f]+(@[A-Za-z_][A-Za-z0-9_.]*)?$')" = 0 || show names.txt
check "no static lock is left 0xffffffff...: kallsyms names them" \
	test "$(grep -c '^0xffffffff' names.txt)" = 0 || show names.txt

check "probe: static locks from kallsyms' data symbols" \
	grep -Eq '^static locks +yes +kallsyms \([0-9]+ data symbols\)' probe.txt || show probe.txt
check "probe: page-table locks, the vmemmap from /proc/kcore" \
	grep -Eq '^page-table locks +yes +(ptdesc|page)\.ptl \(vmemmap from /proc/kcore\)' probe.txt || show probe.txt

# Debian's /boot/System.map is a one-line stub (the symbols are in the
# -dbg package's debug vmlinux): with kallsyms' data symbols ignored, say
# so, and name static locks vmlinux+0xOFFSET.
map=/boot/System.map-$(uname -r)
if grep -q 'The real System.map' "$map" 2>/dev/null; then
	LOCKSTAT_NO_KALLSYMS_DATA=1 "$LOCKSTAT" probe >probe-stub.txt 2>&1
	check "probe: Debian's stub System.map is said to be one" \
		grep -Eq "^static locks +no +no data symbols, vmlinux\+0xOFFSET: $map: a stub without kernel symbols" probe-stub.txt ||
		show probe-stub.txt
else
	echo "# $map is not Debian's stub: $(head -c 80 "$map" 2>&1)"
fi

# A System.map of this build: kallsyms' core lines (the KASLR offset 0).
grep -v '\[' /proc/kallsyms >k.map
LOCKSTAT_SYSTEM_MAP=$PWD/k.map LOCKSTAT_NO_KALLSYMS_DATA=1 "$LOCKSTAT" probe >probe-map.txt 2>&1
check "probe: kallsyms' data ignored, a System.map of this build serves" \
	grep -Eq "^static locks +yes +$PWD/k.map \(KASLR offset 0x0\)" probe-map.txt || show probe-map.txt
LOCKSTAT_SYSTEM_MAP=$PWD/k.map LOCKSTAT_NO_KALLSYMS_DATA=1 \
	"$LOCKSTAT" record -e locks -o m.data -- "$WL/mmapstorm" -t 3 -d 2 -q >wl-m.out 2>rec-m.err
check "record through the System.map exits 0" test $? = 0 || show rec-m.err
"$LOCKSTAT" report -i m.data >m.txt
check "report: the header says the System.map" grep -q "^# lock names: .*static locks: $PWD/k.map (KASLR offset 0x0)" m.txt ||
	show m.txt
"$LOCKSTAT" report -i m.data -f csv >m.csv
csv_col m.csv lock "" lock | sort -u >names-m.txt
echo "# through the System.map: $(tr '\n' ' ' <names-m.txt)"
check "no static lock is 0xffffffff... or vmlinux+0x...: the System.map names them" \
	test "$(grep -Ec '^(0xffffffff|vmlinux\+)' names-m.txt)" = 0 || show names-m.txt
done_testing
