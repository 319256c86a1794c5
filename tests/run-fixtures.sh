#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# No-root tier: the ASan/UBSan build of the tool reads the recorded
# fixtures in tests/data (report in every format, fsck, cut files).
# A sanitizer report fails the check it happens in, whatever the exit
# status says and wherever the output went: "$ls" is a function that runs
# the sanitized binary with exit codes of their own (ASan 99, UBSan 98,
# which no lockstat exit uses) and logs any report for check() to see.
set -o pipefail
dir=$(cd "$(dirname "$0")" && pwd)
ls_bin=${ASAN_LOCKSTAT:-$dir/../build/asan/lockstat}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=98
pass=0 fail=0 skip=0
tmp=$(mktemp -d /tmp/lockstat-fix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
san_log=$tmp/sanitizer.log

[ -x "$ls_bin" ] || { echo "not ok - fixtures: $ls_bin is not built (make unit-tests)"; echo "fixtures: 0 passed, 1 failed, 0 skipped"; exit 1; }

# The sanitized lockstat: its stderr passes through, a sanitizer report
# (by exit code or by its text) is also appended to $san_log.
lockstat_san() {
	local err=$tmp/err.$BASHPID rc text
	"$ls_bin" "$@" 2>"$err"
	rc=$?
	IFS= read -r -d "" text <"$err"
	# Builtins only: the cut checks run this thousands of times.
	if [ $rc = 98 ] || [ $rc = 99 ] || [[ $text =~ ERROR:\ [A-Za-z]*Sanitizer|runtime\ error: ]]; then
		printf 'sanitizer report (exit %s) from: lockstat %s\n%s\n' "$rc" "$*" "$text" >>"$san_log"
	fi
	[ -z "$text" ] || printf '%s\n' "$text" >&2
	return $rc
}
ls=lockstat_san

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

# top --replay: report's model interval by interval; the full-screen view under tmux.
top_replay_ok() {
	"$ls" top --replay "$1" --speed 0 -f json >"$tmp/top.jsonl" &&
	[ "$("$ls" report -i "$1" -f json | jq -c '[.locks[] | select(.contended > 0) | {name, type, contended}] | sort_by(.name, .type)')" = \
	  "$(jq -s -c '[.[-1].locks[] | {name, type, contended: .cumulative.contended}] | sort_by(.name, .type)' "$tmp/top.jsonl")" ]
}
top_view_ok() {
	local sock=$tmp/tmux.sock k i
	tmux -S "$sock" new-session -d -x 120 -y 30 "$ls_bin top --replay $dir/data/fdstorm.data --speed 0.5 2>$tmp/view.err; echo EXIT=\$? >$tmp/view.rc; sleep 5"
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
for c in record report top fsck probe export diff; do
	check "man page of $c documents every option of its --help" docs_ok "$c"
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
check "fdstorm.data: per-task filter finds files_struct.file_lock" named_ok
check "hotspots.data: the hit list names hot_three after the recording" hits_ok
check "hotspots.data: --lines gives file:line" lines_ok
check "fdstorm.data: --callers alloc_fd names the dup path" graph_ok
# --view tables on the VM tier's profile, which holds the mmap_lock table.
tables_ok() {
	local f=$dir/data/vm61-fdstorm.data
	"$ls" report -i "$f" --view tables >"$tmp/tables" && grep -q '^# table mmap_lock: [0-9]* rows' "$tmp/tables" &&
		"$ls" report -i "$f" --view tables --table mmap_lock -f csv >"$tmp/mm.csv" &&
		head -n 1 "$tmp/mm.csv" | grep -q '^lock,pid,write,caller,acquired,failed,wait_ns,wait_max_ns,held,hold_ns,hold_max_ns$'
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
# statloop (issue 4's path-walk workload): no root, so tested here.
statloop_ok() {
	local wl=$dir/../build/workloads/statloop out rc
	out=$("$wl" -l 3 -t 2 -n 1000) &&
		grep -Eq '^statloop: ns/op=[1-9][0-9]* workers=2 ops=1000 ' <<<"$out" || { echo "statloop: $out" >&2; return 1; }
	"$wl" -x 2>/dev/null; rc=$?
	[ $rc = 2 ] || { echo "statloop -x: exit $rc" >&2; return 1; }
	"$wl" -p /nonexistent/path -n 10 2>"$tmp/sl.err"; rc=$?
	[ $rc = 1 ] && grep -q 'stat /nonexistent/path' "$tmp/sl.err"
}
check "statloop: ns per stat, exact op count, usage and runtime errors" statloop_ok
check "vm61-fdstorm.data: --view tables lists the mmap_lock table with its columns" tables_ok
check "report --table and --view: every misuse is one clear line and the right exit" tables_errors_ok
check "diff: each side's counts and wait totals are report's, lock for lock" diff_counts_ok
check "diff: hotspots against fdstorm has new and gone functions, constant CSV columns" diff_new_gone_ok
check "diff: every bad option value is a usage error (exit 2)" diff_usage_ok
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
echo "fixtures: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
