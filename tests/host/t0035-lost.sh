#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The loss counters count, and waits in progress at the stop are closed
# at the stop time. ttylock (tests/host/progs) makes kernel mutex waits
# that begin and end when this script says: a write to a pty whose output
# is stopped holds the tty's write mutex, and each further writer waits
# for it. So, with record -p:
#   - waits begun before the recording end during it: missing_begin
#     counts each one, exactly;
#   - waits begun during it and still going at the stop: one wait each,
#     as long as from its begin to the stop;
#   - more waiting tasks than --map-entries rows, with -t: each wait is
#     either in the profile or counted map_full;
#   - rows trimmed while waits sleep: the waits keep their stacks.
# manystacks burns CPU under a different user stack nearly every time:
# with -M 8192 (8192 stacks of each kind, 16384 rows) its 12 000 stacks
# in 6 s are more than the maps hold, so they are trimmed as they fill:
# every sample is kept, with its own stack, and none is lost.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_perf_event; require_cmd jq

check "ttylock builds" build_prog ttylock
check "manystacks builds" build_prog manystacks

# tty: ttylock's commands go through fd 3, its answers to tty.out.
mkfifo tty.cmd
./ttylock <tty.cmd >tty.out 2>tty.err &
tty_pid=$!
exec 3>tty.cmd
trap 'exec 3>&-; kill $tty_pid 2>/dev/null; rm -rf "$T"' EXIT
# ttyctl COMMAND: send it, wait (60 s at most) for ttylock's answer.
ttyctl() {
	local n i
	n=$(grep -cx "$1" tty.out)
	echo "$1" >&3
	for ((i = 0; i < 600; i++)); do
		[ "$(grep -cx "$1" tty.out)" -gt "$n" ] && return 0
		kill -0 $tty_pid 2>/dev/null || break
		sleep 0.1
	done
	echo "# ttylock did not answer '$1': $(cat tty.err)"
	return 1
}
# record_p OUT ARGS...: record ttylock in the background; back once its
# probes are attached (the profile appears under its name then).
record_p() {
	local out=$1 i
	shift
	"$LOCKSTAT" record -q -e locks -p $tty_pid -o "$out" "$@" 2>"$out.err" &
	rec_pid=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$out" ] && return 0
		kill -0 $rec_pid 2>/dev/null || break
		sleep 0.1
	done
	echo "# record did not start: $(cat "$out.err")"
	return 1
}
# stop_rec: Ctrl-C the recording; its exit status.
stop_rec() {
	[ -n "$rec_pid" ] || return 1
	kill -INT "$rec_pid"
	wait "$rec_pid"
}
rec_pid=
tty_mutex='[.locks[] | select(.type == "mutex" and (.callers | any(.symbol | test("tty_write"))))]'
ns() { date +%s%N; }

# 1. Three waits begun before the recording, released during it.
ttyctl hold && ttyctl "wait 3" && record_p before.data -d 60 && ttyctl release
stop_rec
check "waits begun before: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i before.data -f json >before.json
check "missing_begin counts the 3 ends whose begin came before the recording ($(jq .lost.missing_begin before.json))" \
	jqe '.lost.missing_begin == 3' before.json
check "and none of them is in the table" jqe "$tty_mutex | length == 0" before.json

# 2. Two waits begun during the recording, still going at its stop (-d 3).
ttyctl hold
t_launch=$(ns)
record_p inflight.data -d 3
t_sent=$(ns)
ttyctl "wait 2"
t_asleep=$(ns)
wait $rec_pid
rc=$?
ttyctl release
check "waits in progress at the stop: record exits 0 ($rc)" test $rc = 0
"$LOCKSTAT" report -i inflight.data -f json >inflight.json
check "the 2 waits still in progress at the stop are in the profile" jqe "$tty_mutex | length == 1 and .[0].contended == 2" inflight.json
# Each lasted from its begin (after t_sent, before t_asleep) to the stop
# (at least 3 s after t_launch, at most the recording's end).
lo=$(((t_launch + 3000000000 - t_asleep) / 1000))
check "each closed at the stop: $(jq -c "$tty_mutex | .[0] | [.wait_min_ns, .wait_max_ns] | map(. / 1000 | floor)" inflight.json) us, within [$lo, duration]" \
	jqe --argjson d "$(jq .meta.duration_ns inflight.json)" "$tty_mutex | .[0].wait_min_ns >= $lo * 1000 and .[0].wait_max_ns <= \$d" inflight.json
check "an in-progress wait is no missing begin" jqe '.lost.missing_begin == 0' inflight.json

