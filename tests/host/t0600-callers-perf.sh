#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Every wait has a caller, and each caller's share of the waits agrees with
# perf lock contention's on the very same run: within 5 percentage points
# for every caller perf gives 1 % or more of the waits. perf lock record
# runs the workload, lockstat record -p follows it and what it forks (both
# see the same processes, neither the other's); perf takes a stack at
# every wait, lockstat at a random sample, each sampled wait weighed by
# 1/p. On dbench (Debian's, 2 clients: the VFS benchmark of the lock
# scalability studies), then on fdstorm; no caller is "[stack not sampled]".
# perf's "Unknown" is no caller: perf lock record keeps 8 frames, and a
# wait whose 8 frames are all lock or scheduler functions gets it (lockstat
# reads 32 and names the caller); it counts in the totals, not as a caller.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq; require_cmd perf; require_cmd dbench
mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null

# perf's callers: "count caller" per line, summed over its stacks.
perf_callers() {
	perf lock contention -i "$1" -F contended -E 1000000 2>&1 |
		awk '$1 ~ /^[0-9]+$/ && NF >= 3 { n[$NF] += $1 } END { for (c in n) print n[c], c }'
}
# Ours: the kernel locks' callers, summed over locks.
our_callers() {
	jq -r '[.locks[] | select(.user | not) | .callers[]] | group_by(.symbol)[] |
		"\(map(.contended) | add) \(.[0].symbol)"' "$1"
}
# Lock helpers that lockstat skips and perf does not (lockstat-record(1),
# Callers): perf's caller of a wait in them is the helper itself, ours the
# function that called it. Their waits count in both totals; they are no
# caller of perf's to compare.
lockstat_only_skips='^(__task_rq_lock|task_rq_lock|_?raw_spin_rq_lock[a-z_]*|double_rq_lock|_double_lock_balance|lock_sock_nested)[+]'
# compare PERF OURS: one line per caller with 1 % of perf's waits or more,
# "caller perf% ours% ok|BAD" (BAD: off by more than 5 points).
compare() {
	awk -v skipped="$lockstat_only_skips" 'FNR == NR { p[$2] = $1; pt += $1; next } { o[$2] = $1; ot += $1 }
	END {
		for (c in p) {
			if (c == "Unknown" || pt == 0 || 100 * p[c] / pt < 1) continue
			if (c ~ skipped) { printf "%s %.2f - skipped by lockstat\n", c, 100 * p[c] / pt; continue }
			ps = 100 * p[c] / pt; os = ot ? 100 * o[c] / ot : 0
			d = ps - os; if (d < 0) d = -d
			printf "%s %.2f %.2f %s\n", c, ps, os, d <= 5 ? "ok" : "BAD"
		}
	}' "$1" "$2"
}
# run NAME COMMAND...: perf lock record runs COMMAND after 3 s, time for
# lockstat record -p to attach to the shell that will exec it.
run() {
	local name=$1 perf_pid sh_pid i rc
	shift
	perf lock record -m 1024 -o "$name.perf" -- sh -c 'sleep 3; exec "$@"' sh "$@" \
		>"$name.out" 2>"$name.err" &
	perf_pid=$!
	for ((i = 0; i < 100; i++)); do
		sh_pid=$(pgrep -P $perf_pid) && break
		sleep 0.05
	done
	"$LOCKSTAT" record -q -p "${sh_pid:-0}" -o "$name.data" 2>"$name.rec.err"
	rc=$?
	wait $perf_pid
	check "$name: perf lock record ($?) and lockstat record -p ($rc) exit 0" test $? = 0 -a $rc = 0
	grep -q 'lost' "$name.err" && skip_all "perf lost events on $name: no fair comparison: $(grep -m1 lost "$name.err")"
	"$LOCKSTAT" report -i "$name.data" -f json >"$name.json"
	perf_callers "$name.perf" >"$name.perf.callers"
	our_callers "$name.json" >"$name.ours.callers"
}
agree() {	# NAME: the shares, then the check
	local name=$1 pn on
	pn=$(awk '{ s += $1 } END { print s + 0 }' "$name.perf.callers")
	on=$(jq '[.locks[] | select(.user | not) | .contended] | add // 0' "$name.json")
	echo "# $name: perf $pn waits, lockstat $on; caller, perf %, lockstat %:"
	compare "$name.perf.callers" "$name.ours.callers" >"$name.cmp"
	sed 's/^/#   /' "$name.cmp"
	check "$name: perf saw waits to compare ($pn)" test "$pn" -gt 0
	check "$name: lockstat counts perf's waits, within 5 % ($on, $pn)" \
		awk -v a="$on" -v b="$pn" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= b * 5) }'
	check "$name: every caller's share within 5 points of perf's" \
		sh -c "! grep -q ' BAD\$' $name.cmp"
	check "$name: no caller is [stack not sampled]" \
		jqe '[.locks[].callers[].symbol] | index("[stack not sampled]") == null' "$name.json"
}

mkdir db
run dbench dbench -D db -t 5 2
agree dbench

run fdstorm "$WL/fdstorm" -t 2 -d 3 -q
agree fdstorm
lock='.locks[] | select(.name == "files_struct.file_lock")'
# Sampled, the callers' estimates add up to the lock's exact count within
# the widths of their 95 % intervals added up (5 standard errors of the
# sum or more); unweighted samples would miss it by a factor of 1/p.
check "fdstorm: the callers' estimates add up to the lock's count, within their intervals' widths" \
	jqe "[$lock | if ([.callers[].estimated] | any) then
		((.contended - ([.callers[].contended] | add)) | fabs) <= ([.callers[] | .contended_ci95[1] - .contended_ci95[0]] | add)
		else .contended == ([.callers[].contended] | add) end] | length > 0 and all" fdstorm.json
done_testing
