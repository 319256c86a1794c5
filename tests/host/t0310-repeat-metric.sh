#!/bin/bash
# record --repeat N and --metric REGEX: the series of profiles diff takes,
# each holding the workload's own figure.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" record -q -e locks --repeat 2 --metric 'ops/s=([0-9]+)' -o r.data -- \
	"$WL/fdstorm" -t 2 -d 0.5 >out.txt
check "--repeat 2 exits 0 and writes r.1.data and r.2.data" test $? = 0 -a -s r.1.data -a -s r.2.data -a ! -e r.3.data
check "the workload's output is passed on, once per run" test "$(grep -c '^fdstorm: .*ops/s=' out.txt)" = 2
for i in 1 2; do
	want=$(grep '^fdstorm:' out.txt | sed -n "${i}p" | sed 's/.*ops\/s=//')
	check "run $i: META metric is ops/s = the workload's own figure ($want)" \
		jqe ".meta.metric.name == \"ops/s\" and .meta.metric.value == $want" <("$LOCKSTAT" report -i r.$i.data -f json)
	check "run $i: a complete profile" sh -c "$LOCKSTAT fsck r.$i.data >/dev/null"
done
check "report's header shows the metric" grep -q '^# metric: ops/s = [0-9]' <("$LOCKSTAT" report -i r.1.data)
check "diff compares the metric of the two series" \
	jqe '.metric.name == "ops/s"' <("$LOCKSTAT" diff -f json -b r.1.data -p r.2.data)

"$LOCKSTAT" record -q -e locks --metric 'speed=secs=([0-9.]+)' -o n.data -- "$WL/fdstorm" -t 1 -d 0.3 >/dev/null
check "NAME=REGEX names the metric" jqe '.meta.metric.name == "speed" and .meta.metric.value > 0' <("$LOCKSTAT" report -i n.data -f json)
"$LOCKSTAT" record -e locks --metric 'nomatch ([0-9]+)' -o x.data -- "$WL/fdstorm" -t 1 -d 0.2 >/dev/null 2>err
check "no matching line: a warning, and no metric in the profile" \
	sh -c "grep -q 'no line of the workload' err && $LOCKSTAT report -i x.data -f json | jq -e '.meta.metric == null' >/dev/null"

"$LOCKSTAT" record --metric '([' -- true 2>err
check "a bad regex is a usage error (exit 2) that names it" sh -c "test $? = 2 && grep -q 'metric' err"
"$LOCKSTAT" record --repeat 2 -a -d 0.1 2>err
check "--repeat without a command is a usage error" test $? = 2
"$LOCKSTAT" record --repeat 0 -- true 2>err
check "--repeat 0 is a usage error" test $? = 2
done_testing
