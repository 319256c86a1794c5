#!/bin/bash
# The fd family and report --view fd: threads sharing one fd table are
# counted as such and their file_lock contention is joined to them; with
# --fork each process has its own table. Where neither fentry nor kprobes
# work (as on a kernel without CONFIG_KPROBES that refuses trampolines)
# the fget part says why it was not measured and the rest still works.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq
require_tracepoint raw_syscalls sys_enter sys_exit
"$LOCKSTAT" probe >probe.txt 2>/dev/null
fget_possible=0
grep -Eq '^(fentry|kprobe) +yes' probe.txt && fget_possible=1

# fdstorm -t 2: the main thread (the start pipes, the result line) and
# two workers (dup+close), all three on one fd table.
run_overlapped t.out "$LOCKSTAT" record -q -e locks,fd -o t.data -- "$WL/fdstorm" -t 2 -d 1
check "record -e locks,fd exits 0 ($?)" test $? = 0
t_overlapped=$overlapped
"$LOCKSTAT" report -i t.data --view fd -f json >t.json
check "report --view fd -f json parses" jqe . t.json
proc='.fd[] | select(.comm == "fdstorm")'
check "one fdstorm process" jqe "[$proc] | length == 1" t.json
threads=$(jq "[$proc | .threads] | first // 0" t.json)
check "3 threads share its fd table (main + 2 workers) ($threads)" test "$threads" = 3
check "each of the 3 threads is listed as sharing it" \
	jqe "[$proc | .threads_detail[] | select(.shares_fd_table)] | length == 3" t.json
dups=$(jq "[$proc | .top_syscalls[] | select(.syscall == \"dup\" or .syscall == \"close\") | .calls] | add // 0" t.json)
check "dup and close are its top fd syscalls ($dups calls)" test "$dups" -gt 1000
# One op is a dup and a close: fdstorm's own count, against the syscalls counted.
ops=$(field ops t.out)
check "dup and close counted: at least fdstorm's 2 x $ops ops, top ones <= total, rate > 0" \
	jqe "[$proc | ([.top_syscalls[] | select(.syscall == \"dup\" or .syscall == \"close\") | .calls] | add) >= 2 * ${ops:-1e99} and
		(([.top_syscalls[].calls] | add) <= .fd_syscalls) and .fd_syscalls_per_s > 0] | length == 1 and all" t.json
contended=$(jq "[$proc | .file_lock_contended] | first // 0" t.json)
locks=$("$LOCKSTAT" report -i t.data -f json | jq '[.locks[] | select(.name == "files_struct.file_lock") | .contended] | add // 0')
check "its file_lock contention equals the locks view's files_struct.file_lock ($contended = $locks)" test "$contended" = "$locks"
if [ "$overlapped" = 1 ]; then
	check "its file_lock contention is joined ($contended waits)" test "$contended" -gt 100
	check "wait total and % of time are consistent" \
		jqe "[$proc | .file_lock_wait_ns > 0 and .file_lock_wait_pct > 0 and .file_lock_wait_pct < 100 * 2] | length == 1 and all" t.json
else
	concurrency_skip "its file_lock contention is joined, with its wait and % of time"
fi
if [ "$fget_possible" = 1 ]; then
	check "fget family measured: calls > 0" jqe ".fd_probe.fget_measured and ([$proc | .fget_calls] | first > 0)" t.json
else
	check "fget: not measured, with the reason, and no numbers" \
		jqe ".fd_probe.fget_measured == false and (.fd_probe.fget_why | test(\"fentry\")) and ([$proc | .fget_calls] | first == null)" t.json
fi

# --fork: every worker a process with a table of its own.
run_overlapped f.out "$LOCKSTAT" record -q -e locks,fd -o f.data -- "$WL/fdstorm" -t 2 -d 1 --fork
check "--fork: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i f.data --view fd -f json >f.json
check "--fork: three fdstorm processes (main + 2 workers)" jqe "[$proc] | length == 3" f.json
check "--fork: each has its own table, 1 thread" jqe "[$proc | .threads] | length == 3 and all(. == 1)" f.json
forked=$(jq "[$proc | .file_lock_contended] | add" f.json)
if [ "$overlapped" = 1 ] && [ "$t_overlapped" = 1 ]; then
	check "--fork: file_lock contention all but vanishes ($forked vs $contended)" \
		test "${forked:-x}" -ge 0 -a $((${forked:-0} * 100)) -lt "$contended"
else
	concurrency_skip "--fork: file_lock contention all but vanishes ($forked vs $contended)"
fi

# CSV and text: the same columns.
"$LOCKSTAT" report -i t.data --view fd -f csv >t.csv
cols=$(awk -F, '{ print NF }' t.csv | sort -u | wc -l)
check "CSV has a constant column count" test "$cols" = 1
check "CSV header names the columns" \
	grep -q '^pid,comm,threads,fd_syscalls,fd_syscalls_per_s,fget_calls,fget_per_s,fget_avg_ns,fget_max_ns,file_lock_contended,file_lock_wait_ns,file_lock_wait_pct,top_syscalls$' t.csv
csv_threads=$(awk -F, '$2 == "fdstorm" { print $3 }' t.csv)
check "CSV has the fdstorm row with 3 threads ($csv_threads)" test "$csv_threads" = 3
"$LOCKSTAT" report -i t.data --view fd >t.txt
check "text has the fdstorm row" grep -Eq '^ +[0-9]+ +fdstorm +3 ' t.txt
if [ "$fget_possible" = 0 ]; then
	check "text says fget was not measured, and why" grep -q '^# fget: not measured on this kernel: .*fentry' t.txt
fi

# An explicit --attach=fentry where fentry cannot load: one clear line,
# the syscalls still recorded.
if ! grep -Eq '^fentry +yes' probe.txt; then
	"$LOCKSTAT" record --attach=fentry -e fd -o e.data -- "$WL/fdstorm" -t 2 -d 0.5 -q >/dev/null 2>e.err
	check "record --attach=fentry -e fd exits 0" test $? = 0
	check "with one warning line naming fentry" test "$(grep -c 'fd: fget not measured.*fentry' e.err)" = 1
	check "which is the only warning" test "$(grep -c 'warning' e.err)" = 1
	"$LOCKSTAT" report -i e.data --view fd -f json >e.json
	check "its fd view still counts the syscalls and threads" \
		jqe "([$proc | .fd_syscalls > 1000 and .threads == 3] | length == 1 and all) and (.fd_probe.fget_why | test(\"^--attach=fentry: \"))" e.json
	check "file_lock columns are null without -e locks" jqe "[$proc | .file_lock_contended == null] | length == 1 and all" e.json
fi

"$LOCKSTAT" record -q -e locks -o l.data -- "$WL/fdstorm" -t 2 -d 0.3 -q >/dev/null
"$LOCKSTAT" report -i l.data --view fd >l.out 2>l.err
rc=$?
check "--view fd of a profile without -e fd fails and says so" \
	sh -c "test $rc = 1 && grep -q 'record with -e fd' l.err"
done_testing
