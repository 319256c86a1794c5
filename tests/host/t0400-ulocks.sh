#!/bin/bash
# User-space locks (-e ulocks): mutexstorm's threads contend on the global
# pthread mutex storm_lock; with --cond they wait on storm_cond, which is
# no lock contention; alone they contend on nothing. With --uprobes every
# acquisition and hold is measured, within an event budget.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_cmd jq
require_tracepoint syscalls sys_enter_futex sys_exit_futex

MS=$WL/mutexstorm
# -e locks too: the kernel's own waits (run queues, futex buckets) are
# in the same table, to be told from the user locks.
"$LOCKSTAT" record -q -e ulocks,locks -o m.data -- "$MS" -t 2 -H 2000 -d 2 >m.out
check "record -e ulocks,locks exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i m.data -f json --stacks >m.json
check "ulocks attached to the futex syscall tracepoints ($(jq -r .meta.probes.ulocks m.json))" \
	jqe '.meta.probes.ulocks | test("^tracepoint")' m.json
ops=$(field ops m.out)

lock='.locks[] | select(.name == "storm_lock")'
contended=$(jq "[$lock | .contended] | add // 0" m.json)
check "storm_lock, a global pthread mutex, is named and contended ($contended)" test "$contended" -gt 0
check "its type is u:mutex and it is marked user" jqe "[$lock | .type == \"u:mutex\" and .user] | all and length == 1" m.json
check "its caller is storm_op, the function that locks it" jqe "[$lock | .callers[].symbol] | index(\"storm_op\") != null" m.json
check "its stacks are user stacks through storm_op" \
	jqe "[$lock | .stacks[].frames[]] | any(. == \"storm_op (mutexstorm)\")" m.json
check "kernel locks are in the table too, not marked user ($(jq '[.locks[] | select(.type | startswith("u:") | not)] | length' m.json))" \
	jqe '[.locks[] | select(.type | startswith("u:") | not) | .user] | length > 0 and all(. == false)' m.json
check "waits are consistent (avg <= max, p50 <= p99 <= max)" \
	jqe "[$lock | .wait_avg_ns <= .wait_max_ns and .p50_ns <= .p99_ns and .p99_ns <= .wait_max_ns] | length == 1 and all" m.json
# One lock a op: no more waits than mutexstorm's ops, in all and from storm_op.
check "storm_lock's waits are no more than mutexstorm's $ops ops, in all and from storm_op" \
	jqe "[$lock | .contended <= ${ops:-0} and ([.callers[] | select(.symbol == \"storm_op\") | .contended] | add) <= ${ops:-0}] | length == 1 and all" m.json
"$LOCKSTAT" report -i m.data --type u -f csv >m.csv
check "--type u keeps user locks only, CSV with a constant column count" \
	awk -F, 'NR == 1 { n = NF } NF != n { exit 1 } NR > 1 && $1 == "lock" && $3 !~ /^u:/ { exit 1 } END { exit NR < 3 }' m.csv
"$LOCKSTAT" report -i m.data --type mutex -f json >k.json
check "--type mutex is the kernel's mutexes: no user lock" jqe '[.locks[] | select(.user)] | length == 0' k.json
pid=$("$LOCKSTAT" report -i m.data --view tables --table ulocks -f csv | awk -F, 'NR == 2 { print $2 }')
check "the ulocks table names mutexstorm's pid ($pid)" test -n "$pid"
"$LOCKSTAT" report -i m.data --pid "$pid" -f json >p.json
check "--pid works on user locks without -t" jqe "[$lock | .contended] | add == $contended" p.json
"$LOCKSTAT" report -i m.data --view tables --table ulocks.wakers -f csv >w.csv
check "the wake side names the threads that released the lock" \
	awk -F, 'NR > 1 && $5 == "storm_lock" && $7 > 0 { found = 1 } END { exit !found }' w.csv

# Condition variables: waits for an event, not for a lock.
"$LOCKSTAT" record -q -e ulocks -o c.data -- "$MS" --cond -t 3 -d 2 -q >/dev/null
check "--cond: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i c.data -f json >c.json
"$LOCKSTAT" report -i c.data --type u:cond -f json >cond.json
cond=$(jq '[.locks[] | select(.name == "storm_cond") | .contended] | add // 0' cond.json)
check "--type u:cond shows the waits on storm_cond ($cond)" test "$cond" -gt 0
check "they are all of type u:cond" jqe '[.locks[].type] | length > 0 and all(. == "u:cond")' cond.json
check "condition-variable waits are not mutex contention: storm_cond is no lock" \
	jqe '[.locks[] | select(.name == "storm_cond")] | length == 0' c.json
check "nor is any u:cond wait in the lock table" jqe '[.locks[] | select(.type == "u:cond")] | length == 0' c.json

# One thread: no contention at all.
"$LOCKSTAT" record -q -e ulocks -o one.data -- "$MS" -t 1 -d 1 -q >/dev/null
check "one thread: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i one.data -f json >one.json
check "an uncontended run shows no user lock" jqe '[.locks[] | select(.user)] | length == 0' one.json

# Uprobes: every acquisition and hold, one per op mutexstorm counts.
"$LOCKSTAT" record -e ulocks --uprobes --force -o u.data -- "$MS" -t 2 -H 2000 -d 2 >u.out 2>u.err
"$LOCKSTAT" report -i u.data -f json >u.json
ops=$(sed -n 's/.* ops=\([0-9]*\) .*/\1/p' u.out)
if has_uprobes; then
	check "the uprobe PMU is there: the uprobes attached ($(jq -r .meta.probes.uprobes u.json))" \
		jqe '.meta.probes.uprobes | startswith("uprobe")' u.json
	check "record prints the measured cost of a uprobe hit" grep -q 'us a hit (measured)' u.err
	check "storm_lock acquired once per op of mutexstorm ($ops)" jqe "[$lock | .acquired] | add == ${ops:-0}" u.json
	check "acquisitions >= contended" jqe "[$lock | .acquired >= .contended] | length == 1 and all" u.json
	check "hold avg <= hold max, and > 0" jqe "[$lock | .hold_avg_ns <= .hold_max_ns and .hold_avg_ns > 0] | length == 1 and all" u.json
	check "CON% is the contended share of mutexstorm's own $ops acquisitions" \
		jqe "[$lock | ((.con_pct - 100 * .contended / ${ops:-0}) | fabs) < 0.01] | length == 1 and all" u.json
	"$LOCKSTAT" record -e ulocks --uprobes --event-budget 1000 -o b.data -- "$MS" -t 2 -d 2 -q >/dev/null 2>b.err
	check "over the event budget the uprobes are detached, with a warning" grep -q 'over the budget' b.err
	"$LOCKSTAT" report -i b.data --view tables --table ulocks.uprobes -f csv >b.csv
	check "and the profile says so" awk -F, 'NR > 1 && $4 == 1 { found = 1 } END { exit !found }' b.csv
	"$LOCKSTAT" record -q -a -d 0.5 -e ulocks --uprobes -o a.data >/dev/null 2>&1
	"$LOCKSTAT" report -i a.data -f json >a.json
	check "system-wide uprobes are refused without --force" jqe '.meta.probes.uprobes | test("system-wide")' a.json
else
	skip_check UPROBE "uprobes: every acquisition and hold" "no uprobe PMU (kernel built without CONFIG_UPROBES)"
fi
done_testing
