#!/bin/sh
# User symbols and user locks on Debian's 6.1 kernel: the mapping tracker
# (a dummy perf event per CPU with mmap records), the target filter's exit
# program and its PID namespace translation load and work there as on the
# host. A 0.2 s mutexstorm: its global mutex named with its caller, its
# samples resolved; then the same from inside a PID namespace.
. "$(dirname "$0")/lib.sh"
"$LOCKSTAT" probe 2>/dev/null | grep -Eq '^ulocks +tracepoint' ||
	skip_all "ulocks: no futex syscall tracepoints in this kernel ($(uname -r))"

"$LOCKSTAT" record -e sample,ulocks -F 999 -o u.data -- "$WL/mutexstorm" -t 2 -d 0.2 -q >wl.out 2>rec.err
check "record -e sample,ulocks exits 0" test $? = 0 || show rec.err
check "the mapping tracker runs (no warning about it)" sh -c '! grep -q "cannot follow mappings" rec.err' ||
	show rec.err
"$LOCKSTAT" report -i u.data -f csv >u.csv
n=$(csv_sum u.csv lock storm_lock contended)
check "storm_lock, the global mutex of a 0.2 s process, is named and contended ($n)" test "$n" -gt 0 ||
	show rec.err
csv_col u.csv caller storm_lock caller >callers.txt
check "with its caller ($(tr '\n' ' ' <callers.txt))" grep -q '^storm_op' callers.txt
"$LOCKSTAT" report -i u.data --view hits --user >h.txt
check "its user samples are resolved: no 'no mapping'" sh -c '! grep -q "no mapping" h.txt' ||
	{ show h.txt; "$LOCKSTAT" export -i u.data -f folded | grep -F '[unknown]' | sed 's/^/# unresolved: /'; }
check "storm_op among the sampled functions" grep -q ' storm_op ' h.txt || show h.txt

unshare -fp --mount-proc "$LOCKSTAT" record -q -e sample,ulocks -F 999 -o ns.data -- \
	"$WL/mutexstorm" -t 2 -d 0.2 -q >/dev/null 2>ns.err
"$LOCKSTAT" report -i ns.data -f csv >ns.csv
n=$(csv_sum ns.csv lock storm_lock contended)
check "in a PID namespace too ($n)" test "$n" -gt 0 || show ns.err
done_testing
