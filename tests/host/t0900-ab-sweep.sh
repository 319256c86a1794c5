#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# lockstat ab and lockstat sweep on fdstorm. ab: threads sharing one fd
# table against --fork processes finds files_struct.file_lock's wait
# gone or down, significantly; the same command on both sides finds no
# significant change in the figure. sweep --cpus 1,2: on one CPU the
# threads never hold the lock at once, on two they contend; the table,
# JSON and SVG carry both points. Bad input and a failing run: one line,
# a non-zero exit, no summary presented as complete.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

M='ops/s=([0-9]+)'
FD="$WL/fdstorm -t 2 -d 1"

# all_overlapped DIR GLOB: every run's workers ran at once (the logs hold fdstorm's line).
all_overlapped() {
	local f
	for f in "$1"/$2.log; do
		overlapped_in "$f" || return 1
	done
}

# sig_lock SUMMARY: the change of file_lock among the locks that changed significantly.
sig_lock() {
	awk '/^locks changed significantly/ { on = 1; next } /^[a-z]/ { on = 0 }
		on && $1 == "files_struct.file_lock" { print $(NF - 2) == "%" ? $(NF - 3) : $(NF - 2) }' "$1"
}

"$LOCKSTAT" ab -q -r 3 -o tf --metric "$M" --base "$FD" --patched "$FD --fork" >tf.out 2>tf.err
check "ab threads against --fork: exit 0, a summary, 3 profiles a side" \
	test $? = 0 -a -s tf/summary.txt -a -s tf/base.3.data -a -s tf/patched.3.data -a ! -e tf/base.4.data
check "ab: what it printed is summary.txt" cmp tf.out tf/summary.txt
check "ab: the figure's change with its interval" grep -Eq '^  change [-+][0-9.]+ %, 95 % interval \[' tf.out
change=$(sig_lock tf.out)
if all_overlapped tf 'base.*'; then
	check "ab: files_struct.file_lock changed significantly, down ($change)" \
		sh -c "test -n '$change' && case '$change' in gone|-*) true;; *) false;; esac"
else
	overlap=$(field overlap tf/base.1.log) concurrency_skip "ab: files_struct.file_lock changed significantly, down"
fi
check "ab: diff reads the directory again" sh -c "$LOCKSTAT diff -b tf/base.*.data -p tf/patched.*.data >/dev/null"

# The same command on both sides, twice: a false positive is alpha's 5 %
# of an experiment; both of two is 0.25 %.
sig=0
for e in 1 2; do
	"$LOCKSTAT" ab -q -r 3 -o same$e --metric "$M" --base "$FD --fork" --patched "$FD --fork" >same$e.out 2>&1
	check "ab of one command against itself ($e): exit 0 and a tested figure" grep -q '^  change .*: ' same$e.out
	grep -q '^  change .*: significant' same$e.out && sig=$((sig + 1))
done
check "ab of one command against itself: the figure's change is not significant ($sig of 2 significant)" \
	test $sig -lt 2

"$LOCKSTAT" sweep -q --cpus 1,2 -r 2 -o sw --metric "$M" -- $FD >sw.out 2>sw.err
check "sweep --cpus 1,2: exit 0, the table, JSON and SVG" test $? = 0 -a -s sw/sweep.txt -a -s sw/sweep.json -a -s sw/sweep.svg
check "sweep: what it printed is sweep.txt" cmp sw.out sw/sweep.txt
check "sweep: JSON has both points with their figure" \
	jqe '[.points[].point] == [1, 2] and ([.points[] | select(.figure > 0 and .runs == 2)] | length) == 2 and .figure == "ops/s"' sw/sweep.json
check "sweep: the SVG is well-formed XML" xmllint --noout sw/sweep.svg
check "sweep: the SVG plots both points" test "$(grep -c '<circle ' sw/sweep.svg)" = 2
w1=$(jq '[.points[0].locks[] | select(.name == "files_struct.file_lock") | .wait_ns_per_s][0] // -1' sw/sweep.json)
w2=$(jq '[.points[1].locks[] | select(.name == "files_struct.file_lock") | .wait_ns_per_s][0] // -1' sw/sweep.json)
if all_overlapped sw 'cpus-2.*'; then
	check "sweep: file_lock is a top lock, waited on at 2 CPUs ($w2 ns/s)" awk -v w="$w2" 'BEGIN { exit !(w > 0) }'
	check "sweep: at 1 CPU (almost) no file_lock wait ($w1 ns/s, against $w2)" \
		awk -v a="$w1" -v b="$w2" 'BEGIN { exit !(a >= 0 && a <= b / 20) }'
else
	overlap=$(field overlap sw/cpus-2.1.log) concurrency_skip "sweep: file_lock waited on at 2 CPUs, not at 1"
fi
check "sweep: the text table has both points" test "$(grep -Ec '^ +[12] +[0-9]' sw.out)" = 2

# Bad input: one line on stderr, a non-zero exit.
one_line_fails() {
	local rc
	"$LOCKSTAT" "$@" >/dev/null 2>bad.err
	rc=$?
	[ $rc != 0 ] && [ "$(grep -c '^lockstat: ' bad.err)" = 1 ]
}
check "ab -r 0: one error line, non-zero exit" one_line_fails ab -r 0 -o bad0 --base true --patched true
check "ab --bogus: one error line, non-zero exit" one_line_fails ab --bogus --base true --patched true
check "sweep --bogus: one error line, non-zero exit" one_line_fails sweep --bogus --cpus 1 --metric "$M" -- true
check "ab into a directory that is not empty: one error line, non-zero exit" \
	one_line_fails ab -r 1 -o tf --base true --patched true
check "ab into a directory that is not empty: the old results untouched" cmp tf.out tf/summary.txt
check "ab of a failing command: one error line naming the run and its log, non-zero exit" \
	sh -c "! $LOCKSTAT ab -q -r 2 -o fail --base 'echo broken >&2; exit 3' --patched true 2>fail.err &&
		test \$(wc -l <fail.err) = 1 && grep -q 'base run 1 of 2 failed (exit status 3): broken; its output: fail/base.1.log' fail.err"
check "ab of a failing command: no summary, the runs after it not made" test ! -e fail/summary.txt -a ! -e fail/patched.1.data
check "sweep of a failing command: non-zero exit, no table" \
	sh -c "! $LOCKSTAT sweep -q --cpus 1 -r 1 -o swfail --metric '$M' -- false 2>/dev/null && test ! -e swfail/sweep.txt"
# Killed midway: no summary, and the run it was recording stops with it.
timeout 3 "$LOCKSTAT" ab -q -r 2 -o killed --base 'sleep 37.5' --patched true 2>/dev/null
check "ab killed midway: no summary.txt" test ! -e killed/summary.txt
# The pattern does not match its own command line.
for i in $(seq 50); do pgrep -f 'sleep 37[.]5' >/dev/null || break; sleep 0.1; done
check "ab killed midway: its recording and workload stop too" sh -c "! pgrep -f 'sleep 37[.]5' >/dev/null"
done_testing
