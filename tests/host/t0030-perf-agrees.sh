#!/bin/bash
# The contended count agrees with perf lock record + perf lock contention
# on the very same run (both watch the same tracepoints).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq; require_cmd perf
mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
# perf's own ability, tried without lockstat: only that is a prerequisite.
perf lock record -o probe.data -- true >/dev/null 2>probe.err ||
	skip_all "PERF: perf lock record does not work here: $(tail -n 1 probe.err)"

# perf_run MBUF: perf lock record around lockstat record around fdstorm.
perf_run() {
	perf lock record -m "$1" -o perf.data -- "$LOCKSTAT" record -q -o ls.data -- "$WL/fdstorm" -t 2 -d 2 2>perf.err
}
run_overlapped fd.out perf_run 1024
rc=$?
check "perf lock record of lockstat record of fdstorm exits 0 ($rc)" test $rc = 0 || tail -n 3 perf.err
# A full ring buffer drops perf's records, not ours: once more with a
# bigger one. What perf still lost bounds how far below ours it may be.
if grep -q 'lost' perf.err; then
	echo "# perf: $(grep lost perf.err | head -n 1): again with -m 8192"
	run_overlapped fd.out perf_run 8192
fi
lost=$(sed -n 's/.*lost \([0-9]*\) .*/\1/p' perf.err | awk '{ s += $1 } END { print s + 0 }')
# perf -t: one row per task; lockstat only records its own workload.
# (perf lock contention prints its table on stderr.)
perf lock contention -i perf.data -t -E 100000 2>&1 |
	awk '$1 ~ /^[0-9]+$/ && $NF != "lockstat" && $NF != "perf" { s += $1 } END { print s + 0 }' >perf.count
perf_n=$(cat perf.count)
ours=$("$LOCKSTAT" report -i ls.data -f json | jq .total.contended)
echo "# perf: $perf_n (lost records: $lost), lockstat: $ours; $(tail -n 1 fd.out)"
if [ "$overlapped" = 1 ]; then
	check "perf saw contention ($perf_n)" test "$perf_n" -gt 1000
else
	concurrency_skip "perf saw contention ($perf_n)"
fi
check "lockstat's contended total ($ours) is within 5 % of perf's ($perf_n, + $lost records perf lost)" \
	awk -v o="${ours:-x}" -v p="$perf_n" -v l="$lost" 'BEGIN { exit !(o ~ /^[0-9]+$/ && o >= 0.95 * p && o <= 1.05 * (p + l)) }'
done_testing
