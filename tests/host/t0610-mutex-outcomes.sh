#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Kernel mutex waits of a known number, length and outcome (ttywait: one
# thread holds a tty's write mutex, N more wait for it):
#   - waits that end with the mutex: N contended acquisitions, each as long
#     as the hold, timed from the waiter's first begin (a woken waiter
#     spins again before it takes the mutex);
#   - waits that a signal ends (contention_end's ret is -EINTR): counted
#     apart, as gave_up EINTR, never as contended acquisitions;
#   - waits still in progress at the stop: closed at the stop time, from
#     the task storage that holds them.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

# The tty mutex: the lock whose callers write to a tty, or (its waits all
# interrupted, so it has no caller) the one mutex whose waits gave up. Its
# name may be its slab cache's (a tty_struct is a kmalloc object).
tty='[.locks[] | select(.type == "mutex" and ((.name | test("tty")) or (.callers | any(.symbol | test("tty"))) or (.gave_up | length > 0)))]'

"$LOCKSTAT" record -q -e locks -o held.data -- "$WL/ttywait" -t 3 -d 1 >held.out
check "ttywait -t 3 -d 1: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i held.data -f json >held.json
check "3 contended acquisitions of the tty mutex ($(jq -c "$tty | map(.contended)" held.json))" \
	jqe "$tty | length == 1 and .[0].contended == 3" held.json
check "each waited the 1 s hold, not from a later spin ($(jq -c "$tty | map(.wait_min_ns)" held.json) ns)" \
	jqe "$tty | .[0].wait_min_ns >= 900000000 and .[0].wait_max_ns < 3000000000" held.json
check "no gave_up for them" jqe "$tty | .[0].gave_up == []" held.json

"$LOCKSTAT" record -q -e locks -o intr.data -- "$WL/ttywait" -t 4 -d 0.2 -i >intr.out
check "ttywait -i: record exits 0 ($?)" test $? = 0
check "ttywait -i: the workload saw 4 EINTRs ($(cat intr.out))" grep -q 'interrupted=4 ' intr.out
"$LOCKSTAT" report -i intr.data -f json >intr.json
check "the 4 interrupted waits are gave_up EINTR ($(jq -c "$tty | map(.gave_up)" intr.json))" \
	jqe "$tty | length == 1 and .[0].gave_up == [.[0].gave_up[0]] and .[0].gave_up[0].error == \"EINTR\" and .[0].gave_up[0].errno == 4 and .[0].gave_up[0].waits == 4" intr.json
check "and not contended acquisitions, of the lock or in the total" \
	jqe "($tty | .[0].contended == 0) and .total.contended == ([.locks[].contended] | add)" intr.json
"$LOCKSTAT" report -i intr.data >intr.txt
check "text: a [gave up: EINTR] row under the lock" grep -Eq '^ +4 .*  \[gave up: EINTR\]$' intr.txt
"$LOCKSTAT" report -i intr.data -f csv >intr.csv
check "csv: a gave_up row, EINTR, 4 waits" grep -Eq '^gave_up,[^,]*,mutex,EINTR,4,' intr.csv

# In progress at the stop: 3 waits begin 1.5 s after the workload starts,
# record -p stops 3 s after it attached, the hold lasts 5 s.
"$WL/ttywait" -t 3 -d 5 -s 1.5 >flight.out &
wl=$!
t0=$(date +%s%N)
"$LOCKSTAT" record -q -e locks -p $wl -d 3 -o flight.data
rc=$?
t1=$(date +%s%N)
wait $wl
check "record -p -d 3 exits 0 ($rc)" test $rc = 0
"$LOCKSTAT" report -i flight.data -f json >flight.json
check "the 3 waits in progress at the stop are in the profile" jqe "$tty | length == 1 and .[0].contended == 3" flight.json
# Each from its begin (after t0 + 1.5 s) to the stop (before t1).
check "each closed at the stop: $(jq -c "$tty | .[0] | [.wait_min_ns, .wait_max_ns]" flight.json) ns, at most $((t1 - t0 - 1500000000))" \
	jqe "$tty | .[0].wait_min_ns > 0 and .[0].wait_max_ns <= $((t1 - t0 - 1500000000))" flight.json
check "no end without its begin" jqe '.lost.missing_begin == 0' flight.json
done_testing
