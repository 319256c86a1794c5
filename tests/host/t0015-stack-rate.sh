#!/bin/bash
# Every wait is counted, and has a caller: with --stack-rate 0 each one
# carries its stack (exact callers); above the rate a random sample does,
# each sampled wait weighed by the inverse of its probability, so that the
# callers are estimates (marked so, with a 95 % interval) whose sum is the
# lock's exact count within sampling error, and never a caller
# "[stack not sampled]". fdstorm's own line bounds the waits each path can
# have (one file_lock acquisition per dup in alloc_fd, one per close in
# file_close_fd).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq
lock='.locks[] | select(.name == "files_struct.file_lock")'
# waits_of JSON RE: the lock's waits from callers matching RE.
waits_of() { jq "[$lock | .callers[] | select(.symbol | test(\"$2\")) | .contended] | add // 0" "$1"; }
# consistent JSON: the callers add up to the lock (exactly when none is an
# estimate, else within the widths of their 95 % intervals added up).
consistent() {
	jqe "[$lock | if ([.callers[].estimated] | any) then
		((.contended - ([.callers[].contended] | add)) | fabs) <= ([.callers[] | .contended_ci95[1] - .contended_ci95[0]] | add)
		else .contended == ([.callers[].contended] | add) end] | length > 0 and all" "$1"
}

run_overlapped all.out "$LOCKSTAT" record -q --stack-rate 0 -o all.data -- "$WL/fdstorm" -t 2 -d 1.5
check "--stack-rate 0: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i all.data -f json >all.json
ops=$(field ops all.out)
check "--stack-rate 0: meta says so" jqe '.meta.stack_rate == 0' all.json
check "--stack-rate 0: no wait's stack thinned (meta stack_thin_ns 0)" jqe '.meta.stack_thin_ns == 0' all.json
if [ "$overlapped" = 1 ]; then
	check "--stack-rate 0: every caller is a function, none an estimate" \
		jqe "[$lock | .callers[] | (.symbol | startswith(\"[\") | not) and (.estimated | not)] | length > 0 and all" all.json
	check "--stack-rate 0: the callers add up to the lock's count, exactly" \
		jqe "[$lock | .contended == ([.callers[].contended] | add)] | length > 0 and all" all.json
else
	concurrency_skip "--stack-rate 0: every wait has a stack, the callers add up exactly"
fi
dups=$(waits_of all.json '^alloc_fd') closes=$(waits_of all.json '^(file_close_fd|close_fd)')
check "alloc_fd's waits <= fdstorm's dups, file_close_fd's <= its closes ($dups, $closes <= $ops)" \
	test "$dups" -le "${ops:-0}" -a "$closes" -le "${ops:-0}"

secs=3
run_overlapped few.out "$LOCKSTAT" record -q --stack-rate 50 -o few.data -- "$WL/fdstorm" -t 2 -d $secs
check "--stack-rate 50: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i few.data -f json >few.json
cpus=$(jq .meta.cpus few.json)
total=$(jq "[$lock | .contended] | add // 0" few.json)
sampled=$(jq "[$lock | .callers[] | .sampled // .contended] | add // 0" few.json)
# A second's worth in the bucket at the start, then 50 a second per CPU.
budget=$((50 * cpus * (secs + 2)))
echo "# $sampled of $total waits carried a stack at 50 stacks/s per CPU"
check "--stack-rate 50: meta says so" jqe '.meta.stack_rate == 50' few.json
check "short waits' stacks thinned by default, under 65536 ns" jqe '.meta.stack_thin_ns == 65536' few.json
"$LOCKSTAT" record -q --stack-thin 0 -o nothin.data -- true
check "--stack-thin 0: meta says none" jqe '.meta.stack_thin_ns == 0' <("$LOCKSTAT" report -i nothin.data -f json)
"$LOCKSTAT" record -q --stack-thin 100000 -o thin.data -- true
check "--stack-thin 100000: the power of two below it (65536)" \
	jqe '.meta.stack_thin_ns == 65536' <("$LOCKSTAT" report -i thin.data -f json)
"$LOCKSTAT" record -q --stack-thin many -o bad.data -- true 2>bad.err
rc=$?
check "--stack-thin many: exit 2 ($rc), nothing written: $(head -n 1 bad.err)" \
	test $rc = 2 -a ! -e bad.data -a "$(grep -c -- '--stack-thin' bad.err)" = 1
