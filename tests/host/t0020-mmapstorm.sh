#!/bin/bash
# mmap/munmap and page faults in threads of one process contend on the
# mm's mmap_lock, an rwsem, for read and for write.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

run_overlapped mm.out "$LOCKSTAT" record -q -o mm.data -- "$WL/mmapstorm" -t 2 -d 2
check "record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i mm.data -f json >mm.json
# Sorted by acquisitions, every caller that only held the lock is a row
# of its own (by waits, they are one "[holds only: N callers]" row).
"$LOCKSTAT" report -i mm.data -f json --sort acquired >mmh.json
ops=$(field ops mm.out)
lock='.locks[] | select(.name == "mm_struct.mmap_lock")'
if [ "$overlapped" = 1 ]; then
	check "mm_struct.mmap_lock is contended" jqe "[$lock | .contended] | add > 0" mm.json
	check "both read and write waits are seen" \
		jqe "[$lock | select(.contended > 0) | .type] | (index(\"rwsem:R\") != null) and (index(\"rwsem:W\") != null)" mm.json
else
	concurrency_skip "mm_struct.mmap_lock is contended, for read and for write"
fi
check "its types are rwsem:R / rwsem:W" jqe "[$lock | .type] | length > 0 and all(test(\"^rwsem:[RW]$\"))" mm.json
"$LOCKSTAT" report -i mm.data --type rwsem:W -f json >w.json
check "--type rwsem:W keeps only write waits" jqe '[.locks[].type] | length > 0 and all(. == "rwsem:W")' w.json
"$LOCKSTAT" report -i mm.data --lock 'mm_struct.*' -f json >f.json
# The slab path names mm_struct's other locks by field too: the rwsem's
# own mm_struct.mmap_lock.wait_lock matches the glob as well.
check "--lock glob keeps only mm_struct's locks, mmap_lock among them" \
	jqe '[.locks[].name] | any(. == "mm_struct.mmap_lock") and all(startswith("mm_struct."))' f.json

# Hold times from the mmap_lock tracepoints (the mmap_lock family), which
# lockstat attaches as tp_btf wherever the kernel has them and BTF.
if has_tracepoint mmap_lock mmap_lock_start_locking mmap_lock_acquire_returned mmap_lock_released; then
	check "the mmap_lock family attached, as tp_btf" jqe '.meta.probes.mmap_lock | test("tp_btf")' mm.json
	check "mmap_lock acquisitions >= contended, both modes" jqe "[$lock | .acquired >= .contended and .acquired > 0] | length == 2 and all" mm.json
	check "hold avg <= hold max, UTIL% in [0, 100] for the write side" \
		jqe "[$lock | select(.type == \"rwsem:W\") | .hold_avg_ns <= .hold_max_ns and .util_pct >= 0 and .util_pct <= 100] | length == 1 and all" mm.json
	# Each op maps and unmaps: two write acquisitions; exec and thread start a few dozen more.
	w=$(jq "[$lock | select(.type == \"rwsem:W\") | .acquired] | add // 0" mm.json)
	check "write acquisitions are mmapstorm's two an op ($w for $ops ops: 2 x ops .. 2 x ops + 200)" \
		test "$w" -ge $((2 * ${ops:-0})) -a "$w" -le $((2 * ${ops:-0} + 200))
	"$LOCKSTAT" report -i mm.data --view tables --table mmap_lock -f csv >t.csv
	check "the raw mmap_lock table sums to the view's acquisitions" \
		test "$(csv_sum t.csv acquired)" = "$(jq "[$lock | .acquired] | add" mm.json)"
	# Stacks are sampled (--stack-rate): the rows without one count in
	# the lock's figures only, and its callers' are their shares of them.
	check "some acquisitions carried no stack, some did ($(csv_count t.csv shift 65535) rows without)" \
		test "$(csv_count t.csv shift 65535)" -gt 0 -a "$(awk 'END { print NR }' t.csv)" -gt 2
	check "no caller stands for the acquisitions without a stack" \
		jqe "[$lock | .callers[] | select(.symbol | startswith(\"[\"))] | length == 0" mmh.json
	check "by waits, the callers that only held it are one row a lock" \
		jqe "[$lock | [.callers[] | select(.contended == 0)] | length <= 1] | all" mm.json
	check "the callers' acquisitions are marked estimates" jqe "[$lock | .callers | all(.estimated)] | length == 2 and all" mm.json
	check "the report says how many acquisitions carried a stack" \
		grep -q "estimated from the [0-9]* of [0-9]* mmap_lock acquisitions that carried a stack" \
		<("$LOCKSTAT" report -i mm.data --lock 'mm_struct.mmap_lock')
	# Each estimated caller has its 95 % intervals: around its estimate,
	# no lower than what its stacks saw, no higher than the lock's figure;
	# its hold average within its hold max.
	check "every caller with estimated holds has intervals that hold its estimates" \
		jqe "[$lock | .acquired as \$a | .hold_total_ns as \$h | .callers[] | select(.acquired_sampled != null) |
			.acquired_ci95[0] <= .acquired and .acquired <= .acquired_ci95[1] and
			.acquired_ci95[0] >= .acquired_sampled and .acquired_ci95[1] <= \$a and
			.hold_total_ci95_ns[0] <= .hold_total_ns and .hold_total_ns <= .hold_total_ci95_ns[1] and
			.hold_total_ci95_ns[1] <= \$h and .hold_avg_ns <= .hold_max_ns] | length > 0 and all" mmh.json
	"$LOCKSTAT" report -i mm.data -f csv >mm.csv
	check "CSV has the intervals' columns, then max_wait_check, last" \
		grep -q ',acquired_sampled,acquired_ci95_lo,acquired_ci95_hi,hold_total_ci95_lo_ns,hold_total_ci95_hi_ns,max_wait_check$' mm.csv
	# --stack-rate 0: every acquisition has its stack, every caller is exact.
	"$LOCKSTAT" record -q --stack-rate 0 -o all.data -- "$WL/mmapstorm" -t 2 -d 1 >all.out
	"$LOCKSTAT" report -i all.data -f json --sort acquired >all.json
	"$LOCKSTAT" report -i all.data --view tables --table mmap_lock -f csv >all.csv
	check "--stack-rate 0: a stack for every acquisition" test "$(csv_count all.csv shift 0)" = "$(awk 'END { print NR - 1 }' all.csv)"
	check "--stack-rate 0: no caller is an estimate" jqe "[$lock | .callers | all(.estimated | not)] | length == 2 and all" all.json
	check "--stack-rate 0: ... and none has an interval" \
		jqe "[$lock | .callers[] | .acquired_ci95] | length > 0 and all(. == null)" all.json
	# Each op maps once and unmaps once: the two busiest write callers
	# (vm_mmap_pgoff, vm_munmap) have one acquisition an op each.
	ops=$(field ops all.out)
	two=$(jq -c "[$lock | select(.type == \"rwsem:W\") | .callers[].acquired] | sort | reverse | .[:2]" all.json)
	check "--stack-rate 0: the two busiest write callers have one acquisition per mmapstorm op ($two for $ops ops)" \
		jqe --argjson ops "${ops:-0}" '$ops > 0 and length == 2 and all(. >= $ops and . <= $ops + 100)' <(echo "$two")
	"$LOCKSTAT" record -q -e sample -o s.data -- true
	"$LOCKSTAT" report -i s.data -f json >s.json
	check "without locks no hold columns are claimed" jqe '.total | has("acquired") | not' s.json
else
	skip_check TRACEPOINT "acquisitions and hold times of mmap_lock" "no mmap_lock tracepoints in this kernel's tracefs"
fi
done_testing
