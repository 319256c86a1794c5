#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# export writes a recording's samples as folded stacks, JSON, CSV and
# pprof; every one adds up to the total that report counts, and go tool
# pprof reads ours and agrees (skipped, with its reason, without go).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_perf_event; require_cmd jq; require_cmd gzip
sum_folded() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
hits_total() { "$LOCKSTAT" report -i x.data --view hits "$@" -f json | jq .total_samples; }

"$LOCKSTAT" record -q -e sample -F 499 -o x.data -- "$WL/hotspots" -d 2 -q >/dev/null 2>rec.err
check "record -e sample exits 0 ($?)" test $? = 0 || sed 's/^/# /' rec.err
total=$(hits_total)
check "the recording has samples ($total)" test "${total:-0}" -gt 0

"$LOCKSTAT" export -i x.data -o x.folded
check "folded: every line is 'frames count'" sh -c "test -s x.folded && ! grep -Evq '^[^ ;][^;]*(;[^;]+)* [0-9]+$' x.folded"
check "folded: its counts add up to report's total ($(sum_folded x.folded) = $total)" \
	test "$(sum_folded x.folded)" = "$total"
check "folded: root first, the command then hot_three at the leaf" grep -Eq '^hotspots;.*;hot_three [0-9]+$' x.folded
check "folded: lines in byte order, each stack once" sh -c \
	"sed 's/ [0-9]*\$//' x.folded | LC_ALL=C sort -c -u"
three=$(awk '/;hot_three [0-9]+$/ { s += $NF } END { print s + 0 }' x.folded)
one=$(awk '/;hot_one [0-9]+$/ { s += $NF } END { print s + 0 }' x.folded)
check "folded: hot_three has more samples than hot_one ($three > $one)" test "$three" -gt "$one"
check "export to standard output is the same as -o" cmp -s x.folded <("$LOCKSTAT" export -i x.data -f folded)

"$LOCKSTAT" export -i x.data --kernel --annotate-kernel >k.folded
"$LOCKSTAT" export -i x.data --user >u.folded
k=$(sum_folded k.folded) u=$(sum_folded u.folded)
check "--kernel and --user split the total ($k + $u = $total)" test $((k + u)) = "$total"
check "--kernel matches report --kernel" test "$k" = "$(hits_total --kernel)"
check "--annotate-kernel: every kernel leaf ends in _[k]" sh -c "test -s k.folded && ! grep -Evq '_\\[k\\] [0-9]+$' k.folded"
pid=$("$LOCKSTAT" export -i x.data -f json | jq '.stacks[0].pid')
check "--pid $pid matches report --pid" test "$(sum_folded <("$LOCKSTAT" export -i x.data --pid "$pid"))" = "$(hits_total --pid "$pid")"

"$LOCKSTAT" export -i x.data -f json >x.json
check "json: total and the stacks' values agree with report" \
	jqe ".total == $total and ([.stacks[].value] | add) == $total and .what == \"samples\" and (.stacks | all(.frames | length > 0))" x.json
"$LOCKSTAT" export -i x.data -f csv >x.csv
check "csv: header, and the first column adds up to the total" sh -c \
	"head -n 1 x.csv | grep -qx 'samples,comm,pid,frames' && test \"\$(awk -F, 'NR > 1 { s += \$1 } END { print s + 0 }' x.csv)\" = $total"

"$LOCKSTAT" export -i x.data -f pprof -o x.pb.gz
check "pprof: a valid gzip stream" gzip -t x.pb.gz
if command -v script >/dev/null 2>&1; then
	script -qec "'$LOCKSTAT' export -i '$T/x.data' -f pprof" /dev/null >tty.out 2>&1
	rc=$?
	check "pprof to a terminal: refused, exit 2 ($rc)" sh -c "test $rc = 2 && grep -q 'terminal' tty.out"
else
	skip_check SCRIPT "pprof to a terminal is refused" "script(1) is not installed (Debian: bsdutils)"
fi
if command -v go >/dev/null 2>&1; then
	HOME=${HOME:-$T} go tool pprof -top -sample_index=0 x.pb.gz >top.txt 2>top.err
	got=$(sed -n 's/.*Total samples = \([0-9]*\).*/\1/p' top.txt)
	check "go tool pprof: total samples equal ours (${got:-none} = $total)" test "${got:-x}" = "$total"
	check "go tool pprof: hot_three and hot_one by name" sh -c "grep -q ' hot_three\$' top.txt && grep -q ' hot_one\$' top.txt"
	bid=$(readelf -n "$WL/hotspots" 2>/dev/null | awk '/Build ID/ { print $3 }')
	check "go tool pprof: the program's mapping carries its build id" grep -q "^Build ID: ${bid:-none}\$" top.txt
else
	skip_check GO "go tool pprof agrees with our total" "go is not installed (Debian: golang-go)"
fi

# Lock waits, from a recorded fixture: no root needed for this part.
fix=$ROOT_DIR/tests/data/fdstorm.data
wait_total=$("$LOCKSTAT" report -i "$fix" -f json | jq .total.wait_total_ns)
check "locks: folded waits add up to report's total wait" \
	test "$(sum_folded <("$LOCKSTAT" export -i "$fix" -w locks))" = "$wait_total"
check "locks: the lock is the root frame" grep -q '^files_struct.file_lock;' <("$LOCKSTAT" export -i "$fix" -w locks)
contended=$("$LOCKSTAT" report -i "$fix" -f json | jq .total.contended)
check "locks: --value count adds up to report's contended" \
	test "$(sum_folded <("$LOCKSTAT" export -i "$fix" -w locks --value count))" = "$contended"

# -o replaces the file whole, or not at all.
echo keep >kept.folded
"$LOCKSTAT" export -i nosuch.data -o kept.folded 2>err
rc=$?
check "a failed export: exit 1, the target untouched, no temporary left ($rc)" sh -c \
	"test $rc = 1 && grep -qx keep kept.folded && ! ls kept.folded.* >/dev/null 2>&1"
"$LOCKSTAT" export -i x.data -f csv --annotate-kernel >/dev/null 2>err
check "an option of another format: exit 2, says so" sh -c "test $? = 2 && grep -q 'annotate-kernel' err"
done_testing
