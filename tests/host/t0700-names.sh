#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Lock names that need no slab lookup: every CPU's run queue (found through
# the task group, where the per-CPU runqueues symbol does not resolve
# without CONFIG_KALLSYMS_ALL), zone.lock (its self-check on two real
# zones and two other addresses), and the anonymous locks, named by the
# function with the most waits over the whole recording, not the first.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

# CPUs the kernel may bring up: "0-1", "0,2-3" in /sys/devices/system/cpu/possible.
possible=$(tr ',' '\n' </sys/devices/system/cpu/possible |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
"$LOCKSTAT" probe >probe.txt 2>probe.err
check "probe: rq.__lock of all $possible possible CPUs" \
	grep -Eq "^rq\.__lock +yes +rq\.__lock \($possible of $possible CPUs" probe.txt
check "probe: zone.lock, its self-check told 2 zones from 2 other addresses" \
	grep -Eq '^zone\.lock +yes +.*self-check: 2 zones told from 2 other addresses' probe.txt

# 4 threads on a mutex (onefile's shared f_pos_lock) sleep and wake all
# the time: the run queues' locks are contended, and named rq.something.
"$LOCKSTAT" record -q -e locks -o rq.data -- "$WL/onefile" --mode pos -t 4 -d 2 >rq.out 2>rec.err
check "record onefile exits 0" test $? = 0
echo "# onefile: $(tail -n 1 rq.out)"
"$LOCKSTAT" report -i rq.data -f json >rq.json
rq_waits=$(jq -r '[.locks[] | select(.name | startswith("rq.")) | .contended] | add' rq.json)
what="the run queues' waits are under rq.* names ($rq_waits waits)"
if [ "$rq_waits" != null ] || overlapped_in rq.out; then
	check "$what" jqe '[.locks[] | select(.name | startswith("rq.")) | .contended] | add > 0' rq.json
else
	concurrency_skip "$what"
fi
check "no lock waited on from __schedule is left anonymous" \
	jqe '[.locks[] | select(.name | test("^0x[0-9a-f]+@__schedule$"))] | length == 0' rq.json
check "no name has a caller in brackets ([stack not sampled] is no function)" \
	jqe '[.locks[] | select(.name | test("@\\["))] | length == 0' rq.json
check "the header says what the recording could name" \
	sh -c "'$LOCKSTAT' report -i rq.data | grep -Eq '^# lock names: rq\.__lock \($possible of $possible CPUs'"
done_testing
