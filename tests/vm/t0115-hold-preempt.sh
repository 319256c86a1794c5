#!/bin/sh
# record --hold on a fully preemptible kernel. The hold programs on the
# sleeping locks' functions (fexit of mutex_lock, fentry of mutex_unlock)
# run with only migration disabled: with preempt=full a tick or a wakeup
# preempts them. The per-CPU guard that keeps one program of ours from
# running inside another (guard.bpf.h) must not stay shut for the other
# tasks that run on that CPU meanwhile: their waits are theirs, not
# nested in ours. seekstorm's 8 threads on 3 CPUs contend on one file's
# f_pos_lock, a mutex, and are preempted all the time. With a guard that
# any program in progress held, 100 to 160 waits a run were refused
# (in_probe), and ends dropped uncounted left their begins open (5 to 19
# missing_begin, 7 or 8 stale_begin); with one that knows its task, none.
. "$(dirname "$0")/lib.sh"
"$LOCKSTAT" probe >probe.txt 2>&1
feature_yes fentry probe.txt || skip_all "FENTRY: not in this kernel ($(uname -r)): --hold needs it"
mode_file=/sys/kernel/debug/sched/preempt
[ -w "$mode_file" ] || skip_all "PREEMPT_DYNAMIC: no $mode_file to switch this kernel ($(uname -r)) to preempt=full"
mode=$(sed 's/.*(\([a-z]*\)).*/\1/' "$mode_file")
echo full >"$mode_file" 2>/dev/null || skip_all "PREEMPT_DYNAMIC: this kernel refuses preempt=full ($(cat "$mode_file"))"
trap 'echo "$mode" >"$mode_file"; rm -rf "$T"' EXIT
echo "# preemption: $(cat "$mode_file") (was $mode)"

"$LOCKSTAT" record -q --hold -e locks -o p.data -- "$WL/seekstorm" -t 8 -d 3 -q >wl.out 2>rec.err
rc=$?
echo "$mode" >"$mode_file"
check "record --hold under preempt=full exits 0 ($rc)" test $rc = 0 || { show rec.err; done_testing; exit; }
check "fsck passes" "$LOCKSTAT" fsck -q p.data
"$LOCKSTAT" report -i p.data >p.txt
"$LOCKSTAT" report -i p.data -f csv >p.csv
"$LOCKSTAT" report -i p.data --view tables --table hold.lost -f csv | sed 's/^/# hold.lost: /'
echo "# seekstorm ops/s: $(cat wl.out)"
grep '^# lost' p.txt

lost_of() {
	sed -n 's/^# lost:.*[ ]'"$1"'=\([0-9]*\).*/\1/p' p.txt | awk '{ s += $1 } END { print s + 0 }'
}
waits=$(awk "$_csv_awk"'F[col["row"]] == "lock" && F[col["type"]] ~ /^mutex/ { s += F[col["contended"]] } END { print s + 0 }' p.csv)
check "mutex waits recorded ($waits)" test "$waits" -gt 0 || show p.txt
# What a program of ours refuses in its own task: a map's lock, an
# interrupt's inside contention_end. None in six runs here.
ip=$(lost_of in_probe)
check "waits refused for a program of ours in progress: in_probe $ip <= 1 in 5000 of $waits" \
	test $((ip * 5000)) -le "$waits"
mb=$(lost_of missing_begin) rb=$(lost_of recursion_begin)
check "every end found its begin: missing_begin $mb <= the begins skipped, $rb + $ip" test "$mb" -le $((rb + ip))
sb=$(lost_of stale_begin) re=$(lost_of recursion_end)
check "no end was dropped, leaving its begin open: stale_begin $sb <= the ends skipped, $re" test "$sb" -le "$re"
done_testing
