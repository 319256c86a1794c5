#!/bin/bash
# Threads sharing one fd table contend on files_struct.file_lock in the fd
# allocate/close paths; processes with their own tables do not. The
# workload's own line says how many dup+close pairs it did (each takes
# file_lock twice) and how much its two workers ran at once.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

run_overlapped threads.out "$LOCKSTAT" record -q -o threads.data -- "$WL/fdstorm" -t 2 -d 2
rc=$?
check "record exits 0 for a workload that exits 0 ($rc)" test $rc = 0
"$LOCKSTAT" report -i threads.data -f json >threads.json
check "report --format json parses, the profile is complete" jqe '.meta.complete' threads.json
ops=$(field ops threads.out)
echo "# fdstorm: $(tail -n 1 threads.out)"

lock='.locks[] | select(.name == "files_struct.file_lock")'
contended=$(jq "[$lock | .contended] | add // 0" threads.json)
if [ "$overlapped" = 1 ]; then
	check "files_struct.file_lock contended > 1000 with 2 threads that ran at once $overlap ($contended)" \
		test "$contended" -gt 1000
else
	concurrency_skip "files_struct.file_lock contended > 1000 with 2 threads"
fi
# Each op takes file_lock twice (alloc_fd, file_close_fd); the main thread a few times more.
check "no more waits than the workload's acquisitions ($contended <= 2 x $ops ops + 100)" \
	test "$contended" -le $((2 * ${ops:-0} + 100))
check "its type is spinlock" jqe "[$lock | .type] | length == 1 and all(. == \"spinlock\")" threads.json
check "callers are on the fd allocate/close paths" \
	jqe "[$lock | .callers[].symbol | test(\"^(alloc_fd|file_close_fd|close_fd|__close_fd|__alloc_fd|do_dup2|ksys_dup3|put_unused_fd|fd_install)\")] | any" threads.json
check "wait totals are consistent (min <= avg <= max <= total)" \
	jqe "[$lock | (.wait_avg_ns <= .wait_max_ns) and (.wait_total_ns >= .wait_max_ns) and (.wait_min_ns <= .wait_avg_ns)] | length == 1 and all" threads.json
check "p50 <= p99 <= max" jqe "[$lock | (.p50_ns <= .p99_ns) and (.p99_ns <= .wait_max_ns)] | length == 1 and all" threads.json
check "meta names the kernel, CPUs, duration, command and probe" \
	jqe '.meta.kernel != "" and .meta.cpus > 0 and .meta.duration_ns > 1000000000 and (.meta.command | test("fdstorm")) and (.meta.probes.contention | test("^(tp_btf|tracepoint)$"))' threads.json
check "lost counters are present" jqe '.lost | has("missing_begin") and has("map_full") and has("stack_collision")' threads.json

# Processes that ran at once as much as the threads did, each on its own table.
run_overlapped fork.out "$LOCKSTAT" record -q -o fork.data -- "$WL/fdstorm" -t 2 -d 2 --fork
rc=$?
check "--fork: record exits 0 ($rc), fdstorm ran as processes" \
	sh -c "test $rc = 0 && grep -q '^fdstorm: mode=processes .*ops=[1-9]' fork.out"
"$LOCKSTAT" report -i fork.data -f json >fork.json
check "--fork: the profile is complete" jqe '.meta.complete' fork.json
forked=$(jq "[$lock | .contended] | add // 0" fork.json)
if [ "$overlapped" = 1 ] && [ "$contended" -gt 1000 ]; then
	check "with --fork the file_lock contention all but vanishes ($forked vs $contended)" \
		test $((forked * 100)) -lt "$contended"
else
	concurrency_skip "with --fork the file_lock contention all but vanishes ($forked vs $contended)"
fi

# The shell forks fdstorm (the "; true" keeps it from exec'ing): only
# following forks can see its contention. Its samples name it too, so a
# busy machine that kept its threads apart still shows it was followed.
run_overlapped child.out "$LOCKSTAT" record -q -o child.data -- sh -c "$WL/fdstorm -t 2 -d 1; true"
"$LOCKSTAT" report -i child.data -f json >child.json
"$LOCKSTAT" report -i child.data --view hits --comm 'fdstorm*' -f json >child-hits.json
check "a forked child of the workload is followed: its samples are there" jqe '.total_samples > 0' child-hits.json
if [ "$overlapped" = 1 ]; then
	check "a forked child of the workload is followed: its waits are there" jqe "[$lock | .contended] | add > 0" child.json
else
	concurrency_skip "a forked child of the workload is followed: its waits are there"
fi
done_testing
