#!/bin/bash
# The contended count agrees with perf lock record + perf lock contention
# on the very same run (both watch the same tracepoints).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq; require_cmd perf
perf lock record -h 2>&1 | grep -q contention || perf version >/dev/null 2>&1 || skip_all "perf lock is not usable"
mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null

perf lock record -m 1024 -o perf.data -- "$LOCKSTAT" record -q -o ls.data -- "$WL/fdstorm" -t 2 -d 2 -q >/dev/null 2>perf.err ||
	skip_all "perf lock record failed: $(tail -n 1 perf.err)"
grep -q 'lost' perf.err && skip_all "perf lost events; no fair comparison: $(grep lost perf.err | head -1)"
# perf -t: one row per task; lockstat only records its own workload.
# (perf lock contention prints its table on stderr.)
perf lock contention -i perf.data -t -E 100000 2>&1 |
	awk '$1 ~ /^[0-9]+$/ && $NF != "lockstat" && $NF != "perf" { s += $1 } END { print s + 0 }' >perf.count
perf_n=$(cat perf.count)
ours=$("$LOCKSTAT" report -i ls.data -f json | jq .total.contended)
echo "# perf: $perf_n, lockstat: $ours"
check "perf saw contention ($perf_n)" test "$perf_n" -gt 1000
diff=$(( ours > perf_n ? ours - perf_n : perf_n - ours ))
check "lockstat's contended total ($ours) is within 5 % of perf's ($perf_n)" test $((diff * 100)) -le $((perf_n * 5))
done_testing
