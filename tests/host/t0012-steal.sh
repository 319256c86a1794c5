#!/bin/bash
# Steal time: what the host took from this machine's CPUs during a
# recording, read from /proc/stat by record, said at the end of record
# and in the report's header, and kept in the profile. The test reads
# /proc/stat itself before and after: the recording's figure lies
# between 0 and what the test saw around it, which a wrong field (the
# 7th, softirq, or the 9th, guest) would not. A spinning lock's max wait
# over 10 ms is marked, and the verdict follows from the recorded bound.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq
[ -r /proc/stat ] || skip_all "PROCSTAT: /proc/stat is not readable"

# The sum of every cpuN line's steal field, in ticks.
steal_ticks() { awk '/^cpu[0-9]/ { n += $9 } END { print n + 0 }' /proc/stat; }

before=$(steal_ticks)
"$LOCKSTAT" record -e locks -o f.data -- "$WL/fdstorm" -t 2 -d 2 >f.out 2>f.err
rc=$?
after=$(steal_ticks)
check "record exits 0 ($rc)" test $rc = 0 || cat f.err
num='[0-9]+(\.[0-9]+)? (ns|us|ms|s)'
check "record's summary has a steal line with a figure: $(grep 'steal:' f.err)" \
	grep -Eq "^lockstat: steal: $num \([0-9]+\.[0-9]{2} % of CPU time\)" f.err
"$LOCKSTAT" report -i f.data >f.txt
"$LOCKSTAT" report -i f.data -f json >f.json
check "the report's header has a steal line with a figure: $(grep '^# steal' f.txt)" \
	grep -Eq "^# steal: $num \([0-9]+\.[0-9]{2} % of CPU time\)(, at most $num in one interval on cpu[0-9]+)?; counted in $num ticks" f.txt
check "record and report say the same steal" \
	test "$(sed -n 's/^lockstat: steal: //p' f.err)" = "$(sed -n 's/^# steal: //p' f.txt)"
tick=$((1000000000 / $(getconf CLK_TCK)))
check "the profile's steal lies between 0 and what /proc/stat showed around the run ($before -> $after ticks of $tick ns)" \
	jqe --argjson most "$(((after - before) * tick))" --argjson tick "$tick" \
	'.meta.steal | .tick_ns == $tick and .total_ns <= $most and .total_ns % $tick == 0' f.json ||
	jq -c .meta.steal f.json
check "per CPU: the totals add up, every interval within its CPU's total, one entry per online CPU" \
	jqe '.meta.steal as $s | ($s.per_cpu | length) == .meta.cpus and $s.cpus == .meta.cpus and
		([$s.per_cpu[].total_ns] | add) == $s.total_ns and
		all($s.per_cpu[]; .max_interval_ns <= .total_ns) and
		$s.max_interval_ns == ([$s.per_cpu[].max_interval_ns] | max) and
		$s.since_boot_ns >= $s.total_ns and $s.bound_ns == $s.total_ns + 2 * $s.tick_ns * $s.cpus' f.json
check "the CPU time it is a share of is the recording's (duration x CPUs, within 10 %)" \
	jqe '(.meta.steal.cpu_time_ns / (.meta.duration_ns * .meta.cpus) - 1) | fabs < 0.1' f.json
# Every spinning row over 10 ms says what the steal makes of it, and no other row does.
check "max_wait_check: set exactly where a spinlock's or rwlock's max is over 10 ms, as the bound says" \
	jqe '.meta.steal.bound_ns as $b | [.locks[] | . as $l | ($l, $l.callers[]) |
		($l.type | test("^(spinlock|rwlock:[RW])$")) as $spin |
		if $spin and .wait_max_ns > 10000000 then
			.max_wait_check == (if .wait_max_ns - 10000000 <= $b then "steal_could_explain" else "accounting_error" end)
		else .max_wait_check == null end] | all' f.json
marked=$(grep -c '^ .* !' f.txt)
check "text marks as many rows as JSON has checks ($marked)" \
	test "$marked" = "$(jq '[.locks[] | ., .callers[] | select(.max_wait_check != null)] | length' f.json)"
# top: each live interval's steal, which add up to no more than /proc/stat showed around it.
before=$(steal_ticks)
timeout 60 "$LOCKSTAT" top -b -f json -- "$WL/fdstorm" -t 2 -d 2 >top.jsonl 2>top.err
rc=$?
after=$(steal_ticks)
check "top --batch: every interval has its steal, together within /proc/stat's ($rc; $(jq -s -c '[.[].steal_ns]' top.jsonl))" \
	jqe -s --argjson most "$(((after - before) * tick))" 'length >= 2 and all(.steal_ns | type == "number") and
		([.[].steal_ns] | add) <= $most' top.jsonl
timeout 60 "$LOCKSTAT" top --replay f.data --speed 0 -b -f json >replay.jsonl 2>/dev/null
check "top --replay: the steal of an interval is not known (null)" jqe -s 'length >= 1 and all(.steal_ns == null)' replay.jsonl
echo "# steal over the recording: $(sed -n 's/^# steal: //p' f.txt)"
done_testing
