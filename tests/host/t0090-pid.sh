#!/bin/bash
# -p PID records a running process and stops when it exits.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$WL/fdstorm" -t 2 -d 3 >wl.out &
wl=$!
sleep 0.3
start=$(date +%s)
"$LOCKSTAT" record -q -p $wl -o p.data -d 20
rc=$?
end=$(date +%s)
wait $wl
check "record -p exits 0 ($rc)" test $rc = 0
check "record -p stops when the process exits ($((end - start)) s)" test $((end - start)) -lt 10
"$LOCKSTAT" report -i p.data -f json >p.json
check "record -p names its target" jqe '.meta.target == "pid '"$wl"'"' p.json
if overlapped_in wl.out; then
	check "record -p sees the process's contention (overlap $overlap)" \
		jqe '[.locks[] | select(.name == "files_struct.file_lock") | .contended] | add > 0' p.json
else
	concurrency_skip "record -p sees the process's contention"
fi
check "record -p sees the process's samples" \
	jqe '.total_samples > 0' <("$LOCKSTAT" report -i p.data --view hits -f json)
# -t: each row's process comes from its task (BPF keeps it with the
# command), so --pid picks the process's waits out, and no other's.
# Loading the probes takes seconds on a loaded machine: the workload
# outlives a 2 s recording (a 1 s one had ended before record attached,
# and the check saw "0 of 0").
"$WL/fdstorm" -t 2 -d 5 >wl-t.out &
wl=$!
sleep 0.2
"$LOCKSTAT" record -q -t -p $wl -o t.data -d 2
wait $wl
"$LOCKSTAT" report -i t.data -f json >t.json
mine=$("$LOCKSTAT" report -i t.data --pid $wl -f json | jq .total.contended)
none=$("$LOCKSTAT" report -i t.data --pid 1 -f json | jq .total.contended)
if overlapped_in wl-t.out; then
	check "-t: --pid of the process keeps all its waits ($mine of $(jq .total.contended t.json))" \
		jqe ".total.contended > 0 and .total.contended == $mine" t.json
else
	concurrency_skip "-t: --pid of the process keeps all its waits"
fi
check "-t: --pid of another process keeps none ($none)" test "$none" = 0
"$LOCKSTAT" record -q -p 999999 -o none.data 2>err
check "record -p of a missing process: exit 1, says so" sh -c "test $? = 1 && grep -q 'no process with pid 999999' err"
"$LOCKSTAT" record -q -a -p 1 2>err
check "-a with -p: exit 2" test $? = 2
done_testing
