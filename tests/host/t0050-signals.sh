#!/bin/bash
# Ctrl-C and SIGTERM during record save what was gathered; SIGKILL of
# record still leaves a readable file; a workload killed by a signal gives
# lockstat's exit status 128+signal.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" record -q -o int.data -- "$WL/fdstorm" -t 2 -d 30 -q >/dev/null &
pid=$!
sleep 2.5
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: record exits with the workload's status (fdstorm exits 0 on SIGINT: $rc)" test $rc = 0
check "SIGINT: the profile is complete (fsck)" "$LOCKSTAT" fsck -q int.data
check "SIGINT: the profile has the contention" \
	jqe '[.locks[] | select(.name == "files_struct.file_lock") | .contended] | add > 0' <("$LOCKSTAT" report -i int.data -f json)
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
sleep 2.5
kill -KILL $pid
wait $pid 2>/dev/null
pkill -f "fdstorm -t 2 -d 30" 2>/dev/null
"$LOCKSTAT" report -i kill.data -f json >kill.json 2>kill.err
check "SIGKILL: the profile is still readable" test $? = 0
check "SIGKILL: the report says the recording did not finish" grep -q 'no END chunk' kill.err
check "SIGKILL: the buckets written before the kill are there" jqe '.total.contended > 0 and .meta.complete == false' kill.json

"$LOCKSTAT" record -q -o sig.data -- sh -c 'kill -TERM $$'
rc=$?
check "workload killed by SIGTERM: exit status 143 ($rc)" test $rc = 143
check "workload killed by a signal: the profile is written" "$LOCKSTAT" fsck -q sig.data
"$LOCKSTAT" record -q -o st.data -- sh -c 'exit 7'
check "the workload's exit status becomes lockstat's ($?)" test $? = 7
done_testing
