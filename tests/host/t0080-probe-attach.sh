#!/bin/bash
# probe tells what the kernel offers; --attach forces a mode, and the
# classic tracepoint fallback records the same thing as tp_btf.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" probe >probe.txt
check "probe lists every feature" sh -c "grep -q '^btf ' probe.txt && grep -q '^fentry ' probe.txt && grep -q '^kprobe ' probe.txt && grep -q '^perf_event ' probe.txt && grep -q '^uprobe ' probe.txt"
check "each 'no' carries a reason" sh -c "! grep -E '^[a-z_:]+ +no *$' probe.txt"
check "probe names the locks family's mode" grep -Eq '^locks +(tp_btf|tracepoint) ' probe.txt
# What probe says against the kernel's own files, read here, not by lockstat.
yes_no() { if "$@"; then echo yes; else echo no; fi; }
said() { awk -v f="$1" '$1 == f { print $2 }' probe.txt; }
kernel_has() {
	case $1 in
	btf) [ -r /sys/kernel/btf/vmlinux ] ;;
	tracepoint:lock) has_tracepoint lock contention_begin ;;
	tracepoint:sched) has_tracepoint sched sched_process_fork ;;
	tracepoint:mmap_lock) has_tracepoint mmap_lock mmap_lock_start_locking ;;
	tracepoint:filemap) has_tracepoint filemap mm_filemap_add_to_page_cache ;;
	tracepoint:syscalls) has_tracepoint raw_syscalls sys_enter ;;
	kprobe) [ -e /sys/bus/event_source/devices/kprobe/type ] || [ -e "$(tracefs_dir)/kprobe_events" ] ;;
	uprobe) has_uprobes ;;
	perf_event) [ -e /proc/sys/kernel/perf_event_paranoid ] ;;
	esac
}
agrees() {
	local f bad=
	for f in btf tracepoint:lock tracepoint:sched tracepoint:mmap_lock tracepoint:filemap tracepoint:syscalls kprobe uprobe perf_event; do
		[ "$(said "$f")" = "$(yes_no kernel_has "$f")" ] || bad+=" $f: probe says '$(said "$f")', the kernel's files $(yes_no kernel_has "$f")"
	done
	[ -z "$bad" ] || { echo "#$bad"; return 1; }
}
check "probe's yes and no are the kernel's (btf, tracepoints, kprobe, uprobe, perf_event)" agrees
families_ok() {
	local f
	for f in sample mmap_lock fd pagecache hold ulocks uprobes; do
		grep -Eq "^$f +[a-z_]+[^ ]* +[^ ]" probe.txt || { echo "no line for $f" >&2; return 1; }
	done
}
check "probe has a line, a mode and a reason for every family" families_ok
# The hold family's mode follows the fentry feature: fentry, or none with the reason.
if grep -Eq '^fentry +yes' probe.txt; then
	check "hold: fentry where fentry loads" grep -Eq '^hold +fentry ' probe.txt
else
	check "hold: none without fentry, and says why" grep -Eq '^hold +none +needs fentry' probe.txt
fi
"$LOCKSTAT" probe -f csv | awk -F, 'NR==1 && $1=="feature" { ok=1 } END { exit !ok }'
check "probe -f csv has a header" test $? = 0

run_overlapped tp.out "$LOCKSTAT" record -q --attach=tracepoint -o tp.data -- "$WL/fdstorm" -t 2 -d 1
check "--attach=tracepoint: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i tp.data -f json >tp.json
check "--attach=tracepoint uses the classic tracepoints" jqe '.meta.probes.contention == "tracepoint"' tp.json
if [ "$overlapped" = 1 ]; then
	check "classic tracepoints see files_struct.file_lock" jqe '[.locks[] | select(.name == "files_struct.file_lock") | .contended] | add > 0' tp.json
	check "classic tracepoints resolve callers" jqe '[.locks[] | select(.name == "files_struct.file_lock") | .callers[].symbol | test("^(alloc_fd|file_close_fd)")] | any' tp.json
else
	concurrency_skip "classic tracepoints see files_struct.file_lock and resolve its callers"
fi

# tp_btf needs BTF and the tracepoint, both checked by require_* above.
"$LOCKSTAT" record -q --attach=tp_btf -o btf.data -- true
check "--attach=tp_btf uses tp_btf" jqe '.meta.probes.contention == "tp_btf"' <("$LOCKSTAT" report -i btf.data -f json)
"$LOCKSTAT" record -q --attach=fentry -e locks -o fe.data -- true 2>err
rc=$?
check "--attach=fentry leaves lock waits on their tracepoints ($rc)" sh -c "test $rc = 0 && $LOCKSTAT report -i fe.data -f json | jq -e '.meta.probes.contention | test(\"tp_btf|tracepoint\")' >/dev/null"
# probe_line MODE FAMILY: the status probe --attach MODE announces, as
# record's META line says it ("not attached: why" for none; fd's fget part).
probe_line() {
	"$LOCKSTAT" probe --attach "$1" 2>/dev/null | awk -v f="$2" '
		$1 == f {
			mode = $2; why = $0; sub(/^[^ ]+ +[^ ]+ +/, "", why)
			i = index(why, "; fget not measured: ")
			print mode == "none" ? "not attached: " why : mode (i ? substr(why, i) : "")
		}'
}
# What record does is what probe said, family by family, under each
# tracepoint mode: fd's fget part included (probe said fentry or kprobe
# for it whatever --attach was).
for mode in auto tp tp_btf tracepoint; do
	"$LOCKSTAT" record -q --attach=$mode -e locks,mmap_lock,fd,pagecache -o m.data -- true 2>m.err
	"$LOCKSTAT" report -i m.data -f json >m.json 2>>m.err
	for f in locks mmap_lock fd pagecache; do
		key=$f
		[ $f = locks ] && key=contention
		want=$(probe_line $mode $f)
		got=$(jq -r ".meta.probes.$key" m.json 2>/dev/null)
		check "--attach=$mode: $f records as probe said (probe: '$want'; record: '$got')" \
			test -n "$want" -a "$want" = "$got"
	done
done
"$LOCKSTAT" record --attach=warp -- true 2>err
check "--attach with an unknown mode: exit 2" test $? = 2
done_testing
