#!/bin/sh
# A mutex wait is its task's, from its first begin to its end. seekstorm's
# threads, more of them than CPUs, contend on one file's f_pos_lock, a
# kernel mutex, through every path of the mutex slow path: optimistic
# spins (MUTEX|SPIN) that schedule away and resume on another CPU, sleeps
# (MUTEX) and first waiters that spin again once woken (MUTEX|SPIN after
# MUTEX). With the waits keyed by task, every end finds its own begin
# (none missing, none stale, but those the kernel's recursion check
# skipped, which are counted), no thread waits longer in all than the
# recording lasted, and no wait outlives the storm: the recording goes on
# 4 s after it, and a wait left open then would be closed at the stop,
# 4 s or more. Keyed by CPU, a task's spin stayed behind on the CPU it
# left and another task's end took it; a first waiter's second spin
# left its sleeping entry open.
. "$(dirname "$0")/lib.sh"
require_feature tp_btf:lock

now_ns() { awk '{ printf "%.0f\n", ($1 + 0.01) * 1e9 }' /proc/uptime; }	# busybox date has no %N

t0=$(now_ns)
"$LOCKSTAT" record -q -e locks -t -o m.data -- sh -c "'$WL/seekstorm' -t 8 -d 3 -q; sleep 4" >wl.out 2>rec.err &
rec=$!
# The workload's threads, while it runs: their waits are checked one by
# one. Listed until all 8 are there: the first listing can come while
# seekstorm still creates them.
i=0
: >tids
while [ $i -lt 50 ] && [ "$(wc -l <tids)" -lt 8 ]; do
	sleep 0.2
	pid=$(pidof seekstorm)
	[ -n "$pid" ] && ls "/proc/$pid/task" 2>/dev/null | grep -v "^$pid\$" >tids
	i=$((i + 1))
done
wait $rec
rc=$?
t1=$(now_ns)
check "record exits 0 ($rc)" test $rc = 0 || show rec.err wl.out
check "the workload's 8 threads were seen ($(wc -l <tids))" test "$(wc -l <tids)" = 8

"$LOCKSTAT" report -i m.data >m.txt
"$LOCKSTAT" report -i m.data -f csv >m.csv
lost_of() {
	sed -n 's/^# lost:.*[ ]'"$1"'=\([0-9]*\).*/\1/p' m.txt | awk '{ s += $1 } END { print s + 0 }'
}
mutex_waits() {	# CSV FILE TYPE: the waits of the locks of that type
	awk -v t="$2" "$_csv_awk"'F[col["row"]] == "lock" && F[col["type"]] == t { s += F[col["contended"]] } END { print s + 0 }' "$1"
}
slept=$(mutex_waits m.csv mutex) spun=$(mutex_waits m.csv mutex:spin)
check "waits that slept ($slept) and waits that only spun ($spun)" test "$slept" -gt 0 -a "$spun" -gt 0 || show m.txt

mb=$(lost_of missing_begin) rb=$(lost_of recursion_begin) ip=$(lost_of in_probe)
check "every end found its begin: missing_begin $mb <= the begins skipped, $rb + $ip" test "$mb" -le $((rb + ip)) ||
	show m.txt
sb=$(lost_of stale_begin) re=$(lost_of recursion_end)
check "no begin replaced a wait in progress: stale_begin $sb <= the ends skipped, $re" test "$sb" -le "$re"

# Per thread: all its mutex waits fit in the recording.
span=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f\n", b - a + 1e7 }')
over=
for tid in $(cat tids); do
	"$LOCKSTAT" report -i m.data --pid "$tid" -f csv >t.csv
	w=$(awk "$_csv_awk"'F[col["row"]] == "lock" && F[col["type"]] ~ /^mutex/ { s += F[col["wait_total_ns"]] } END { printf "%.0f\n", s }' t.csv)
	awk -v w="$w" -v s="$span" 'BEGIN { exit !(w <= s) }' || over="$over $tid:$w"
done
check "no thread waited longer than the recording's $span ns${over:+ (over:$over)}" test -z "$over"
"$LOCKSTAT" report -i m.data --type mutex -f csv >slept.csv
longest=$(csv_col slept.csv lock "" wait_max_ns | sort -n | tail -n 1)
check "no mutex wait outlived the 3 s storm (the longest: ${longest:-none} ns)" test "${longest:-0}" -lt 3500000000
done_testing
