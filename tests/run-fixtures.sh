#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# No-root tier: the ASan/UBSan build of the tool reads the recorded
# fixtures in tests/data (report in every format, fsck, cut files).
# A sanitizer report fails the check it happens in, whatever the exit
# status says and wherever the output went: "$ls" is lockstat-san.sh,
# which runs the sanitized binary with exit codes of their own (ASan 99,
# UBSan 98, which no lockstat exit uses) and logs any report for check().
# ASAN_LOCKSTAT and WORKLOADS: the builds to use (default: build at the top).
set -o pipefail
dir=$(cd "$(dirname "$0")" && pwd)
export SAN_BIN=${ASAN_LOCKSTAT:-$dir/../build/asan/lockstat}
WL=${WORKLOADS:-$dir/../build/workloads}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=98
pass=0 fail=0 skip=0
tmp=$(mktemp -d /tmp/lockstat-fix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export SAN_LOG=$tmp/sanitizer.log
san_log=$SAN_LOG
ls=$dir/lockstat-san.sh

[ -x "$SAN_BIN" ] || { echo "not ok - fixtures: $SAN_BIN is not built (make unit-tests)"; echo "fixtures: 0 passed, 1 failed, 0 skipped"; exit 1; }

check() {
	local what=$1
	shift
	: >"$san_log"
	if "$@" >"$tmp/out" 2>"$tmp/err" && ! [ -s "$san_log" ]; then
		pass=$((pass + 1)); echo "ok - fixtures: $what"
	else
		fail=$((fail + 1)); echo "not ok - fixtures: $what"
		cat "$san_log"
		head -n 20 "$tmp/err"
	fi
}

json_ok() { "$ls" report -i "$1" -f json --hist --stacks | jq -e '.locks | length > 0' >/dev/null; }
csv_ok() { "$ls" report -i "$1" -f csv | awk -F, 'NR == 1 { n = NF } NF != n { exit 1 } END { exit NR < 2 }'; }
# The text formatter's TOTAL row says what the JSON writer's total says.
text_ok() {
	local t j
	"$ls" report -i "$1" --hist --stacks >"$tmp/text" &&
	t=$(awk '/ TOTAL$/ { print $1 }' "$tmp/text") && j=$("$ls" report -i "$1" -f json | jq .total.contended) &&
	[ -n "$t" ] && [ "$t" = "$j" ] || { echo "text TOTAL '$t', JSON total '$j'" >&2; return 1; }
}
hits_ok() { "$ls" report -i "$dir/data/hotspots.data" --view hits -f json | jq -e '[.functions[].symbol] | index("hot_three") != null' >/dev/null; }
lines_ok() { "$ls" report -i "$dir/data/hotspots.data" --view hits --lines >"$tmp/lines" && grep -q 'hotspots.c:[0-9]' "$tmp/lines"; }
graph_ok() { "$ls" report -i "$dir/data/fdstorm.data" --view hits --callers alloc_fd -f csv >"$tmp/graph" && grep -q '^[0-9]*,[0-9.]*,k,__x64_sys_dup,' "$tmp/graph"; }
named_ok() { "$ls" report -i "$dir/data/fdstorm.data" --comm 'fdstorm*' -f json | jq -e '[.locks[].name] | index("files_struct.file_lock") != null' >/dev/null; }
# diff's counts and wait totals, each side, are report's (a second reader
# of the same files), lock for lock; a lock on one side only has 0 events
# on the other. diff never matches locks by address: those are one
# "[anon]" row a type.
diff_counts_ok() {
	local a=$dir/data/fdstorm.data b=$dir/data/vm61-fdstorm.data side f
	"$ls" diff -f json "$a" "$b" >"$tmp/diff.json" 2>/dev/null || return 1
	for side in base patched; do
		[ $side = base ] && f=$a || f=$b
		"$ls" report -i "$f" -f json >"$tmp/$side.json" || return 1
		jq -e -n --slurpfile d "$tmp/diff.json" --slurpfile r "$tmp/$side.json" --arg s $side '
			($r[0].locks | map(.name |= (if test("^0x[0-9a-f]+$") then "[anon]" else . end)) |
			 group_by(.name + " " + .type) |
			 map({key: (.[0].name + " " + .[0].type), value: [(map(.contended) | add), (map(.wait_total_ns) | add)]}) |
			 from_entries) as $want |
			($d[0].rows | map({key: (.name + " " + .type), value: [.[$s].events, .[$s].total]}) | from_entries) as $got |
			($want | length) > 0 and
			all($want | to_entries[]; $got[.key] == .value) and
			all($got | to_entries[]; $want[.key] // [0, 0] == .value)' >/dev/null ||
			{ echo "diff's $side side differs from report of $f" >&2; return 1; }
	done
}
diff_usage_ok() {
	local a f=$dir/data/fdstorm.data
	for a in "-f png" "-V nope" "--adjust x" "--test x" "--alpha 0" "-n x" "--value x" "-f svg -n 3"; do
		"$ls" diff $a "$f" "$f" >/dev/null 2>&1
		[ $? = 2 ] || { echo "diff $a: not a usage error" >&2; return 1; }
	done
}
svg_ok() { "$ls" export -i "$dir/data/fdstorm.data" -f svg "$@" | xmllint --noout -; }
svgs_ok() { svg_ok && svg_ok -w locks; }
diff_new_gone_ok() { "$ls" diff -V hits -f csv "$dir/data/hotspots.data" "$dir/data/fdstorm.data" | awk -F, 'NR == 1 { n = NF } NF != n { exit 1 } /,new,/ { nw = 1 } /,gone,/ { g = 1 } END { exit !(nw && g) }'; }

cuts_ok() {
	local f=$1 size off rc
	size=$(stat -c %s "$f")
	for off in $(seq 0 1 70) $(seq 71 13 "$size"); do
		head -c "$off" "$f" >"$tmp/cut"
		"$ls" report -i "$tmp/cut" -f json >/dev/null 2>"$tmp/cut.err"
		rc=$?
		[ $rc -le 1 ] && ! [ -s "$san_log" ] || { echo "exit $rc at offset $off" >&2; cat "$tmp/cut.err" >&2; return 1; }
	done
}

# CSV and JSON carry the same columns. csv_keys ARGS: the CSV header's
# names, sorted; json_keys JQ ARGS: the keys jq lists, sorted.
csv_keys() { "$ls" report "$@" -f csv | head -n 1 | tr , '\n' | sort | tr '\n' ' '; }
json_keys() { local q=$1; shift; "$ls" report "$@" -f json | jq -r "$q" | sort | tr '\n' ' '; }
same_keys() {
	[ "$1" = "$2" ] || { echo "CSV: $1" >&2; echo "JSON: $2" >&2; return 1; }
}
# A locks CSV line is a lock, caller or total object (lock and caller are
# JSON's name and symbol, row is the nesting).
# (A 95 % interval is a JSON pair and two CSV columns, _lo and _hi; the
# waits that gave up are a JSON array and CSV rows of their own.)
csv_json_same_ok() {
	same_keys "$(csv_keys -i "$1" | sed 's/\brow //')" \
		"$(json_keys '[(.locks[] | keys[]), (.locks[].callers[] | keys[]), (.total | keys[])] |
			map(select(. != "callers" and . != "gave_up") |
			    if . == "name" then "lock" elif . == "symbol" then "caller"
			    elif . == "contended_ci95" then ("contended_ci95_lo", "contended_ci95_hi")
			    elif . == "wait_total_ci95_ns" then ("wait_total_ci95_lo_ns", "wait_total_ci95_hi_ns")
			    elif . == "acquired_ci95" then ("acquired_ci95_lo", "acquired_ci95_hi")
			    elif . == "hold_total_ci95_ns" then ("hold_total_ci95_lo_ns", "hold_total_ci95_hi_ns")
			    else . end) |
			unique[]' -i "$1")"
}
# The hit list, per function and per line (source is JSON's file and line).
hits_same_ok() {
	local f=$dir/data/hotspots.data q='[.functions[] | keys[]] | unique[]'
	same_keys "$(csv_keys -i "$f" --view hits)" "$(json_keys "$q" -i "$f" --view hits)" &&
	same_keys "$(csv_keys -i "$f" --view hits --lines | sed 's/\bsource //')" "$(json_keys "$q" -i "$f" --view hits --lines)"
}

# diff: CSV's columns are JSON's (a group's members as group_key; a lock's
# or function's name and type or module are CSV's name and detail, a
# caller's symbol CSV's caller; row is the nesting).
diff_same_ok() {
	local f=$dir/data/fdstorm.data g=$dir/data/vm61-fdstorm.data q
	q='def flat: to_entries | map(if (.value | type) == "object" then (.key as $g | .value | keys[] | "\($g)_\(.)") else .key end);
	   [(.rows[], .total | flat[] | if . == "symbol" and $hits then "name" elif . == "type" or . == "module" then "detail" else . end),
	    (.rows[].callers[]? | flat[] | if . == "symbol" then "caller" else . end)] | map(select(. != "callers")) | unique[]'
	same_keys "$("$ls" diff -f csv "$f" "$g" 2>/dev/null | head -n 1 | tr , '\n' | grep -vx row | sort | tr '\n' ' ')" \
		"$("$ls" diff -f json "$f" "$g" 2>/dev/null | jq -r --argjson hits false "$q" | sort | tr '\n' ' ')" &&
	same_keys "$("$ls" diff -V hits -f csv "$f" "$g" 2>/dev/null | head -n 1 | tr , '\n' | grep -vx 'row\|caller' | sort | tr '\n' ' ')" \
		"$("$ls" diff -V hits -f json "$f" "$g" 2>/dev/null | jq -r --argjson hits true "$q" | sort | tr '\n' ' ')"
}

# top --replay: report's model interval by interval; the full-screen view under tmux.
top_replay_ok() {
	"$ls" top --replay "$1" --speed 0 -f json >"$tmp/top.jsonl" &&
	[ "$("$ls" report -i "$1" -f json | jq -c '[.locks[] | select(.contended > 0) | {name, type, contended}] | sort_by(.name, .type)')" = \
	  "$(jq -s -c '[.[-1].locks[] | {name, type, contended: .cumulative.contended}] | sort_by(.name, .type)' "$tmp/top.jsonl")" ]
}
top_view_ok() {
	local sock=$tmp/tmux.sock k i
	tmux -S "$sock" new-session -d -x 120 -y 30 "$ls top --replay $dir/data/fdstorm.data --speed 0.5 2>$tmp/view.err; echo EXIT=\$? >$tmp/view.rc; sleep 5"
	for k in '>' 2 3 h Escape 1 Enter Escape r + q; do
		sleep 0.4
		tmux -S "$sock" send-keys "$k"
	done
	for i in $(seq 50); do [ -s "$tmp/view.rc" ] && break; sleep 0.1; done
	tmux -S "$sock" kill-server 2>/dev/null
	cat "$tmp/view.err" >&2
	grep -q EXIT=0 "$tmp/view.rc" && ! grep -Eq 'ERROR: [A-Za-z]*Sanitizer|runtime error:' "$tmp/view.err"
}

# Every long option in a command's --help is documented in its man page.
docs_ok() {
	local cmd=$1 page=$dir/../man/lockstat-$1.1 opt missing=
	for opt in $("$ls" "$cmd" -h | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$(sed 's/-/\\\\-/g' <<<"$opt")" "$page" || missing+=" $opt"
	done
	[ -z "$missing" ] || { echo "undocumented in $page:$missing" >&2; return 1; }
}
for c in record report top serve fsck probe export diff ab sweep; do
	check "man page of $c documents every option of its --help" docs_ok "$c"
done

# Every row's figures agree with each other (lockstat-fsck(1), INVARIANTS);
# the findings, if any, where check() shows them.
deep_ok() {
	"$ls" fsck --deep "$1" >"$tmp/deep" && return 0
	grep '^fsck: ' "$tmp/deep" | tail -n 20 >&2
	return 1
}
for f in "$dir"/data/*.data "$dir"/data/views/*.data; do
	check "${f#"$dir"/data/}: fsck --deep: every row's figures agree" deep_ok "$f"
done
for f in "$dir"/data/*.data; do
	name=$(basename "$f")
	check "$name: fsck" "$ls" fsck -q "$f"
	check "$name: report json with --hist --stacks" json_ok "$f"
	check "$name: report csv has a constant column count" csv_ok "$f"
	check "$name: report text" text_ok "$f"
	check "$name: every cut is read or refused, no sanitizer report" cuts_ok "$f"
	check "$name: top --replay ends on report's totals" top_replay_ok "$f"
done
for f in fdstorm vm61-fdstorm mutexstorm-ulocks; do
	check "$f.data: the locks view's CSV columns are its JSON's" csv_json_same_ok "$dir/data/$f.data"
done
check "fdstorm.data: per-task filter finds files_struct.file_lock" named_ok
check "hotspots.data: the hit list names hot_three after the recording" hits_ok
check "hotspots.data: the hit list's CSV columns are its JSON's" hits_same_ok
check "hotspots.data: --lines gives file:line" lines_ok
check "fdstorm.data: --callers alloc_fd names the dup path" graph_ok
# --lock has one rule in report and top: a word matches inside the name,
# a glob the whole name.
lock_rule_ok() {
	local f=$dir/data/fdstorm.data p r t
	for p in file 'files_*' '*lock'; do
		r=$("$ls" report -i "$f" --lock "$p" -f json | jq -c '[.locks[].name] | unique')
		t=$("$ls" top --replay "$f" --speed 0 -f json --lock "$p" | jq -s -c '[.[-1].locks[].name] | unique')
		[ "$r" = "$t" ] && [ "$r" != "[]" ] || { echo "--lock $p: report $r, top $t" >&2; return 1; }
	done
	[ "$("$ls" report -i "$f" --lock 'file_*' -f json | jq '.locks | length')" = 0 ]
}
# top's JSON functions carry what its text shows: the k|u column too.
top_funcs_ok() {
	"$ls" top --replay "$dir/data/hotspots.data" --speed 0 -f json |
		jq -e -s '[.[-1].functions[] | has("space") and has("kernel") and has("symbol")] | length > 0 and all' >/dev/null
}
check "fdstorm.data: --lock, a word or a glob, picks the same locks in report and top" lock_rule_ok
check "hotspots.data: top's JSON functions have text's columns" top_funcs_ok
# --view tables on the VM tier's profile, which holds the mmap_lock table.
tables_ok() {
	local f=$dir/data/vm61-fdstorm.data
	"$ls" report -i "$f" --view tables >"$tmp/tables" && grep -q '^# table mmap_lock: [0-9]* rows' "$tmp/tables" &&
		"$ls" report -i "$f" --view tables --table mmap_lock -f csv >"$tmp/mm.csv" &&
		head -n 1 "$tmp/mm.csv" | grep -q '^lock,pid,write,caller,acquired,failed,wait_ns,wait_max_ns,held,hold_ns,hold_max_ns$'
}
# A user stack key is shown as its caller (the function that took the
# lock), in report's tables view and in top's tables, never as a stack id.
user_keys_ok() {
	local f=$dir/data/mutexstorm-ulocks.data want='["main","storm_op"]'
	[ "$("$ls" report -i "$f" --view tables --table ulocks -f json | jq -c '[.[].caller] | unique')" = "$want" ] &&
	[ "$("$ls" top --replay "$f" --speed 0 -f json |
	     jq -s -c '[.[-1].tables[] | select(.name == "ulocks") | .rows[].keys.caller] | unique')" = "$want" ]
}
tables_errors_ok() {
	local f=$dir/data/vm61-fdstorm.data rc
	"$ls" report -i "$f" --view tables --table nosuch 2>"$tmp/t.err"; rc=$?
	[ $rc = 1 ] && grep -q "no table 'nosuch'" "$tmp/t.err" || { echo "--table nosuch: exit $rc" >&2; return 1; }
	"$ls" report -i "$f" --table mmap_lock 2>"$tmp/t.err"; rc=$?
	[ $rc = 2 ] && grep -q -- '--table needs --view tables' "$tmp/t.err" || { echo "--table without the view: exit $rc" >&2; return 1; }
	"$ls" report -i "$f" --view nosuch 2>"$tmp/t.err"; rc=$?
	[ $rc = 2 ] && grep -q "is not one of locks, hits, tables, fd, pagecache" "$tmp/t.err"
}
# A profile from before the cost ledger says so, in text and JSON; --cost's misuses are usage errors.
cost_old_ok() {
	local f=$dir/data/fdstorm.data rc
	"$ls" report -i "$f" --cost >"$tmp/c.txt" && grep -qx 'cost ledger: not recorded' "$tmp/c.txt" &&
		"$ls" report -i "$f" --cost -f json | jq -e '.cost == {"recorded": false}' >/dev/null ||
		{ echo "--cost of an old profile:" >&2; cat "$tmp/c.txt" >&2; return 1; }
	for bad in "-f csv" "--view hits" "--top 3" "--hist"; do
		# shellcheck disable=SC2086
		"$ls" report -i "$f" --cost $bad 2>"$tmp/c.err"; rc=$?
		[ $rc = 2 ] && [ "$(wc -l <"$tmp/c.err")" -ge 1 ] || { echo "--cost $bad: exit $rc" >&2; return 1; }
	done
}
check "fdstorm.data: report --cost says the ledger was not recorded; misuses exit 2" cost_old_ok
# statloop (issue 4's path-walk workload): no root, so tested here.
statloop_ok() {
	local wl=$WL/statloop out rc
	out=$("$wl" -l 3 -t 2 -n 1000) &&
		grep -Eq '^statloop: ns/op=[1-9][0-9]* workers=2 ops=1000 ' <<<"$out" || { echo "statloop: $out" >&2; return 1; }
	"$wl" -x 2>/dev/null; rc=$?
	[ $rc = 2 ] || { echo "statloop -x: exit $rc" >&2; return 1; }
	"$wl" -p /nonexistent/path -n 10 2>"$tmp/sl.err"; rc=$?
	[ $rc = 1 ] && grep -q 'stat /nonexistent/path' "$tmp/sl.err"
}
check "statloop: ns per stat, exact op count, usage and runtime errors" statloop_ok
# onefile (the lock names' known file): both modes, its temp file removed, usage and runtime errors.
onefile_ok() {
	local wl=$WL/onefile out rc m
	for m in pos write; do
		out=$(TMPDIR=$tmp "$wl" --mode $m -t 2 -n 1000) &&
			grep -Eq "^onefile: mode=$m overlap=[0-9]+\.[0-9]% workers=2 ops=1000 " <<<"$out" || { echo "onefile --mode $m: $out" >&2; return 1; }
	done
	[ -z "$(ls "$tmp" | grep '^onefile\.')" ] || { echo "onefile left its file in $tmp" >&2; return 1; }
	"$wl" --mode read 2>"$tmp/of.err"; rc=$?
	[ $rc = 2 ] && grep -q -- "--mode wants pos or write" "$tmp/of.err" || { echo "onefile --mode read: exit $rc" >&2; return 1; }
	"$wl" -p /nonexistent/dir/f -n 10 2>"$tmp/of.err"; rc=$?
	[ $rc = 1 ] && grep -q 'open /nonexistent/dir/f' "$tmp/of.err"
}
check "onefile: both modes, exact op count, no file left, usage and runtime errors" onefile_ok
check "vm61-fdstorm.data: --view tables lists the mmap_lock table with its columns" tables_ok
check "mutexstorm-ulocks.data: user stack keys are their callers in report and top" user_keys_ok
check "report --table and --view: every misuse is one clear line and the right exit" tables_errors_ok
check "diff: each side's counts and wait totals are report's, lock for lock" diff_counts_ok
check "diff: CSV's columns are JSON's, locks and hits" diff_same_ok
check "diff: hotspots against fdstorm has new and gone functions, constant CSV columns" diff_new_gone_ok
check "diff: every bad option value is a usage error (exit 2)" diff_usage_ok
check "lib/ layers: each folder includes only the layers below it" "$dir/check-layers.sh"
check "lib/ layers: the check fails on a violation (self-test)" "$dir/check-layers.sh" --self-test
check "man pages: their family lists are the family table's" "$dir/check-families.sh"
check "man pages: the family check fails on a family without man text (self-test)" "$dir/check-families.sh" --self-test
if command -v tmux >/dev/null 2>&1; then
	check "fdstorm.data: top's full-screen view replays, takes every key, quits clean" top_view_ok
else
	echo "SKIP: fixtures: TMUX: top's full-screen view: tmux is not installed"
	skip=$((skip + 1))
fi
if command -v xmllint >/dev/null 2>&1; then
	check "fdstorm.data: export -f svg, samples and locks, is well-formed XML" svgs_ok
else
	echo "SKIP: fixtures: XMLLINT: export -f svg is well-formed XML: xmllint is not installed (Debian: libxml2-utils)"
	skip=$((skip + 1))
fi

# --- output files and command lines (issue 11): no root needed -------------
fx=$dir/data/fdstorm.data
# usage_err EXIT PATTERN ARGS...: exits EXIT, and its first line is
# lockstat's own and matches PATTERN (grep -E).
usage_err() {
	local want=$1 pat=$2 rc
	shift 2
	"$ls" "$@" >/dev/null 2>"$tmp/u.err"; rc=$?
	[ $rc = "$want" ] || { echo "lockstat $*: exit $rc, not $want" >&2; cat "$tmp/u.err" >&2; return 1; }
	head -n 1 "$tmp/u.err" | grep -Eq "^lockstat: .*$pat" ||
		{ echo "lockstat $*: first line: $(head -n 1 "$tmp/u.err")" >&2; return 1; }
	[ "$(wc -l <"$tmp/u.err")" -le 4 ] || { echo "lockstat $*: more than the error and the synopsis" >&2; return 1; }
}
options_ok() {
	usage_err 2 "--top: ' -1' is not a whole number from 0 to" report -i "$fx" -n ' -1' &&
	usage_err 2 "--top: '0x10' is not a whole number" report -i "$fx" -n 0x10 &&
	usage_err 2 "unknown option '--bogus'\$" report -i "$fx" --bogus &&
	usage_err 2 "unknown option '-x'\$" report -i "$fx" -x &&
	usage_err 2 "option '--top' needs a value" report -i "$fx" --top &&
	usage_err 2 "option '--hist' takes no value" report -i "$fx" --hist=1 &&
	usage_err 2 "ambiguous option '--ca'" report -i "$fx" --ca x &&
	usage_err 2 "no CSV form" report -i "$fx" -f csv --hist &&
	usage_err 2 "no CSV form" report -i "$fx" -f csv --stacks &&
	usage_err 2 "--callers and --callees" report -i "$fx" --view hits --callers a --callees b &&
	usage_err 2 "--callers and --callees" report -i "$fx" --view hits --callers a --callers b &&
	usage_err 2 "unexpected argument 'extra'" probe extra &&
	usage_err 2 "unknown option '--bogus'" version --bogus &&
	usage_err 2 "unexpected argument 'x'" version x &&
	usage_err 2 "--output: an empty file name" export -i "$fx" -o '' &&
	usage_err 2 "--input: an empty file name" report -i '' &&
	usage_err 2 "--output: an empty file name" record -o '' -- true &&
	usage_err 2 "--bucket: '1e-12' is not a number of seconds from 0.01 to 3600" record --bucket 1e-12 -- true &&
	usage_err 2 "--duration: '0' is not a number of seconds from 0.01" record -d 0 -- true &&
	usage_err 2 "--freq: '0' is not a whole number from 1 to 100000" record -F 0 -- true &&
	usage_err 2 "--pid: '0' is not a whole number from 1 to" record -p 0 &&
	usage_err 2 "--interval: '1e-9' is not a number of seconds from 0.1 to 3600" top -b -i 1e-9 &&
	usage_err 2 "--iterations: '0' is not a whole number from 1" top --replay "$fx" -b -n 0 &&
	usage_err 2 "--speed: '-1' is not a number from 0" top --replay "$fx" -b --speed -1 &&
	usage_err 2 "do not apply" top --replay "$fx" -b -e locks &&
	usage_err 2 "do not apply" top --replay "$fx" -b --stack-rate 10 &&
	usage_err 2 "--rows applies to --batch" top -r 3 -- true &&
	usage_err 2 "--freq applies to the sample family" record -e locks -F 99 -- true &&
	usage_err 2 "--event-budget applies to --uprobes" record --event-budget 5 -- true
}
# closed_pipe ARGS...: run lockstat with a standard output nobody reads
# (the reader is gone before it starts); $rc and $tmp/p.err are the result.
closed_pipe() {
	rm -f "$tmp/sync" && mkfifo "$tmp/sync"
	(read -r _ <"$tmp/sync"; exec "$ls" "$@" 2>"$tmp/p.err") | (exec 0<&-; echo go >"$tmp/sync")
	rc=${PIPESTATUS[0]}
}
closed_pipes_ok() {
	local args
	for args in "report -i $fx" "report -i $fx -f json" "report -i $fx --view hits" "export -i $fx" \
		    "export -i $fx -f svg" "diff $fx $fx" "top --replay $fx --speed 0 -b" "probe" "version"; do
		closed_pipe $args
		[ "$rc" = 1 ] && grep -q 'writing to standard output failed: Broken pipe' "$tmp/p.err" ||
			{ echo "lockstat $args | (closed): exit $rc: $(cat "$tmp/p.err")" >&2; return 1; }
	done
}
# export -o: the rule of every output file.
export_output_ok() {
	local d=$tmp/exp rc
	rm -rf "$d" && mkdir "$d" && mkfifo "$d/fifo" && ln -s sub/real.folded "$d/link" && mkdir "$d/sub" || return 1
	timeout 20 "$ls" export -i "$fx" -o "$d/fifo" 2>"$tmp/e.err"; rc=$?
	[ $rc = 1 ] && [ -p "$d/fifo" ] && grep -q 'is a FIFO' "$tmp/e.err" || { echo "export -o FIFO: exit $rc" >&2; return 1; }
	"$ls" export -i "$fx" -o /dev/stdout 2>"$tmp/e.err" | cat >/dev/null; rc=${PIPESTATUS[0]}
	[ $rc = 1 ] && grep -q -- '-o -' "$tmp/e.err" || { echo "export -o /dev/stdout into a pipe: exit $rc" >&2; return 1; }
	"$ls" export -i "$fx" -o "$d/sub" 2>/dev/null && { echo "export -o DIR succeeded" >&2; return 1; }
	(umask 027 && "$ls" export -i "$fx" -o "$d/link") &&
	[ -L "$d/link" ] && cmp -s "$d/sub/real.folded" <("$ls" export -i "$fx") &&
	[ "$(stat -c %a "$d/sub/real.folded")" = 640 ] || { echo "export -o symlink/umask" >&2; ls -la "$d" "$d/sub" >&2; return 1; }
	[ -z "$(ls -A "$d/sub" | grep -v '^real\.folded$')" ] || { echo "export -o left: $(ls -A "$d/sub")" >&2; return 1; }
}
check "command lines: every bad option is one lockstat line and exit 2, ranges included" options_ok
check "a closed standard output is reported (exit 1) by report, export, diff, top, probe, version" closed_pipes_ok
check "export -o: FIFOs and directories refused, symlinks followed, the umask kept" export_output_ok

# The benchmarks that check the issue targets: their statistics on runs
# whose answer is known (tests/benchstat-cases.py), and every bad option
# of real, overhead, scale and vsperf one line and exit 2 before anything runs.
bench_usage_ok() {
	local b=$dir/../contrib/bench line script args out rc
	while IFS='|' read -r script args; do
		# shellcheck disable=SC2086
		out=$("$b/$script" $args 2>&1 >/dev/null)
		rc=$?
		line=$(printf '%s\n' "$out" | head -n 1)
		[ $rc = 2 ] && [[ $line == "$script: "* ]] && [ "$(printf '%s\n' "$out" | wc -l)" = 2 ] ||
			{ echo "$script $args: exit $rc: $out" >&2; return 1; }
	done <<'EOF2'
real|-r 1
real|-d 2
real|-D /nonexistent
real|-w foo
real|-V bogus
real|-x
real|extra
overhead|-r 0
overhead|-d x
overhead|-q
scale|-d 5
scale|-e BAD!
scale|-z
vsperf|
vsperf|-w foo out
vsperf|-y out
vsperf|out extra
EOF2
}
check "benchstat: drift cancels, YES, NO, UNRESOLVED, a busy machine, failed runs, bad input" \
	python3 "$dir/benchstat-cases.py"
check "contrib/bench real, overhead, scale, vsperf: every bad option is one line and exit 2" bench_usage_ok

# --- readers: streams, exports, views (appended; the summary below counts every check above) ---
rd=$dir/data

# Every command that reads a profile reads "-" (a pipe) as it reads the file.
same_json() { [ "$(jq -S 'del(.meta.file)' "$1")" = "$(jq -S 'del(.meta.file)' "$2")" ]; }
stdin_read_ok() {
	local f=$rd/fdstorm.data
	"$ls" report -i "$f" -f json >"$tmp/a.json" && cat "$f" | "$ls" report -i - -f json >"$tmp/b.json" &&
		same_json "$tmp/a.json" "$tmp/b.json" || { echo "report -i -" >&2; return 1; }
	"$ls" export -i "$f" -w locks -f json >"$tmp/a.json" && cat "$f" | "$ls" export -i - -w locks -f json >"$tmp/b.json" &&
		same_json "$tmp/a.json" "$tmp/b.json" || { echo "export -i -" >&2; return 1; }
	cat "$f" | "$ls" fsck - >"$tmp/fsck.out" && grep -q 'END present' "$tmp/fsck.out" || { echo "fsck -" >&2; return 1; }
	"$ls" diff -f json "$f" "$f" | jq -c '.rows' >"$tmp/a.json" &&
		cat "$f" | "$ls" diff -f json - "$f" | jq -c '.rows' >"$tmp/b.json" && cmp -s "$tmp/a.json" "$tmp/b.json" ||
		{ echo "diff - FILE" >&2; return 1; }
	"$ls" top --replay "$f" --speed 0 -f json | tail -n 1 | jq -c '.locks' >"$tmp/a.json" &&
		cat "$f" | "$ls" top --replay - --speed 0 -f json | tail -n 1 | jq -c '.locks' >"$tmp/b.json" &&
		cmp -s "$tmp/a.json" "$tmp/b.json" && [ -s "$tmp/a.json" ] || { echo "top --replay -" >&2; return 1; }
}
check "report, export, fsck, diff and top --replay read a profile piped to -" stdin_read_ok

# A FIFO is waited for (with a notice), then read; devices that hold no profile are refused at once.
fifo_ok() {
	local fifo=$tmp/fifo rc
	mkfifo "$fifo" || return 1
	(sleep 1.5; cat "$rd/fdstorm.data" >"$fifo") &
	timeout 30 "$ls" report -i "$fifo" -f json 2>"$tmp/fifo.err" >"$tmp/fifo.json"; rc=$?
	wait
	[ $rc = 0 ] && jq -e '.locks | length > 0' "$tmp/fifo.json" >/dev/null &&
		grep -q 'FIFO with no writer yet' "$tmp/fifo.err" || { echo "report -i FIFO: exit $rc" >&2; return 1; }
}
devices_refused_ok() {
	local rc
	timeout 10 "$ls" report -i /dev/zero 2>"$tmp/dev.err"; rc=$?
	[ $rc = 1 ] && grep -q 'bad magic' "$tmp/dev.err" || { echo "report -i /dev/zero: exit $rc" >&2; return 1; }
	timeout 10 "$ls" fsck /dev/null 2>"$tmp/dev.err"; rc=$?
	[ $rc = 1 ] && grep -q 'empty' "$tmp/dev.err" || { echo "fsck /dev/null: exit $rc" >&2; return 1; }
	timeout 10 "$ls" diff - - <"$rd/fdstorm.data" >/dev/null 2>"$tmp/dev.err"; rc=$?
	[ $rc = 2 ] && grep -q 'standard input (-) is given 2 times' "$tmp/dev.err" || { echo "diff - -: exit $rc" >&2; return 1; }
}
check "a FIFO is read once its writer comes, with a notice while it waits" fifo_ok
check "/dev/zero, /dev/null and stdin given twice are refused at once, with why" devices_refused_ok


# Exports carry report's totals, user locks (mutexstorm-ulocks.data) as kernel ones (fdstorm.data).
export_totals_ok() {
	local f=$1 v key want got
	for v in wait count; do
		key=$([ $v = wait ] && echo wait_total_ns || echo contended)
		want=$("$ls" report -i "$f" -f json | jq ".total.$key")
		got=$("$ls" export -i "$f" -w locks --value $v | awk '{ s += $NF } END { printf "%d", s }')
		[ "$got" = "$want" ] || { echo "$f folded $v: $got, report $want" >&2; return 1; }
		got=$("$ls" export -i "$f" -w locks --value $v -f json | jq '[.total, ([.stacks[].value] | add)] | unique | .[]')
		[ "$got" = "$want" ] || { echo "$f json $v: $got, report $want" >&2; return 1; }
		got=$("$ls" export -i "$f" -w locks --value $v -f csv | awk -F, 'NR > 1 { s += $1 } END { printf "%d", s }')
		[ "$got" = "$want" ] || { echo "$f csv $v: $got, report $want" >&2; return 1; }
		got=$("$ls" export -i "$f" -w locks --value $v -f svg | sed -n 's/.*data-n="all" data-v="\([0-9]*\)".*/\1/p')
		[ "$got" = "$want" ] || { echo "$f svg $v: $got, report $want" >&2; return 1; }
	done
}
user_export_ok() {
	local f=$rd/mutexstorm-ulocks.data
	"$ls" report -i "$f" -f json | jq -e '[.locks[] | select(.user) | .contended] | add > 0' >/dev/null &&
		"$ls" export -i "$f" -w locks -f json |
		jq -e '[.stacks[] | select(.lock == "storm_lock" and .type == "u:mutex") | .frames | all(.kernel | not)] | length > 0 and all' >/dev/null
}
check "mutexstorm-ulocks.data: every text export adds up to report's totals, user locks included" export_totals_ok "$rd/mutexstorm-ulocks.data"
check "fdstorm.data: every text export adds up to report's totals" export_totals_ok "$rd/fdstorm.data"
check "mutexstorm-ulocks.data: storm_lock is exported with its user stack" user_export_ok


# A family recorded on one side only (fdstorm.data has no ulocks) is said once and left out.
diff_families_ok() {
	local b=$rd/fdstorm.data p=$rd/mutexstorm-ulocks.data rc
	"$ls" diff "$b" "$p" >"$tmp/d.txt" || return 1
	[ "$(grep -c '^# not comparable.*user locks (-e ulocks): recorded by 0 of 1 base run and 1 of 1 patched run' "$tmp/d.txt")" = 1 ] &&
		! grep -q ' u:' "$tmp/d.txt" || { echo "text:" >&2; head -n 14 "$tmp/d.txt" >&2; return 1; }
	"$ls" diff -f json "$b" "$p" | jq -e '.not_comparable == [{"family": "ulocks", "what": "user locks", "base_runs": 0, "patched_runs": 1}]
		and ([.rows[] | select(.type | startswith("u:"))] | length == 0) and (.rows | length > 0)' >/dev/null ||
		{ echo "json" >&2; return 1; }
	"$ls" diff -f json "$p" "$p" | jq -e '.not_comparable == [] and ([.rows[] | select(.type == "u:mutex")] | length > 0)' >/dev/null ||
		{ echo "json, a profile against itself" >&2; return 1; }
	"$ls" diff -f csv "$b" "$p" >"$tmp/d.csv" &&
		[ "$(grep -c '^family,ulocks,user locks,,not comparable,' "$tmp/d.csv")" = 1 ] &&
		awk -F, 'NR == 1 { n = NF } NF != n { exit 1 } $3 ~ /^u:/ { exit 1 }' "$tmp/d.csv" || { echo "csv" >&2; return 1; }
	"$ls" diff -f svg "$b" "$p" >"$tmp/d.svg" && grep -q 'user locks not comparable' "$tmp/d.svg" &&
		! grep -q 'data-n="storm_lock"' "$tmp/d.svg" || { echo "svg" >&2; return 1; }
	"$ls" diff -V hits "$b" "$p" >/dev/null 2>"$tmp/d.err"; rc=$?
	[ $rc = 1 ] && grep -q 'nothing to compare: CPU samples (-e sample): recorded by 1 of 1 base run and 0 of 1 patched run' "$tmp/d.err" ||
		{ echo "hits: exit $rc, $(cat "$tmp/d.err")" >&2; return 1; }
}
check "diff: a family recorded on one side only is not comparable, said once in every format" diff_families_ok

# Profiles crafted with shapes record does not write (tests/craft-profile.py).
craft() { python3 "$dir/craft-profile.py" "$@"; }
replay_gap_ok() {
	craft "$tmp/gaps.data" 0:1000000000:3 5000000000:6000000000:4 || return 1
	timeout 20 "$ls" top --replay "$tmp/gaps.data" --speed 0 -f json >"$tmp/gaps.jsonl" || return 1
	jq -s -e '[.[].time_ns] == [1000000000, 6000000000] and all(.[]; .interval_ns == 1000000000) and
		.[-1].totals.cumulative.contended == 7' "$tmp/gaps.jsonl" >/dev/null ||
		{ jq -c '{time_ns, interval_ns}' "$tmp/gaps.jsonl" >&2; return 1; }
	craft "$tmp/far.data" 0:1000000000:3 1000000000000000000:1000000001000000000:2 || return 1
	timeout 20 "$ls" top --replay "$tmp/far.data" --speed 0 -f json >"$tmp/far.jsonl" || { echo "far: timed out" >&2; return 1; }
	jq -s -e '[.[].time_ns] == [1000000000, 1000000001000000000] and .[-1].totals.cumulative.contended == 5' \
		"$tmp/far.jsonl" >/dev/null || { head -c 300 "$tmp/far.jsonl" >&2; return 1; }
}
# fsck --deep's exit status: 0 clean, 3 for figures that contradict each
# other (a 2 s wait in a 1 s recording), cut or not, 1 for a file that is
# only incomplete; a line per finding, nothing with -q.
deep_exit_ok() {
	local rc
	craft "$tmp/good.data" 0:1000000000:3:1000 && craft "$tmp/long.data" 0:1000000000:3:2000000000 &&
	craft "$tmp/good-cut.data" --no-end 0:1000000000:3:1000 &&
	craft "$tmp/long-cut.data" --no-end 0:1000000000:3:2000000000 || return 1
	"$ls" fsck --deep "$tmp/good.data" >"$tmp/deep" && tail -n 1 "$tmp/deep" | grep -q '^fsck: 0 violations, 0 warnings, 4 rows checked' ||
		{ echo "good: $(tail -n 1 "$tmp/deep")" >&2; return 1; }
	"$ls" fsck --deep "$tmp/long.data" >"$tmp/deep"
	rc=$?
	[ $rc = 3 ] && grep -qx "fsck: lock crafted_lock: max wait 2.00 s > the recording's 1.00 s" "$tmp/deep" &&
		grep -q '^fsck: 12 violations (hist-ends 8, recording 4), 0 warnings' "$tmp/deep" ||
		{ echo "long: exit $rc" >&2; cat "$tmp/deep" >&2; return 1; }
	[ -z "$("$ls" fsck --deep -q "$tmp/long.data")" ] && { "$ls" fsck -q --deep "$tmp/long.data"; [ $? = 3 ]; } &&
		{ "$ls" fsck -q --deep "$tmp/good-cut.data"; [ $? = 1 ]; } &&
		{ "$ls" fsck -q --deep "$tmp/long-cut.data"; [ $? = 3 ]; } &&
		{ "$ls" fsck -q "$tmp/long.data"; [ $? = 0 ]; } || { echo "-q, cut files or without --deep: wrong exit" >&2; return 1; }
}
check "fsck --deep: exit 3 for contradicting figures, cut or not; 1 for a cut file that agrees" deep_exit_ok

# Every view in every format: output that parses (JSON one value, CSV a header and constant
# columns), or a one-line error and exit 1 (JSON: {"error"} on stdout); never nothing with exit 0.
view_output_ok() {	# profile view format
	local f=$1 v=$2 fmt=$3 rc
	"$ls" report -i "$f" --view "$v" -f "$fmt" >"$tmp/v.out" 2>"$tmp/v.err"; rc=$?
	case $rc/$fmt in
	0/json) jq -s -e 'length == 1 and (.[0] | type == "object" or type == "array")' "$tmp/v.out" >/dev/null ;;
	0/csv) awk -F, 'NR == 1 { n = NF } NF != n { exit 1 } END { exit NR < 1 }' "$tmp/v.out" ;;
	0/text) [ -s "$tmp/v.out" ] ;;
	1/json) jq -s -e 'length == 1 and (.[0].error | type == "string")' "$tmp/v.out" >/dev/null &&
		[ "$(wc -l <"$tmp/v.err")" = 1 ] ;;
	1/*) [ ! -s "$tmp/v.out" ] && [ "$(wc -l <"$tmp/v.err")" = 1 ] && grep -q '^lockstat: ' "$tmp/v.err" ;;
	*) false ;;
	esac || { echo "$(basename "$f") --view $v -f $fmt: exit $rc, $(wc -c <"$tmp/v.out") bytes out: $(head -c 200 "$tmp/v.err")" >&2; return 1; }
}
views_formats_ok() {
	local f v fmt bad=0
	for f in "$@"; do
		for v in locks hits tables fd pagecache; do
			for fmt in text json csv; do
				view_output_ok "$f" "$v" "$fmt" || bad=1
			done
		done
	done
	return $bad
}
views_matrix_ok() {
	craft "$tmp/empty.data" && craft "$tmp/no-locks.data" --meta probe.contention="not recorded" 0:1000000000:0 &&
		views_formats_ok "$tmp/empty.data" "$tmp/no-locks.data" "$rd/views/sample-only.data" "$rd/mmapstorm.data"
}
# A workload's argv (and a lock's name) with control characters: escaped in every text output.
no_raw_controls() {	# file: no C0 control but newline, no DEL, no UTF-8 C1 control
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1" && ! LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$1"
}
controls_escaped_ok() {
	local f=$tmp/evil.data out
	craft "$f" --meta command=$'evil\033[2J\033]0;pwned\007 a\nb \xc2\x9b31m' \
		--meta kernel=$'6.1\033[31m' --lock $'bad\033[5mlock' 0:1000000000:2 || return 1
	for out in "report" "report --view hits" "top --replay $f -b --speed 0"; do
		case $out in
		report*) "$ls" $out -i "$f" >"$tmp/evil.out" 2>/dev/null ;;
		*) "$ls" $out >"$tmp/evil.out" 2>/dev/null ;;
		esac
		no_raw_controls "$tmp/evil.out" && grep -q 'evil\\x1b\[2J\\x1b\]0;pwned\\x07 a\\x0ab \\xc2\\x9b31m' "$tmp/evil.out" ||
			{ echo "$out:" >&2; cat -v "$tmp/evil.out" | head -n 5 >&2; return 1; }
	done
	"$ls" diff "$f" "$f" >"$tmp/evil.out" && no_raw_controls "$tmp/evil.out" &&
		grep -q 'kernel 6.1\\x1b\[31m' "$tmp/evil.out" || { echo "diff:" >&2; cat -v "$tmp/evil.out" | head -n 3 >&2; return 1; }
	"$ls" report -i "$f" >"$tmp/evil.out" && grep -q 'bad\\x1b\[5mlock$' "$tmp/evil.out" ||
		{ echo "the lock's name in the table" >&2; return 1; }
	"$ls" report -i "$f" -f json | jq -e '.meta.command | startswith("evil\u001b[2J")' >/dev/null ||
		{ echo "JSON keeps the name, escaped as JSON" >&2; return 1; }
}
# The full-screen view's title line, under tmux.
title_escaped_ok() {
	local sock=$tmp/tmux-evil.sock f=$tmp/evil-title.data
	craft "$f" --meta command=$'evil\033[2J\nname' 0:1000000000:2 1000000000:2000000000:2 || return 1
	tmux -S "$sock" new-session -d -x 160 -y 20 "$ls top --replay $f --speed 0.2; sleep 5"
	sleep 1.5
	tmux -S "$sock" capture-pane -p >"$tmp/title.txt"
	tmux -S "$sock" kill-server 2>/dev/null
	head -n 1 "$tmp/title.txt" | grep -q 'REPLAY.*command: evil\\x1b\[2J\\x0aname' || { head -n 3 "$tmp/title.txt" >&2; return 1; }
}
# A spinning wait of 620 ms: "!" on its max, and a footnote with what the recording's steal says
# of it (none: an accounting error; 700 ms: could explain it; not recorded: cannot tell).
steal_profile() {	# out total_ns|none wait_ns
	local keys=()
	[ "$2" = none ] || keys=(--meta steal.tick_ns=10000000 --meta steal.total_ns="$2" --meta steal.cpus=2
		--meta steal.cpu_time_ns=2000000000 --meta steal.max_interval_ns=0 --meta steal.interval_ns=1000000000
		--meta steal.boot_ns=190000000)
	craft "$1" "${keys[@]}" --lock rq.__lock 0:1000000000:1:"$3"
}
steal_case_ok() {	# total_ns|none wait_ns marker-or-empty check-key footnote-text header-text
	local f=$tmp/steal.data
	steal_profile "$f" "$1" "$2" && "$ls" report -i "$f" >"$tmp/steal.txt" || return 1
	grep -q "^# steal: $6" "$tmp/steal.txt" || { echo "header: $(grep '^# steal' "$tmp/steal.txt")" >&2; return 1; }
	if [ -n "$3" ]; then
		# Every figure of the row as measured: only the max's text is marked.
		grep -Eq '^ +1 +620\.00 ms +620\.00 ms +!620\.00 ms +620\.00 ms +620\.00 ms .* rq\.__lock$' "$tmp/steal.txt" &&
			grep -qF "#   rq.__lock: max 620.00 ms above 10 ms on a spinning lock: $5" "$tmp/steal.txt" ||
			{ cat "$tmp/steal.txt" >&2; return 1; }
	else
		! grep -q '!' "$tmp/steal.txt" || { cat "$tmp/steal.txt" >&2; return 1; }
	fi
	"$ls" report -i "$f" -f json | jq -e --arg k "$4" '($k | if . == "" then null else . end) as $want |
		.locks[0].max_wait_check == $want and .locks[0].callers[0].max_wait_check == $want and
		.locks[0].wait_max_ns == '"$2" >/dev/null || { echo "JSON: check is not '$4'" >&2; return 1; }
	"$ls" report -i "$f" -f csv | awk -F, -v k="$4" 'NR == 1 { ok = $NF == "max_wait_check"; next }
		$1 != "total" && $NF != k { ok = 0 } END { exit !ok }' || { echo "CSV: check is not '$4'" >&2; return 1; }
}
steal_marker_ok() {
	steal_case_ok 0 620000000 '!' accounting_error 'no steal was recorded: an accounting error, please report it' \
		'0 ns (0.00 % of CPU time); counted in 10.00 ms ticks$' &&
	steal_case_ok 700000000 620000000 '!' steal_could_explain '700.00 ms of steal in the recording could explain it' \
		'700.00 ms (35.00 % of CPU time)' &&
	steal_case_ok none 620000000 '!' steal_not_recorded 'steal was not recorded' 'not recorded$' &&
	steal_case_ok 0 9000000 '' '' '' '0 ns' &&
	"$ls" report -i "$tmp/steal.data" -f json | jq -e '.meta.steal.total_ns == 0 and .meta.steal.bound_ns == 40000000' >/dev/null &&
	steal_profile "$tmp/steal.data" none 1000 && "$ls" report -i "$tmp/steal.data" -f json | jq -e '.meta.steal == null' >/dev/null
}
if command -v python3 >/dev/null 2>&1; then
	check "report: a spinning wait over 10 ms is marked and explained by the recording's steal, or said to be an accounting error" steal_marker_ok
	check "top --replay skips a gap between buckets (0-1 s, 5-6 s; and one at 10^18 ns) in one step" replay_gap_ok
	check "control characters in a workload's argv and a lock's name are escaped in report, top and diff text" controls_escaped_ok
	if command -v tmux >/dev/null 2>&1; then
		check "top's full-screen title shows a workload's control characters escaped" title_escaped_ok
	else
		echo "SKIP: fixtures: TMUX: top's full-screen title: tmux is not installed"
		skip=$((skip + 1))
	fi
	check "report: every view x format of an empty profile, one without locks, without samples, without tables: output or an error, never nothing" views_matrix_ok
else
	echo "SKIP: fixtures: PYTHON3: crafted profiles: python3 is not installed"
	skip=$((skip + 1))
fi

# --- every printed row consistent (issue 25): min <= avg <= max, p50 <= p99 <= max ---
# rows_ok FILE ARGS...: report's JSON and CSV (locks, callers, gave-up rows,
# the total) and top --replay's every interval (locks and callers, the
# interval's figures and the run's) of FILE, each row with waits.
rows_ok() {
	local f=$1 bad
	shift
	bad=$("$ls" report -i "$f" -f json "$@" | jq -c '[.locks[], .locks[].callers[], .total] |
		map(select(.contended > 0 and ((.wait_min_ns <= .wait_avg_ns and .wait_avg_ns <= .wait_max_ns and
			.p50_ns <= .p99_ns and .p99_ns <= .wait_max_ns and .wait_min_ns <= .p50_ns) | not)) |
		    {name, symbol, contended, wait_min_ns, wait_avg_ns, wait_max_ns, p50_ns, p99_ns}) | .[0:3][]') &&
		[ -z "$bad" ] || { echo "$(basename "$f") $* JSON: $bad" >&2; return 1; }
	"$ls" report -i "$f" -f csv "$@" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["contended"] > 0 && !($c["wait_min_ns"] <= $c["wait_avg_ns"] && $c["wait_avg_ns"] <= $c["wait_max_ns"] &&
			$c["p50_ns"] <= $c["p99_ns"] && $c["p99_ns"] <= $c["wait_max_ns"]) { print; bad = 1 } END { exit bad }' >&2 ||
		{ echo "$(basename "$f") $* CSV" >&2; return 1; }
	bad=$("$ls" top --replay "$f" --speed 0 -f json "$@" | jq -c '.locks[]? | ., .callers[]? | .interval, .cumulative |
		select(.contended > 0 and .wait_avg_ns > .wait_max_ns)' | head -n 3) &&
		[ -z "$bad" ] || { echo "$(basename "$f") $* top: $bad" >&2; return 1; }
}
every_row_ok() {
	local f
	for f in "$rd"/*.data "$rd"/views/*.data; do
		rows_ok "$f" || return 1
	done
	# a caller filter leaves the callers' estimates as they were
	rows_ok "$rd/fdstorm-sampled.data" --caller 'try_to_wake_up*'
}
# The callers of a sampled lock (fdstorm-sampled.data: --stack-rate 50, 226
# of 37 830 waits with a stack) are estimates whose average once passed
# their max (try_to_wake_up+0x218: ~2 waits, avg 4.06 us, max 671 ns);
# --caller gave the same caller another total.
caller_filter_same_ok() {
	local f=$rd/fdstorm-sampled.data q='[.locks[] | .name as $l | .callers[] | select(.symbol | startswith("try_to_wake_up")) |
		{l: $l, symbol, contended, wait_total_ns, wait_max_ns, p99_ns, contended_ci95, wait_total_ci95_ns}] | sort_by(.l, .symbol)' a b
	a=$("$ls" report -i "$f" -f json | jq -c "$q") && b=$("$ls" report -i "$f" -f json --caller 'try_to_wake_up*' | jq -c "$q") &&
		[ "$a" != "[]" ] && [ "$a" = "$b" ] || { echo "unfiltered $a, --caller $b" >&2; return 1; }
}
# Item 6: hold-only callers (acquisitions, no wait) are no zero-wait rows in
# a ranking by waits: two or more are one "[holds only: N callers]" row
# with their acquisitions; --sort acquired lists each.
holds_folded_ok() {
	local f=$rd/vm61-fdstorm.data folded each
	"$ls" report -i "$f" -f json >"$tmp/hf.json" && "$ls" report -i "$f" -f json --sort acquired >"$tmp/hs.json" || return 1
	jq -e '[.locks[] | [.callers[] | select(.contended == 0)] | length <= 1] | all' "$tmp/hf.json" >/dev/null ||
		{ echo "a lock has more than one zero-wait caller row" >&2; return 1; }
	folded=$(jq -c '[.locks[] | {name, type, f: [.callers[] | select(.symbol | startswith("[holds only: ")) | .acquired]}] | sort_by(.name, .type)' "$tmp/hf.json")
	each=$(jq -c '[.locks[] | {name, type, c: [.callers[] | select(.contended == 0 and .acquired > 0)]} |
		{name, type, f: (if (.c | length) > 1 then [.c | map(.acquired) | add] else [] end)}] | sort_by(.name, .type)' "$tmp/hs.json")
	[ "$folded" = "$each" ] && grep -q 'holds only: ' "$tmp/hf.json" ||
		{ echo "folded $folded, listed $each" >&2; return 1; }
	"$ls" report -i "$f" >"$tmp/hf.txt" && ! grep -Eq '^ +0 +0 ns +0 ns .*\+0x[0-9a-f]+$' "$tmp/hf.txt" ||
		{ grep -E '^ +0 +0 ns' "$tmp/hf.txt" | head -n 3 >&2; return 1; }
}
check "every fixture: each row of report (JSON, CSV) and top has min <= avg <= max, p50 <= p99 <= max" every_row_ok
check "fdstorm-sampled.data: --caller gives a sampled caller the same figures and intervals" caller_filter_same_ok
check "vm61-fdstorm.data: callers that only held mmap_lock are one row under it, each with --sort acquired" holds_folded_ok

# fsck and the format's page say what fsck does: the default file, its exit codes, every chunk type it prints.
fsck_docs_ok() {
	local page=$dir/../man/lockstat-fsck.1 data=$dir/../man/lockstat-data.5 rc t
	mkdir -p "$tmp/empty" && (cd "$tmp/empty" && "$ls" fsck) 2>"$tmp/fsck.err"; rc=$?
	[ $rc = 1 ] && grep -q '^lockstat: lockstat.data: No such file or directory$' "$tmp/fsck.err" ||
		{ echo "fsck without a file and no lockstat.data: exit $rc" >&2; return 1; }
	awk '/^\.SH EXIT STATUS/ { s = 1 } s && /^\.B 2$/ { two = 1; next } two && /^\.(TP|SH)/ { exit }
		two { text = text " " $0 } END { exit !(text ~ /[Uu]sage/ && text !~ /no file/) }' "$page" ||
		{ echo "$page: exit 2 is not what fsck does" >&2; return 1; }
	for t in $(for f in "$rd"/*.data; do "$ls" fsck "$f" | awk 'NR > 2 && $2 ~ /^[A-Z]+$/ { print $2 }'; done | sort -u); do
		grep -Eq "^\.BR? $t( ,)?\$" "$page" || { echo "$page lacks chunk type $t" >&2; return 1; }
		grep -Pq "^[0-9]+\t$t\t" "$data" || { echo "$data lacks chunk type $t" >&2; return 1; }
	done
}
check "fsck: its page and lockstat-data(5) document its default file, exit codes and every chunk type it prints" fsck_docs_ok

echo "fixtures: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
