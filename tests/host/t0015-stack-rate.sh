#!/bin/bash
# Every wait is counted; stacks are taken for all of them with
# --stack-rate 0, and for a random sample above the rate otherwise.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq
lock='.locks[] | select(.name == "files_struct.file_lock")'

"$LOCKSTAT" record -q --stack-rate 0 -o all.data -- "$WL/fdstorm" -t 2 -d 1.5 -q >/dev/null
"$LOCKSTAT" report -i all.data -f json >all.json
check "--stack-rate 0: every wait has a stack" jqe "[$lock | .callers[].symbol | startswith(\"[\")] | (length > 0 and (any | not))" all.json
check "--stack-rate 0: meta says so" jqe '.meta.stack_rate == 0' all.json

"$LOCKSTAT" record -q --stack-rate 50 -o few.data -- "$WL/fdstorm" -t 2 -d 1.5 -q >/dev/null
"$LOCKSTAT" report -i few.data -f json >few.json
total=$(jq "[$lock | .contended] | add" few.json)
sampled=$(jq "[$lock | .callers[] | select(.symbol | startswith(\"[\") | not) | .contended] | add // 0" few.json)
echo "# $sampled of $total waits carry a stack at 50 stacks/s per CPU"
check "--stack-rate 50: some waits carry a stack ($sampled)" test "$sampled" -gt 0
check "--stack-rate 50: at most ~50/s per CPU are sampled ($sampled)" test "$sampled" -le $((50 * 2 * 3))
check "--stack-rate 50: the rest are counted under [stack not sampled]" \
	jqe "[$lock | .callers[] | select(.symbol == \"[stack not sampled]\") | .contended] | add > 0" few.json
check "--stack-rate 50: callers still add up to the lock's count" jqe "[$lock | .contended == ([.callers[].contended] | add)] | all" few.json
"$LOCKSTAT" record --stack-rate -5 -- true 2>/dev/null
check "--stack-rate with a negative number: exit 2" test $? = 2
done_testing
