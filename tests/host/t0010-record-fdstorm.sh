#!/bin/bash
# Threads sharing one fd table contend on files_struct.file_lock in the fd
# allocate/close paths; processes with their own tables do not.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" record -q -o threads.data -- "$WL/fdstorm" -t 2 -d 2 -q >/dev/null
check "record exits 0 for a workload that exits 0" test $? = 0
"$LOCKSTAT" report -i threads.data -f json >threads.json
check "report --format json parses" jq -e . threads.json >/dev/null

lock='.locks[] | select(.name == "files_struct.file_lock")'
contended=$(jq "[$lock | .contended] | add // 0" threads.json)
check "files_struct.file_lock contended > 1000 with 2 threads ($contended)" test "$contended" -gt 1000
check "its type is spinlock" jqe "[$lock | .type] | all(. == \"spinlock\")" threads.json
check "callers are on the fd allocate/close paths" \
	jqe "[$lock | .callers[].symbol | test(\"^(alloc_fd|file_close_fd|close_fd|__close_fd|__alloc_fd|do_dup2|ksys_dup3|put_unused_fd|fd_install)\")] | any" threads.json
check "wait totals are consistent (avg <= max, total >= max)" \
	jqe "[$lock | (.wait_avg_ns <= .wait_max_ns) and (.wait_total_ns >= .wait_max_ns) and (.wait_min_ns <= .wait_avg_ns)] | all" threads.json
check "p50 <= p99 <= max" jqe "[$lock | (.p50_ns <= .p99_ns) and (.p99_ns <= .wait_max_ns)] | all" threads.json
# Exact where every wait carried a stack; else each caller is an estimate,
# and together they make the lock's count within their intervals' widths.
check "caller counts add up to the lock's (exactly, or as estimates within their intervals)" \
	jqe "[$lock | if ([.callers[].estimated] | any) then
		((.contended - ([.callers[].contended] | add)) | fabs) <= ([.callers[] | .contended_ci95[1] - .contended_ci95[0]] | add)
		else .contended == ([.callers[].contended] | add) end] | length > 0 and all" threads.json
check "meta names the kernel, CPUs, duration, command and probe" \
	jqe '.meta.kernel != "" and .meta.cpus > 0 and .meta.duration_ns > 1000000000 and (.meta.command | test("fdstorm")) and (.meta.probes.contention | test("^(tp_btf|tracepoint)$"))' threads.json
check "lost counters are present" \
	jqe '.lost | has("missing_begin") and has("map_full") and has("stacks_full") and has("recursion_begin") and has("recursion_end")' threads.json

"$LOCKSTAT" record -q -o fork.data -- "$WL/fdstorm" -t 2 -d 2 --fork -q >/dev/null
"$LOCKSTAT" report -i fork.data -f json >fork.json
forked=$(jq "[$lock | .contended] | add // 0" fork.json)
check "with --fork the file_lock contention all but vanishes ($forked vs $contended)" \
	test $((forked * 100)) -lt "$contended"
# The shell forks fdstorm (the "; true" keeps it from exec'ing): only
# following forks can see its contention.
"$LOCKSTAT" record -q -o child.data -- sh -c "$WL/fdstorm -t 2 -d 1 -q >/dev/null; true"
"$LOCKSTAT" report -i child.data -f json >child.json
# Its waits, or where a busy machine kept the two threads apart, its samples.
followed() {
	jqe "[$lock | .contended] | add > 0" child.json ||
		jqe '.total_samples > 0' <("$LOCKSTAT" report -i child.data --view hits --comm 'fdstorm*' -f json)
}
check "a forked child of the workload is followed" followed
done_testing
