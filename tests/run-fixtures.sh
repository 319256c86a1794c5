#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# No-root tier: the ASan/UBSan build of the tool reads the recorded
# fixtures in tests/data (report in every format, fsck, cut files).
dir=$(cd "$(dirname "$0")" && pwd)
ls=${ASAN_LOCKSTAT:-$dir/../build/asan/lockstat}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1
pass=0 fail=0
tmp=$(mktemp -d /tmp/lockstat-fix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

check() {
	local what=$1
	shift
	if "$@" >"$tmp/out" 2>"$tmp/err"; then
		pass=$((pass + 1)); echo "ok - fixtures: $what"
	else
		fail=$((fail + 1)); echo "not ok - fixtures: $what"; head -n 20 "$tmp/err"
	fi
}

json_ok() { "$ls" report -i "$1" -f json --hist --stacks | jq -e '.locks | length > 0' >/dev/null; }
csv_ok() { "$ls" report -i "$1" -f csv | awk -F, 'NR == 1 { n = NF } NF != n { exit 1 } END { exit NR < 2 }'; }
text_ok() { "$ls" report -i "$1" --hist --stacks | grep -q 'TOTAL$'; }
hits_ok() { "$ls" report -i "$dir/data/hotspots.data" --view hits -f json | jq -e '[.functions[].symbol] | index("hot_three") != null' >/dev/null; }
lines_ok() { "$ls" report -i "$dir/data/hotspots.data" --view hits --lines | grep -q 'hotspots.c:[0-9]'; }
graph_ok() { "$ls" report -i "$dir/data/fdstorm.data" --view hits --callers alloc_fd -f csv | grep -q 'dup'; }
named_ok() { "$ls" report -i "$dir/data/fdstorm.data" --comm 'fdstorm*' -f json | jq -e '[.locks[].name] | index("files_struct.file_lock") != null' >/dev/null; }
diff_self_ok() { "$ls" diff -f json "$dir/data/fdstorm.data" "$dir/data/fdstorm.data" | jq -e '(.rows | length > 0) and all(.rows[]; .delta_per_s == 0 and (.significant | not))' >/dev/null; }
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
		[ $rc -le 1 ] || { echo "exit $rc at offset $off" >&2; cat "$tmp/cut.err" >&2; return 1; }
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
	tmux -S "$sock" new-session -d -x 120 -y 30 "$ls top --replay $dir/data/fdstorm.data --speed 0.5 2>$tmp/view.err; echo EXIT=\$? >$tmp/view.rc; sleep 5"
	for k in '>' 2 3 h Escape 1 Enter Escape r + q; do
		sleep 0.4
		tmux -S "$sock" send-keys "$k"
	done
	for i in $(seq 50); do [ -s "$tmp/view.rc" ] && break; sleep 0.1; done
	tmux -S "$sock" kill-server 2>/dev/null
	cat "$tmp/view.err" >&2
	grep -q EXIT=0 "$tmp/view.rc" && ! grep -q Sanitizer "$tmp/view.err"
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
	"$ls" report -i "$f" --view tables | grep -q '^# table mmap_lock: [0-9]* rows' &&
		"$ls" report -i "$f" --view tables --table mmap_lock -f csv | head -1 |
		grep -q '^lock,pid,write,caller,acquired,failed,wait_ns,wait_max_ns,held,hold_ns,hold_max_ns$'
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
check "diff: a profile against itself changes nothing" diff_self_ok
check "diff: hotspots against fdstorm has new and gone functions, constant CSV columns" diff_new_gone_ok
check "diff: every bad option value is a usage error (exit 2)" diff_usage_ok
if command -v tmux >/dev/null 2>&1; then
	check "fdstorm.data: top's full-screen view replays, takes every key, quits clean" top_view_ok
else
	echo "SKIP: top's full-screen view: tmux is not installed"
fi
if command -v xmllint >/dev/null 2>&1; then
	check "fdstorm.data: export -f svg, samples and locks, is well-formed XML" svgs_ok
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
echo "fixtures: $pass passed, $fail failed"
[ "$fail" = 0 ]
