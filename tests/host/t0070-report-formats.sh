#!/bin/bash
# The report's text, JSON and CSV carry the same rows; options shape them.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" record -q -t -o r.data -- "$WL/fdstorm" -t 2 -d 1.5 -q >/dev/null
"$LOCKSTAT" report -i r.data -f json >r.json
check "JSON has the documented fields" jqe '
	(.meta | has("kernel") and has("cpus") and has("duration_ns") and has("command") and (.probes | has("contention"))) and
	(.lost | type == "object") and
	(.locks | length > 0) and
	(.locks | all(has("name") and has("type") and has("contended") and has("wait_total_ns") and has("wait_max_ns") and has("wait_avg_ns") and (.callers | all(has("symbol") and has("contended") and has("wait_total_ns"))))) and
	(.total.contended == ([.locks[].contended] | add))' r.json

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
check "text indents callers under their lock (~ marks an estimate)" grep -Eq '^ +~?[0-9].*  (alloc_fd|file_close_fd)\+0x' r.txt

check "-n 1 keeps one lock" jqe '.locks | length == 1' <("$LOCKSTAT" report -i r.data -n 1 -f json)
check "-k contended sorts by count" jqe '[.locks[].contended] | . == (sort | reverse)' <("$LOCKSTAT" report -i r.data -k contended -f json)
check "default sort is by total wait" jqe '[.locks[].wait_total_ns] | . == (sort | reverse)' r.json
check "--hist adds histograms that sum to the count" \
	jqe '.locks | all((.hist | map(.count) | add // 0) == .contended)' <("$LOCKSTAT" report -i r.data --hist -f json)
check "--hist text draws buckets" grep -q -- '->' <("$LOCKSTAT" report -i r.data --hist)
check "--stacks adds kernel frames to every sampled stack" \
	jqe '[.locks[] | select(.name == "files_struct.file_lock") | .stacks[] | select(.caller | startswith("[") | not) | .frames | length > 2] | (length > 0 and all)' <("$LOCKSTAT" report -i r.data --stacks -f json)
check "--caller filters by caller glob" \
	jqe '[.locks[].callers[].symbol] | length > 0 and all(startswith("alloc_fd"))' <("$LOCKSTAT" report -i r.data --caller 'alloc_fd*' -f json)
pid=$(jq -r '.meta.command' r.json >/dev/null; "$LOCKSTAT" report -i r.data --comm 'fdstorm*' -f json | jq '.total.contended')
check "--comm fdstorm keeps the workload's waits ($pid)" test "$pid" -gt 0
none=$("$LOCKSTAT" report -i r.data --comm 'nosuchcomm' -f json | jq '.total.contended')
check "--comm with no match gives an empty table" test "$none" = 0
done_testing
