#!/bin/bash
# Ctrl-C and SIGTERM during record save what was gathered; SIGKILL of
# record still leaves a readable file; a workload killed by a signal gives
# lockstat's exit status 128+signal.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

# started_for PID SECS: wait until record PID's workload runs (record holds
# it until the probes are attached, which on a loaded machine takes
# seconds), then SECS more; 60 s at most.
started_for() {
	local i
	for ((i = 0; i < 600; i++)); do
		pgrep -x -P "$1" fdstorm >/dev/null && break
		sleep 0.1
	done
	sleep "$2"
}

"$LOCKSTAT" record -q -o int.data -- "$WL/fdstorm" -t 2 -d 30 >int.out &
pid=$!
started_for $pid 2.5
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: record exits with the workload's status (fdstorm exits 0 on SIGINT: $rc)" test $rc = 0
check "SIGINT: the profile is complete (fsck)" "$LOCKSTAT" fsck -q int.data
check "SIGINT: the workload stopped too, and said so" grep -q '^fdstorm: .* ops=[1-9]' int.out
if overlapped_in int.out; then
	check "SIGINT: the profile has the contention" \
		jqe '[.locks[] | select(.name == "files_struct.file_lock") | .contended] | add > 0' <("$LOCKSTAT" report -i int.data -f json)
else
	concurrency_skip "SIGINT: the profile has the contention"
fi
check "SIGINT: stopped early, not after 30 s" jqe '.meta.duration_ns < 10000000000' <("$LOCKSTAT" report -i int.data -f json)

"$LOCKSTAT" record -q -o term.data -a -d 60 &
pid=$!
sleep 1.5
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM with -a: record exits 0 ($rc)" test $rc = 0
check "SIGTERM: the profile is complete" "$LOCKSTAT" fsck -q term.data

"$LOCKSTAT" record -q -o kill.data -- "$WL/fdstorm" -t 2 -d 30 -q >/dev/null &
pid=$!
started_for $pid 2.5
wl=$(pgrep -P $pid)
kill -KILL $pid
wait $pid 2>/dev/null
[ -n "$wl" ] && kill $wl 2>/dev/null	# the workload, orphaned: ours alone, by pid
"$LOCKSTAT" report -i kill.data -f json >kill.json 2>kill.err
check "SIGKILL: the profile is still readable" test $? = 0
check "SIGKILL: the report says the recording did not finish" grep -q 'no END chunk' kill.err
check "SIGKILL: it says so in JSON too" jqe '.meta.complete == false' kill.json
# 2.5 s at one bucket a second: a whole bucket at least, by fsck's count
# and by report's, with the samples in it.
buckets=$("$LOCKSTAT" fsck kill.data 2>&1 | sed -n 's/.*; \([0-9]*\) buckets, .*/\1/p')
check "SIGKILL: the buckets written before the kill are there (fsck: ${buckets:-no} buckets; report: $(jq .meta.duration_ns kill.json) ns)" \
	jqe ".meta.duration_ns >= 1000000000 and ${buckets:-0} >= 1" kill.json
check "SIGKILL: with their samples" jqe '.total_samples > 0' <("$LOCKSTAT" report -i kill.data --view hits -f json 2>/dev/null)

"$LOCKSTAT" record -q -o sig.data -- sh -c 'kill -TERM $$'
rc=$?
check "workload killed by SIGTERM: exit status 143 ($rc)" test $rc = 143
check "workload killed by a signal: the profile is written" "$LOCKSTAT" fsck -q sig.data
"$LOCKSTAT" record -q -o st.data -- sh -c 'exit 7'
check "the workload's exit status becomes lockstat's ($?)" test $? = 7
done_testing
