#!/bin/sh
# record with the default attach mode (tp_btf here) in the guest: threads
# sharing one fd table contend on files_struct.file_lock (3 of them on 3
# CPUs: see run-vm.sh on why 2 hardly show); the profile passes fsck and
# the report shows the lock with its fd-path callers.
. "$(dirname "$0")/lib.sh"
require_feature tp_btf:lock

"$LOCKSTAT" record -q -e locks -o f.data -- "$WL/fdstorm" -t 3 -d 1 -q >wl.out 2>rec.err
check "record exits 0 for a workload that exits 0" test $? = 0 || show rec.err wl.out
ops=$(awk 'NR == 1 && /^[0-9]+$/' wl.out)
check "the workload ran (ops/s ${ops:-none})" test "${ops:-0}" -gt 0
check "record says nothing on stderr with -q" test ! -s rec.err
check "fsck passes" "$LOCKSTAT" fsck -q f.data

"$LOCKSTAT" report -i f.data >f.txt
check "report names the tp_btf probe" grep -q '^# probes: contention=tp_btf' f.txt
"$LOCKSTAT" report -i f.data -f csv >f.csv
check "report -f csv exits 0" test $? = 0
n=$(csv_sum f.csv lock files_struct.file_lock contended)
check "files_struct.file_lock contended > 0 ($n)" test "$n" -gt 0 || show f.txt
check "its type is spinlock" test "$(csv_col f.csv lock files_struct.file_lock type)" = spinlock
csv_col f.csv caller files_struct.file_lock caller >callers.txt
check "callers are on the fd allocate/close paths ($(tr '\n' ' ' <callers.txt))" \
	grep -Eq '^(alloc_fd|__alloc_fd|close_fd|__close_fd|pick_file|file_close_fd|do_dup2|ksys_dup3|put_unused_fd|fd_install)\+' callers.txt
# Exact where every wait carried a stack; else each caller is an estimate,
# and together they make the lock's count within their intervals' widths.
sum=$(csv_sum f.csv caller files_struct.file_lock contended)
est=$(csv_sum f.csv caller files_struct.file_lock estimated)
width=$(($(csv_sum f.csv caller files_struct.file_lock contended_ci95_hi) - \
	 $(csv_sum f.csv caller files_struct.file_lock contended_ci95_lo)))
if [ "$est" -gt 0 ]; then
	check "caller counts add up to the lock's, as estimates within their intervals ($sum of $n, widths $width)" \
		test "$n" -gt 0 -a "$(( sum > n ? sum - n : n - sum ))" -le "$width"
else
	check "caller counts add up to the lock's, exactly ($sum of $n)" test "$n" -gt 0 -a "$sum" = "$n"
fi
done_testing
