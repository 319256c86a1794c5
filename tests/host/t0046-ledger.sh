#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The cost ledger (report --cost, lockstat-report(1) COST LEDGER): a
# recorded command's CPU is what its shell's `times` counts of it; own
# start-up is > 0, steady >= 0; the overhead is the formula of the
# printed terms, recomputed here; text and JSON say the same. -p takes
# the process's CPU from /proc/PID/stat: no more than what the test
# itself reads around the recording; --cgroup its cpu.stat, the same
# way; -a the machine's.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_perf_event
require_cmd jq

# fdstorm burns both CPUs in dup()+close(); bash's `times` says what it used.
"$LOCKSTAT" record -o cmd.data -- bash -c "'$WL/fdstorm' -d 2 -q >/dev/null; times" >times.out 2>cmd.err
check "record of a command exits 0 ($?)" test $? = 0 || sed 's/^/# /' cmd.err
"$LOCKSTAT" report -i cmd.data --cost >cost.txt 2>cost.err
check "report --cost exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i cmd.data --cost -f json | jq .cost >cost.json
sed 's/^/# /' cost.txt
check "the ledger was recorded, its source the command" jqe '.recorded and .workload.source == "command"' cost.json

# `times`: the shell's own line, then its children's; the ledger counts both.
bash_s=$(awk '{ n = split($0, f, /[ms ]+/); t += f[1] * 60 + f[2] + f[3] * 60 + f[4] } END { print t }' times.out)
wl_s=$(jq '.workload.cpu_ns / 1e9' cost.json)
check "workload CPU (${wl_s:-?} s) is what times counts (${bash_s:-?} s) within 5 % + 0.02 s" \
	awk -v a="${wl_s:-x}" -v b="${bash_s:-x}" 'BEGIN { d = a - b; if (d < 0) d = -d;
		exit !(a > 0.1 && b > 0 && d <= 0.05 * b + 0.02) }'
check "own start-up > 0, steady >= 0, finish >= 0" \
	jqe '.own.startup_ns > 0 and .own.steady_ns >= 0 and .own.finish_ns >= 0' cost.json
check "probes measured, the locks family among them, the total the sets' sum" \
	jqe '.probes.measured_ns > 0 and ([.probes.sets[].name] | index("locks") != null) and
	     ((.probes.bpf_ns - ([.probes.sets[].bpf_ns] | add)) | fabs) <= (.probes.sets | length)' cost.json
check "each set's bpf_ns is its run_ns scaled by recording / measured" \
	jqe '.recording_ns as $r | .probes.measured_ns as $m | all(.probes.sets[];
	     (.bpf_ns - (if $m < $r then .run_ns * $r / $m else .run_ns end)) | fabs <= 1)' cost.json
check "overhead = (probes + own steady) / workload CPU" \
	jqe '.overhead_pct as $o | ($o - 100 * (.probes.bpf_ns + .own.steady_ns) / .workload.cpu_ns) | fabs < 1e-5 * $o + 1e-9' cost.json

# The text's figures are the JSON's, rounded as printed.
txt_line() { sed -n "s/^  $1: *//p" cost.txt; }
j() { jq -r "$1" cost.json; }
same() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a == b) }'; }
ov=$(txt_line overhead)
check "text overhead ($ov) is JSON's" \
	same "$(awk '{ print $1 }' <<<"$ov")" "$(j '.overhead_pct * 100 | round / 100')"
# Term by term, as numbers: "1.490" is jq's 1.49, and printf's rounding
# of a half may differ from jq's by the last digit.
close3() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); if (n != 3 || split(b, y, " ") != 3) exit 1
		for (i = 1; i <= 3; i++) if (x[i] - y[i] > 0.0011 || y[i] - x[i] > 0.0011) exit 1 }'
}
check "text overhead's terms are JSON's" \
	close3 "$(sed -n 's/.*(probes \([0-9.]*\) s + own steady \([0-9.]*\) s) \/ workload \([0-9.]*\) s/\1 \2 \3/p' <<<"$ov")" \
	       "$(j '[.probes.bpf_ns, .own.steady_ns, .workload.cpu_ns] | map(. / 1e9) | map(tostring) | join(" ")')"
own=$(txt_line "own CPU")
check "text own CPU ($own) is JSON's" \
	close3 "$(sed -n 's/start-up \([0-9.]*\) s, steady \([0-9.]*\) s .*, finish \([0-9.]*\) s/\1 \2 \3/p' <<<"$own")" \
	       "$(j '[.own.startup_ns, .own.steady_ns, .own.finish_ns] | map(. / 1e9) | map(tostring) | join(" ")')"
