#!/bin/bash
# Every wait is counted; stacks are taken for all of them with
# --stack-rate 0, and for a random sample above the rate otherwise.
# fdstorm's own line bounds the waits each path can have (one file_lock
# acquisition per dup in alloc_fd, one per close in file_close_fd).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq
lock='.locks[] | select(.name == "files_struct.file_lock")'
# waits_of JSON RE: the lock's waits from callers matching RE.
waits_of() { jq "[$lock | .callers[] | select(.symbol | test(\"$2\")) | .contended] | add // 0" "$1"; }

run_overlapped all.out "$LOCKSTAT" record -q --stack-rate 0 -o all.data -- "$WL/fdstorm" -t 2 -d 1.5
check "--stack-rate 0: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i all.data -f json >all.json
ops=$(field ops all.out)
if [ "$overlapped" = 1 ]; then
	check "--stack-rate 0: every wait has a stack" jqe "[$lock | .callers[].symbol | startswith(\"[\")] | (length > 0 and (any | not))" all.json
else
	concurrency_skip "--stack-rate 0: every wait has a stack"
fi
check "--stack-rate 0: meta says so" jqe '.meta.stack_rate == 0' all.json
dups=$(waits_of all.json '^alloc_fd') closes=$(waits_of all.json '^(file_close_fd|close_fd)')
check "alloc_fd's waits <= fdstorm's dups, file_close_fd's <= its closes ($dups, $closes <= $ops)" \
	test "$dups" -le "${ops:-0}" -a "$closes" -le "${ops:-0}"

run_overlapped few.out "$LOCKSTAT" record -q --stack-rate 50 -o few.data -- "$WL/fdstorm" -t 2 -d 1.5
check "--stack-rate 50: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i few.data -f json >few.json
total=$(jq "[$lock | .contended] | add // 0" few.json)
sampled=$(jq "[$lock | .callers[] | select(.symbol | startswith(\"[\") | not) | .contended] | add // 0" few.json)
unsampled=$(waits_of few.json '^\\[stack not sampled\\]$')
echo "# $sampled of $total waits carry a stack at 50 stacks/s per CPU"
check "--stack-rate 50: at most ~50/s per CPU are sampled ($sampled)" test "$sampled" -le $((50 * 2 * 3))
if [ "$overlapped" = 1 ]; then
	check "--stack-rate 50: some waits carry a stack ($sampled)" test "$sampled" -gt 0
	check "--stack-rate 50: the rest are counted under [stack not sampled] ($unsampled)" test "$unsampled" -gt 1000
else
	concurrency_skip "--stack-rate 50: some waits carry a stack, the rest are counted under [stack not sampled]"
fi
ops=$(field ops few.out)
check "--stack-rate 50: no more waits than fdstorm's two acquisitions an op ($total <= 2 x $ops)" \
	test "$total" -le $((2 * ${ops:-0} + 100))
"$LOCKSTAT" record --stack-rate -5 -- true 2>/dev/null
check "--stack-rate with a negative number: exit 2" test $? = 2
done_testing
