#!/bin/sh
# --attach tracepoint: the classic lock tracepoints (no BTF-typed
# arguments) record the same lock as tp_btf does.
. "$(dirname "$0")/lib.sh"
require_feature tracepoint:lock

"$LOCKSTAT" record -q --attach tracepoint -e locks -o tp.data -- "$WL/fdstorm" -t 3 -d 1 -q >wl.out 2>rec.err
check "record --attach tracepoint exits 0" test $? = 0 || show rec.err wl.out
check "record says nothing on stderr with -q" test ! -s rec.err
check "fsck passes" "$LOCKSTAT" fsck -q tp.data
"$LOCKSTAT" report -i tp.data >tp.txt
check "report names the classic tracepoint probe" grep -q '^# probes: contention=tracepoint ' tp.txt
"$LOCKSTAT" report -i tp.data -f csv >tp.csv
n=$(csv_sum tp.csv lock files_struct.file_lock contended)
check "classic tracepoints see files_struct.file_lock ($n)" test "$n" -gt 0 || show tp.txt
check "its type is spinlock" test "$(csv_col tp.csv lock files_struct.file_lock type)" = spinlock

"$LOCKSTAT" record -q --attach warp -o bad.data -- true 2>err
check "--attach with an unknown mode: exit 2" test $? = 2
done_testing