check "--stack-rate 50: at most ~50/s per CPU carried a stack ($sampled <= $budget)" test "$sampled" -le "$budget"
check "--stack-rate 50: no caller is [stack not sampled]" \
	jqe '[.locks[].callers[].symbol] | index("[stack not sampled]") == null' few.json
ops=$(field ops few.out)
check "--stack-rate 50: no more waits than fdstorm's two acquisitions an op ($total <= 2 x $ops)" \
	test "$total" -le $((2 * ${ops:-0} + 100))
"$LOCKSTAT" report -i few.data >few.txt
if [ "$overlapped" != 1 ]; then
	concurrency_skip "--stack-rate 50: the callers are estimates that add up to the lock's count"
elif [ "$total" -gt "$budget" ]; then
	check "--stack-rate 50: more waits than stacks, so the callers are estimates ($total waits)" \
		jqe "[$lock | .callers[] | .estimated and .sampled > 0 and (.contended_ci95 | length == 2)] | length > 0 and all" few.json
	check "--stack-rate 50: the callers add up to the lock's count" consistent few.json
	check "--stack-rate 50: text marks the estimates with ~" grep -Eq '^ +~[0-9]+ +~[0-9.]+ [mun]?s .*  (alloc_fd|file_close_fd)\+0x' few.txt
	check "--stack-rate 50: and says how many waits carried a stack" grep -q '^# callers: "~" marks estimates from the [0-9]* of [0-9]* waits' few.txt
else
	check "--stack-rate 50: no more waits than stacks ($total), so the callers are exact" \
		jqe "[$lock | .callers[] | .estimated | not] | length > 0 and all" few.json
	check "--stack-rate 50: the callers add up to the lock's count" consistent few.json
fi

# Many locks: 16 fdstorms, a file_lock each, taking turns on the CPUs,
# each lock group quiet before its turn: the budget holds only because a
# lock's first wait alone is free and a quiet group counts as an average
# one (a free first wait per quiet group and window, and storms starting
# at p = 1, took 2700 to 3700 stacks against this budget of 2000).
# (At 50 a second, 20 ms windows, the storms' onsets still go 20 to 50 %
# over: lockstat-record(1).)
cat >many.sh <<EOF
#!/bin/sh
for i in \$(seq 16); do "$WL/fdstorm" -t 2 -d $secs >/dev/null & done
wait
EOF
chmod +x many.sh
"$LOCKSTAT" record -q --stack-rate 200 -o many.data -- ./many.sh
check "--stack-rate 200, 16 processes: record exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i many.data -f json >many.json
total=$(jq '[.locks[] | .contended] | add // 0' many.json)
sampled=$(jq '[.locks[] | .callers[] | .sampled // .contended] | add // 0' many.json)
budget=$((200 * cpus * (secs + 2)))
echo "# 16 processes: $sampled of $total waits carried a stack at 200 stacks/s per CPU"
check "--stack-rate 200, 16 processes: more waits than the budget ($total > $budget)" test "$total" -gt "$budget"
check "--stack-rate 200, 16 processes: at most ~200/s per CPU carried a stack ($sampled <= $budget)" \
	test "$sampled" -le "$budget"
check "--stack-rate 200, 16 processes: every lock has a caller" \
	jqe '[.locks[] | select(.contended > 0) | .callers | length > 0] | length > 0 and all' many.json
check "--stack-rate 200, 16 processes: the callers add up to the lock's count" consistent many.json

# The default: 250 stacks a second per CPU (the stacks are most of what
# the lock probes cost a workload of many locks: lockstat-record(1)).
"$LOCKSTAT" record -q -e locks,-mmap_lock -o def.data -- "$WL/fdstorm" -t 2 -d 2 >/dev/null
"$LOCKSTAT" report -i def.data -f json >def.json
sampled=$(jq '[.locks[] | .callers[] | .sampled // .contended] | add // 0' def.json)
check "the default rate is 250 ($(jq .meta.stack_rate def.json))" jqe '.meta.stack_rate == 250' def.json
check "and fdstorm, 2 s, takes at most ~250 stacks/s per CPU ($sampled <= $((250 * cpus * 4)))" \
	test "$sampled" -gt 0 -a "$sampled" -le $((250 * cpus * 4))

"$LOCKSTAT" record --stack-rate -5 -- true 2>/dev/null
check "--stack-rate with a negative number: exit 2" test $? = 2
done_testing
