#!/bin/bash
# mmap/munmap and page faults in threads of one process contend on the
# mm's mmap_lock, an rwsem, for read and for write.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" record -q -o mm.data -- "$WL/mmapstorm" -t 2 -d 2 -q >/dev/null
"$LOCKSTAT" report -i mm.data -f json >mm.json
lock='.locks[] | select(.name == "mm_struct.mmap_lock")'
check "mm_struct.mmap_lock is contended" jqe "[$lock | .contended] | add > 0" mm.json
check "its types are rwsem:R / rwsem:W" jqe "[$lock | .type] | length > 0 and all(test(\"^rwsem:[RW]$\"))" mm.json
check "both read and write waits are seen" jqe "[$lock | .type] | (index(\"rwsem:R\") != null) and (index(\"rwsem:W\") != null)" mm.json
"$LOCKSTAT" report -i mm.data --type rwsem:W -f json >w.json
check "--type rwsem:W keeps only write waits" jqe '[.locks[].type] | length > 0 and all(. == "rwsem:W")' w.json
"$LOCKSTAT" report -i mm.data --lock 'mm_struct.*' -f json >f.json
check "--lock glob keeps only mmap_lock" jqe '[.locks[].name] | length > 0 and all(. == "mm_struct.mmap_lock")' f.json

# Hold times from the mmap_lock tracepoints (the mmap_lock family).
if jqe '.meta.probes.mmap_lock | test("tp_btf")' mm.json; then
	check "mmap_lock acquisitions >= contended, both modes" jqe "[$lock | .acquired >= .contended and .acquired > 0] | length == 2 and all" mm.json
	check "hold avg <= hold max, UTIL% in [0, 100] for the write side" \
		jqe "[$lock | select(.type == \"rwsem:W\") | .hold_avg_ns <= .hold_max_ns and .util_pct >= 0 and .util_pct <= 100] | all" mm.json
	check "CON% = contended / acquired" jqe "[$lock | ((.con_pct - 100 * .contended / .acquired) | fabs) < 0.01] | all" mm.json
	"$LOCKSTAT" report -i mm.data --view tables --table mmap_lock -f csv >t.csv
	check "the raw mmap_lock table sums to the view's acquisitions" \
		test "$(awk -F, 'NR > 1 { n += $5 } END { print n }' t.csv)" = "$(jq "[$lock | .acquired] | add" mm.json)"
	"$LOCKSTAT" record -q -e sample -o s.data -- true
	"$LOCKSTAT" report -i s.data -f json >s.json
	check "without locks no hold columns are claimed" jqe '.total | has("acquired") | not' s.json
else
	echo "# skipping the hold checks: no BTF-typed mmap_lock tracepoints here"
fi
done_testing
