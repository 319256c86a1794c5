#!/bin/bash
# The report's text, JSON and CSV carry the same rows; options shape them.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

run_overlapped r.out "$LOCKSTAT" record -q -t -o r.data -- "$WL/fdstorm" -t 2 -d 1.5
check "record -t exits 0 ($?)" test $? = 0
"$LOCKSTAT" report -i r.data -f json >r.json
check "JSON has the documented fields" jqe '
	(.meta | has("kernel") and has("cpus") and has("duration_ns") and has("command") and (.probes | has("contention"))) and
	(.lost | type == "object") and
	(.locks | length > 0) and
	(.locks | all(has("name") and has("type") and has("contended") and has("wait_total_ns") and has("wait_max_ns") and has("wait_avg_ns") and (.callers | length > 0 and all(has("symbol") and has("contended") and has("wait_total_ns")))))' r.json
# export reads the profile's rows on a path of its own: its folded lock
# waits add up to report's totals, count and wait, lock by lock.
"$LOCKSTAT" export -i r.data -w locks --value count >count.folded
"$LOCKSTAT" export -i r.data -w locks >wait.folded
by_lock() { awk '{ n = $NF; sub(/;.*/, ""); s[$0] += n } END { for (l in s) print l, s[l] }' "$1" | sort; }
check "report's total is export's, count and wait" test \
	"$(jq -r '"\(.total.contended) \(.total.wait_total_ns)"' r.json)" = \
	"$(awk '{ s += $NF } END { printf "%d ", s }' count.folded)$(awk '{ s += $NF } END { printf "%d", s }' wait.folded)"
check "report's per-lock counts are export's" test \
	"$(jq -r '[.locks[] | select(.contended > 0) | {name, contended}] | group_by(.name)[] | "\(.[0].name) \(map(.contended) | add)"' r.json | sort)" = "$(by_lock count.folded)"

"$LOCKSTAT" report -i r.data -f csv >r.csv
cols=$(awk -F, '{ print NF }' r.csv | sort -u | wc -l)
check "CSV has a constant column count" test "$cols" = 1
check "CSV header names the columns" grep -q '^row,lock,type,caller,contended,wait_total_ns' r.csv
json_total=$(jq .total.contended r.json)
csv_total=$(awk -F, '$1 == "total" { print $5 }' r.csv)
check "CSV total equals JSON total ($csv_total = $json_total)" test "$csv_total" = "$json_total"

"$LOCKSTAT" report -i r.data >r.txt
check "text header names kernel, CPUs and probes" sh -c "grep -q '^# kernel .* CPUs' r.txt && grep -q '^# probes: contention=' r.txt"
check "text has a TOTAL row" grep -Eq '^ +[0-9]+ .*TOTAL$' r.txt

check "-n 1 keeps one lock" jqe '.locks | length == 1' <("$LOCKSTAT" report -i r.data -n 1 -f json)
check "-k contended sorts by count" jqe '[.locks[].contended] | length > 1 and . == (sort | reverse)' <("$LOCKSTAT" report -i r.data -k contended -f json)
check "default sort is by total wait" jqe '[.locks[].wait_total_ns] | length > 1 and . == (sort | reverse)' r.json
check "--hist adds histograms that sum to the count" \
	jqe '.locks | length > 0 and all((.hist | map(.count) | add // 0) == .contended)' <("$LOCKSTAT" report -i r.data --hist -f json)
check "--hist text draws buckets" grep -q -- '->' <("$LOCKSTAT" report -i r.data --hist)
if [ "$overlapped" = 1 ]; then
	check "text indents callers under their lock" grep -Eq '^ +[0-9].*  (alloc_fd|file_close_fd)\+0x' r.txt
	check "--stacks adds kernel frames to every sampled stack" \
		jqe '[.locks[] | select(.name == "files_struct.file_lock") | .stacks[] | select(.caller | startswith("[") | not) | .frames | length > 2] | (length > 0 and all)' <("$LOCKSTAT" report -i r.data --stacks -f json)
	check "--caller filters by caller glob" \
		jqe '[.locks[].callers[].symbol] | length > 0 and all(startswith("alloc_fd"))' <("$LOCKSTAT" report -i r.data --caller 'alloc_fd*' -f json)
	comm=$("$LOCKSTAT" report -i r.data --comm 'fdstorm*' -f json | jq '.total.contended')
	check "--comm fdstorm keeps the workload's waits ($comm)" test "$comm" -gt 0
else
	concurrency_skip "callers in text, --stacks, --caller and --comm on file_lock's waits"
fi
none=$("$LOCKSTAT" report -i r.data --comm 'nosuchcomm' -f json | jq '.total.contended')
check "--comm with no match gives an empty table" test "$none" = 0
done_testing
