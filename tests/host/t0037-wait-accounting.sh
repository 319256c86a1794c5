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
check "contdrive builds" build_prog contdrive -I"$SKEL" -I"$ROOT_DIR/bpf" -lbpf || done_testing

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

done_testing