check "text workload CPU is JSON's" \
	same "$(txt_line 'workload CPU' | awk '{ print $1 }')" "$(j '.workload.cpu_ns / 1e6 | round / 1000')"

# -p: the process's /proc/PID/stat, read by the test before and after.
burn() { while :; do :; done; }
burn & bg=$!
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$bg/stat"; }
t0=$(ticks)
"$LOCKSTAT" record -p "$bg" -d 2 -o pid.data 2>pid.err
rc=$?
t1=$(ticks)
kill "$bg"; wait "$bg" 2>/dev/null
check "record -p exits 0 ($rc)" test "$rc" = 0
"$LOCKSTAT" report -i pid.data --cost -f json | jq .cost >pid.json
hz=$(getconf CLK_TCK)
around=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" 'BEGIN { print (b - a) / hz }')
pid_s=$(jq '.workload.cpu_ns / 1e9' pid.json)
check "-p: source pid, CPU (${pid_s:-?} s) > 0 and within what the test read around it (${around} s)" \
	awk -v a="${pid_s:-x}" -v b="$around" -v src="$(jq -r .workload.source pid.json)" \
		'BEGIN { exit !(src == "pid" && a > 0 && a <= b + 0.02) }'

# --cgroup: the growth of its cpu.stat usage_usec, within the test's reading around it.
cg2=$(awk '{ split($0, p, " - "); split(p[2], t, " ") } t[1] == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
cg=${cg2:+$cg2/lockstat-t0046-$$}
if [ -z "$cg2" ] || ! mkdir "$cg" 2>/dev/null; then
	skip_check CGROUP2 "--cgroup: the ledger reads the cgroup's cpu.stat" "no cgroup v2 hierarchy to make a cgroup in"
else
	sh -c 'echo $$ >"$0/cgroup.procs" && exec sh -c "while :; do :; done"' "$cg" & bg=$!
	sleep 0.2
	usage() { awk '$1 == "usage_usec" { print $2 }' "$cg/cpu.stat"; }
	u0=$(usage)
	"$LOCKSTAT" record --cgroup "$cg" -d 1.5 -e locks -o cg.data 2>cg.err
	rc=$?
	u1=$(usage)
	kill "$bg"; wait "$bg" 2>/dev/null
	for _ in $(seq 50); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
	check "record --cgroup exits 0 ($rc)" test "$rc" = 0
	"$LOCKSTAT" report -i cg.data --cost -f json | jq .cost >cg.json
	cg_s=$(jq '.workload.cpu_ns / 1e9' cg.json)
	check "--cgroup: source cgroup, CPU (${cg_s:-?} s) > 0 and within what the test read around it ($(((u1 - u0) / 1000)) ms)" \
		awk -v a="${cg_s:-x}" -v b="$((u1 - u0))" -v src="$(jq -r .workload.source cg.json)" \
			'BEGIN { exit !(src == "cgroup" && a > 0 && a <= b / 1e6 + 0.001) }'
fi

# -a: the machine's busy time, less lockstat's own.
burn & bg=$!
"$LOCKSTAT" record -a -d 1 -e locks -o all.data 2>all.err
rc=$?
kill "$bg"; wait "$bg" 2>/dev/null
check "record -a exits 0 ($rc)" test "$rc" = 0
"$LOCKSTAT" report -i all.data --cost -f json | jq .cost >all.json
check "-a: source system, CPU > 0 and at most the recording's time on every CPU" \
	jqe --argjson n "$(nproc)" '.workload.source == "system" and .workload.cpu_ns > 0 and
	     .workload.cpu_ns <= .recording_ns * $n * 1.05' all.json

# -q prints no cost lines, but the ledger still has the probes' cost.
"$LOCKSTAT" record -q -d 1 -e locks -o quiet.data -- "$WL/fdstorm" -d 1 -q >/dev/null 2>quiet.err
check "record -q exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i quiet.data --cost -f json | jq .cost >quiet.json
check "-q: the ledger has the probes' cost ($(jq -c '[.probes.sets[]?.name]' quiet.json))" \
	jqe '.probes.measured_ns > 0 and ([.probes.sets[] | select(.name == "locks")] | length == 1)' quiet.json

done_testing
