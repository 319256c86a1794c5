#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The contention programs' accounting, played by hand: contdrive
# (tests/host/progs) loads bpf/contention.bpf.c without attaching it and
# runs its raw_tp twins of contention_begin/end through
# BPF_PROG_TEST_RUN with the lock addresses, flags and rets given here,
# in the sequences the kernel makes (kernel/locking/*.c) and in those a
# lost event leaves behind; then reads the rows, the loss counters and
# the waits left open. Each case says what the accounting must make of
# its sequence.
. "$(dirname "$0")/lib.sh"
require_root; require_btf

SKEL=${SKEL_DIR:-$ROOT_DIR/build/skel}
check "contdrive builds" build_prog contdrive -I"$SKEL" -I"$ROOT_DIR/bpf" -I"$ROOT_DIR/lib" -lbpf || done_testing

# drive NAME [OPTIONS]: the commands on stdin, the output in NAME.out.
drive() {
	local name=$1
	shift
	./contdrive "$@" >"$name.out" 2>"$name.err" || { echo "# contdrive $name: $(cat "$name.err")"; return 1; }
}

# row_field FILE ADDR FLAGS FIELD [ERR]: FIELD of the row of ADDR with
# those flags and errno (0), or nothing.
row_field() {
	awk -v a="$2" -v f="$3" -v k="$4" -v e="${5:-0}" '$1 == "row" && $2 == "addr=" a && $3 == "flags=" f &&
		$4 == "err=" e { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"
}

# lost_of FILE NAME: that loss counter.
lost_of() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"; }

# between V LO HI: LO <= V <= HI (V not empty).
between() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

MS=1000000

# A spinning wait and a mutex's wait, each timed from its begin.
drive basic <<EOF
begin 0x1000 1
sleep 20
end 0x1000 0
begin 0x2000 0x21
end 0x2000 0
rows
lost
EOF
check "a spinning wait of 20 ms is one of 20 ms or more: $(row_field basic.out 0x1000 0x1 total)" \
	between "$(row_field basic.out 0x1000 0x1 total)" $((20 * MS)) $((500 * MS))
check "a mutex's spin is one wait" test "$(row_field basic.out 0x2000 0x21 count)" = 1
check "nothing lost" test "$(lost_of basic.out missing_begin)$(lost_of basic.out stale_begin)" = 00

# A mutex's first waiter: spin, sleep, spin again, sleep again, all one
# wait (kernel/locking/mutex.c: MUTEX|SPIN, then MUTEX, then the loop's).
drive mutex <<EOF
begin 0x3000 0x21
begin 0x3000 0x20
begin 0x3000 0x21
begin 0x3000 0x20
sleep 20
end 0x3000 0
rows
lost
EOF
check "a mutex's spins and sleeps are one wait, typed mutex: $(row_field mutex.out 0x3000 0x20 count)" \
	test "$(row_field mutex.out 0x3000 0x20 count)" = 1
check "... of 20 ms or more" between "$(row_field mutex.out 0x3000 0x20 total)" $((20 * MS)) $((500 * MS))
check "... no begin taken for a lost end" test "$(lost_of mutex.out stale_begin)" = 0

# A sleeping wait whose end was lost, then a new wait on the same lock:
# the new one is timed from its own begin. Only a mutex's spin after its
# sleep, or sleep after its spin, goes on with the wait before it.
drive relock <<EOF
begin 0x4000 0x2
sleep 300
begin 0x4000 0x2
end 0x4000 0
begin 0x5000 0
sleep 300
begin 0x5000 0
end 0x5000 0
begin 0x6000 0x20
sleep 300
begin 0x6000 0x20
end 0x6000 0
begin 0x7000 0x4
sleep 300
begin 0x7000 0x4
rows
lost
inflight
EOF
for w in "0x4000 0x2 rwsem:R" "0x5000 0 semaphore" "0x6000 0x20 mutex"; do
	set -- $w
	check "a $3 wait after one whose end was lost is timed from its own begin: $(row_field relock.out $1 $2 max) ns" \
		between "$(row_field relock.out $1 $2 max)" 0 $((200 * MS))
done
check "... each old one counted stale_begin: $(lost_of relock.out stale_begin)" test "$(lost_of relock.out stale_begin)" = 4
age=$(awk '$1 == "inflight" && $2 == "addr=0x7000" { sub("age=", "", $4); print $4 }' relock.out)
check "the wait left open at the stop is the new one: age $age ns" between "$age" 0 $((200 * MS))

# PREEMPT_RT: a rwbase read wait, and inside it the wait for its
# rt_mutex, on another address (kernel/locking/rwbase_rt.c).
drive rt <<EOF
begin 0x8000 0xa
sleep 10
begin 0x8008 0x8
sleep 10
end 0x8008 0
sleep 10
end 0x8000 0
begin 0x9000 0xa
begin 0x9008 0x8
rows
lost
inflight
EOF
check "the outer rwbase wait is timed whole: $(row_field rt.out 0x8000 0xa total) ns" \
	between "$(row_field rt.out 0x8000 0xa total)" $((30 * MS)) $((500 * MS))
check "the inner rt_mutex wait is its own: $(row_field rt.out 0x8008 0x8 total) ns" \
	between "$(row_field rt.out 0x8008 0x8 total)" $((10 * MS)) $((30 * MS - 1))
check "... neither end lost: missing_begin $(lost_of rt.out missing_begin), stale_begin $(lost_of rt.out stale_begin)" \
	test "$(lost_of rt.out missing_begin)$(lost_of rt.out stale_begin)" = 00
check "both nested waits open at the stop are closed there" \
	test "$(grep -c -e '^inflight addr=0x9000 flags=0xa ' -e '^inflight addr=0x9008 flags=0x8 ' rt.out)" = 2

# rqspinlock (6.15+) ends a spinning wait with -ETIMEDOUT or -EDEADLK.
drive spinfail <<EOF
begin 0xa000 1
end 0xa000 -110
rows
EOF
check "a spin that gave up is a row with its errno: $(row_field spinfail.out 0xa000 0x1 count 110)" \
	test "$(row_field spinfail.out 0xa000 0x1 count 110)" = 1
check "... never a wait that took the lock" test -z "$(row_field spinfail.out 0xa000 0x1 count)"

# A clock read at the end earlier than the begin's (two CPUs' clocks):
# not a wait of 584 years.
drive backwards <<EOF
begin 0xd000 1
shift 0xd000 10000
end 0xd000 0
begin 0xd100 0x2
shift 0xd100 10000
end 0xd100 0
rows
lost
EOF
check "an end before its begin is no wait: $(row_field backwards.out 0xd000 0x1 max) $(row_field backwards.out 0xd100 0x2 max)" \
	test -z "$(row_field backwards.out 0xd000 0x1 count)$(row_field backwards.out 0xd100 0x2 count)"
check "... each counted end_before_begin: $(lost_of backwards.out end_before_begin)" \
	test "$(lost_of backwards.out end_before_begin)" = 2

# A spinning wait whose end was lost stays on its CPU's stack: another
# task's end on the same lock (not a target: its begin was never
# recorded) must not close it; nor may any end close it after a second.
drive spinstale -f <<EOF
begin 0xb000 1
sleep 620
other end 0xb000 0
begin 0xc000 1
sleep 1100
end 0xc000 0
rows
lost
EOF
check "another task's end does not close a wait left on the CPU: $(row_field spinstale.out 0xb000 0x1 max) ns" \
	test -z "$(row_field spinstale.out 0xb000 0x1 count)"
check "a spin open for over a second is not closed as a wait: $(row_field spinstale.out 0xc000 0x1 max) ns" \
	test -z "$(row_field spinstale.out 0xc000 0x1 count)"
check "... but counted stale_begin: $(lost_of spinstale.out stale_begin)" test "$(lost_of spinstale.out stale_begin)" = 1

# A spin left open by one task is stale once another task spins on that
# CPU: no task loses its CPU while it spins.
drive spinswitch <<EOF
begin 0x1100 1
thread begin 0x1200 1
inflight
thread end 0x1200 0
rows
lost
EOF
check "another task's spin on the CPU drops the one left open: $(grep -c '^spinning' spinswitch.out) open" \
	test "$(grep '^spinning' spinswitch.out | cut -d' ' -f2 | tr '\n' ' ')" = "addr=0x1200 "
check "... counted stale_begin: $(lost_of spinswitch.out stale_begin)" test "$(lost_of spinswitch.out stale_begin)" = 1
check "... and its own wait is counted" test "$(row_field spinswitch.out 0x1200 0x1 count)" = 1

# The same task's spin whose end was lost (the kernel skipped it as a
# recursion) stays below its later spins: 300 of them end above it, more
# than an interrupt inside one spin makes, and its lock's next end, whose
# begin was skipped too, must not close it (fdstorm: 932 ms, rcu_core).
# 200 ended above a spin in progress leave it its wait.
{
	echo "begin 0xf000 1"
	echo "sleep 300"
	for i in $(seq 300); do echo "begin 0xf100 1"; echo "end 0xf100 0"; done
	echo "end 0xf000 0"
	echo "begin 0xf200 1"
	for i in $(seq 200); do echo "begin 0xf300 1"; echo "end 0xf300 0"; done
	echo "end 0xf200 0"
	echo rows
	echo lost
} >nested.in
drive nested <nested.in
check "a spin with 300 waits ended above it lost its end, not closed 300 ms on: $(row_field nested.out 0xf000 0x1 max) ns" \
	test -z "$(row_field nested.out 0xf000 0x1 count)"
check "... counted stale_begin: $(lost_of nested.out stale_begin)" test "$(lost_of nested.out stale_begin)" = 1
check "... and the waits above it counted: $(row_field nested.out 0xf100 0x1 count)" \
	test "$(row_field nested.out 0xf100 0x1 count)" = 300
check "a spin with 200 waits ended inside it is one wait" test "$(row_field nested.out 0xf200 0x1 count)" = 1

# -t: a task's command as of its latest wait (a TID is reused, a thread
# renamed); its IDs as lockstat's PID namespace sees them.
drive comm -t <<EOF
comm first
begin 0xe000 1
end 0xe000 0
comm second
begin 0xe000 1
end 0xe000 0
comms
EOF
check "a renamed task's waits carry its new name" grep -q "name=second\$" comm.out
drive ns -t -n <<EOF
ns begin 0xf000 1
ns end 0xf000 0
rows
comms
EOF
check "a task in lockstat's PID namespace has its ID there: $(row_field ns.out 0xf000 0x1 tid)" \
	test "$(row_field ns.out 0xf000 0x1 tid)" = 2
check "... in the command table too" grep -q "^comm tid=2 tgid=2 " ns.out

# Thinning (-T 14: waits under 16.4 us keep their stack with probability
# 2^-(14 - their log2 slot)): 6000 short waits, about a microsecond or
# two, a syscall apart, and 12 of 1 ms, on one lock.
{
	for i in $(seq 6000); do
		echo "begin 0x9000 1"
		echo "end 0x9000 0"
	done
	for i in $(seq 12); do
		printf 'begin 0x9000 1\nsleep 1\nend 0x9000 0\n'
	done
	echo rows
} >thin.in
drive thin -T 14 <thin.in
# thin_sum FILE FIELD WHICH: the field summed over the rows of 0x9000,
# "all" of them, the "kept" ones (a stack), or the "estimate": the kept
# ones each counted 2^shift times.
thin_sum() {
	awk -v k="$2" -v w="$3" '$1 == "row" && $2 == "addr=0x9000" {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (w == "all") s += f[k]
		else if (f["stack"] == "some") s += w == "kept" ? f[k] : f[k] * 2 ^ f["shift"]
	} END { printf "%d\n", s }' "$1"
}
check "every thinned wait is still counted: $(thin_sum thin.out count all) of 6012" \
	test "$(thin_sum thin.out count all)" = 6012
kept=$(thin_sum thin.out count kept)
check "short waits keep their stack in proportion to their length: $kept of 6012 kept" \
	between "$kept" 12 3000
check "... the long ones all: $(awk '$1 == "row" && $2 == "addr=0x9000" && / shift=0 stack=some/ {
	split($7, m, "="); if (m[2] >= 1000000) n++ } END { print n + 0 }' thin.out) row(s) of 1 ms waits with p = 1" \
	awk '$1 == "row" && $2 == "addr=0x9000" && / shift=0 stack=some/ { split($7, m, "=");
	if (m[2] >= 1000000) n++ } END { exit !n }' thin.out
est=$(thin_sum thin.out count estimate)
check "... each counted 2^shift times: the count estimated $est, of 6012" between "$est" 4500 7500
total=$(thin_sum thin.out total all)
etotal=$(thin_sum thin.out total estimate)
check "... and the total: $etotal ns estimated, of $total" \
	between "$etotal" $((total * 4 / 5)) $((total * 6 / 5))
drive nothin <thin.in
check "without -T every wait keeps its stack: $(thin_sum nothin.out count kept) of 6012" \
	test "$(thin_sum nothin.out count kept)" = 6012

done_testing