# 3. -t -M 64: 100 waiting threads, a row each, in a map of 64 rows.
ttyctl hold && record_p full.data -t -M 64 -d 60 && ttyctl "wait 100" && ttyctl release
stop_rec
check "--map-entries 64: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i full.data -f json >full.json
kept=$(jq "$tty_mutex | map(.contended) | add // 0" full.json)
lost=$(jq .lost.map_full full.json)
check "-M 64 -t: no more rows kept than the map holds ($kept waits kept)" test "$kept" -gt 0 -a "$kept" -le 64
check "-M 64 -t: each of the 100 waits kept or counted map_full ($kept + $lost >= 100)" test $((kept + lost)) -ge 100
# 3b. A trim while waits sleep: 40 waits (-t: a row each) fill half the
# map of 64 and end; 2 more begin at once, through writev (a stack no
# row has had yet); the first drain that finds the 40 rows idle, a second
# later, trims them, and with them every stack that no row names. The 2
# waits' stack is theirs still: when they end, their caller is
# tty_write, not "[stack lost]".
# --stack-rate 0: every wait has its stack; -v twice undoes record_p's -q
# and says the trims.
ttyctl hold && record_p pending.data -v -v -t -M 64 --stack-rate 0 -d 60 &&
	ttyctl "wait 40" && ttyctl release && ttyctl hold && ttyctl "waitv 2" &&
	sleep 2.5 && ttyctl release
stop_rec
check "a trim while waits sleep: record exits 0 ($?)" test $? = 0
check "-M 64: the locks' stacks map holds 64 stacks too (-v: $(grep '^locks: stacks holds' pending.data.err))" \
	grep -q '^locks: stacks holds 64 rows$' pending.data.err
trims=$(grep -c '^locks: removed [0-9]* rows idle longest' pending.data.err)
check "the locks' rows were trimmed while 2 waits slept ($trims trims)" test "$trims" -ge 1
"$LOCKSTAT" report -i pending.data -f json >pending.json
check "all 42 waits are tty_write's ($(jq "$tty_mutex | map(.contended) | add // 0" pending.json), map_full $(jq .lost.map_full pending.json))" \
	jqe "$tty_mutex | map(.contended) | add == 42" pending.json
check "no wait lost its stack ($(jq -c '[.locks[].callers[] | select(.symbol == "[stack lost]") | .contended]' pending.json))" \
	jqe '[.locks[].callers[] | select(.symbol == "[stack lost]")] | length == 0' pending.json

echo quit >&3
wait $tty_pid

# 4. The sampler's maps trimmed while recording: more distinct user stacks
# than they hold, none lost, each sample with its own stack.
"$LOCKSTAT" record -v -e sample -F 1999 -M 8192 -o stacks.data -- ./manystacks 6 >/dev/null 2>stacks.err
check "manystacks: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i stacks.data -f json >stacks.json
"$LOCKSTAT" report -i stacks.data --view hits -f json >hits.json
n=$(jq .total_samples hits.json)
trims=$(grep -c 'sample: removed [0-9]* rows idle longest' stacks.err)
# A row trimmed in the instant a sample lands on it loses that sample,
# counted (sample_trimmed_late, sample_stack_gone): a race, not a full
# map, rare but not never (1 in one run of 11 980). The others, none.
lost=$(jq '[.lost | to_entries[] | select(.key | startswith("sample_")) |
	select(.key != "sample_trimmed_late" and .key != "sample_stack_gone") | .value] | add // 0' stacks.json)
raced=$(jq '[.lost | to_entries[] | select(.key == "sample_trimmed_late" or .key == "sample_stack_gone") |
	.value] | add // 0' stacks.json)
# One line per distinct stack: the folded export merges equal ones.
distinct=$("$LOCKSTAT" export -i stacks.data -f folded | grep -c ';main;descend;')
if [ "${n:-0}" -ge 10000 ]; then
	check "the maps were trimmed while recording ($trims trims, -v)" test "$trims" -ge 1
	check "more distinct user stacks kept than the maps hold ($distinct > 8192 of $n samples)" \
		test "${distinct:-0}" -gt 8192
	check "no sample lost, no stack lost to a full map or an error ($lost)" test "$lost" = 0
	check "at most 1 in 1000 lost to a trim's race, counted ($raced of $n)" \
		test "$((raced * 1000))" -le "$n"
	# A stack fetched for the wrong row would show frames of no function
	# of manystacks. A sample whose stack a trim's race took is listed as
	# [unknown] under "no user stack" (lockstat-report(1)): only those.
	unknown=$(jq -c '.unknown | with_entries(select(.value > 0))' hits.json)
	check "every user sample resolved, but for the $raced whose stack a trim took ($unknown)" \
		jqe --argjson raced "$raced" '(.unknown | del(."no user stack") | add // 0) == 0 and
			(.unknown."no user stack" // 0) <= $raced' hits.json
else
	skip_check CPU "the maps trimmed while recording" "manystacks got only ${n:-0} samples in 6 s (machine busy)"
fi
# record says what it lost as it ends (a notice), the same counts as the profile.
"$LOCKSTAT" record -e sample -F 1999 -M 64 -o small.data -- ./manystacks 2 >/dev/null 2>small.err
"$LOCKSTAT" report -i small.data -f json >small.json
got=$(jq .lost.sample_stacks_full small.json)
said=$(sed -n 's/.*lost:.* sample_stacks_full=\([0-9]*\).*/\1/p' small.err)
check "-M 64: stacks beyond the maps counted, record's lost: line gives the profile's count (${said:-none} and $got)" \
	test "${said:-x}" = "$got" -a "${got:-0}" -gt 0
done_testing
