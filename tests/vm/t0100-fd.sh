#!/bin/sh
# The fd family where the fget family can be measured: with fentry and
# with kprobes, report --view fd counts fget-family calls of fdstorm
# (dup() looks its fd up with fget_raw) and chat (read()/write() with
# fdget), and the threads sharing each one's fd table.
. "$(dirname "$0")/lib.sh"
require_feature tracepoint:syscalls
"$LOCKSTAT" probe >probe.txt 2>&1

# fd_col FILE COMM COLUMN: COLUMN of the --view fd CSV rows of COMM.
fd_col() {
	awk -v comm="$2" -v want="$3" "$_csv_awk"'
	(want in col) && F[col["comm"]] == comm { print F[col[want]] }
	' "$1"
}

# measure MODE NAME THREADS CMD...: record CMD with --attach=MODE and
# check its fd view: fget calls > 0 and THREADS threads on its fd table.
measure() {
	mode=$1 name=$2 threads=$3
	shift 3
	out=$mode-$name
	"$LOCKSTAT" record -q --attach="$mode" -e locks,fd -o "$out.data" -- "$@" >"$out.wl" 2>"$out.err"
	check "$mode: record $name exits 0" test $? = 0 || show "$out.err"
	"$LOCKSTAT" report -i "$out.data" --view fd -f csv >"$out.csv" 2>>"$out.err"
	"$LOCKSTAT" report -i "$out.data" --view fd >"$out.txt" 2>>"$out.err"
	check "$mode: the text header names $mode and its functions" \
		grep -Eq "^# fget: $mode\((fget|fget_raw|__fget_light|fdget)[,)]" "$out.txt" || show "$out.txt"
	calls=$(fd_col "$out.csv" "$name" fget_calls)
	check "$mode: $name fget-family calls > 0 (${calls:-none})" test "${calls:-0}" -gt 0 ||
		show "$out.txt" "$out.err"
	avg=$(fd_col "$out.csv" "$name" fget_avg_ns)
	max=$(fd_col "$out.csv" "$name" fget_max_ns)
	check "$mode: $name fget avg <= max (${avg:-none} <= ${max:-none})" \
		test "${avg:-1}" -le "${max:-0}"
	n=$(fd_col "$out.csv" "$name" threads)
	check "$mode: $name has $threads threads on its fd table (${n:-none})" test "${n:-0}" = "$threads"
	sys=$(fd_col "$out.csv" "$name" fd_syscalls)
	check "$mode: $name fd syscalls >= fget calls (${sys:-none} >= ${calls:-none})" \
		test "${sys:-0}" -ge "${calls:-1}"
	echo "# $mode $name: $(grep '^# fget:' "$out.txt"); $(sed -n 2p "$out.csv")"
}

ran=0
for mode in fentry kprobe; do
	feature_yes "$mode" probe.txt || { echo "# $mode: not available here, not measured"; continue; }
	ran=1
	# main + 2 workers
	measure "$mode" fdstorm 3 "$WL/fdstorm" -t 2 -d 1 -q
	# main + 2 rooms of 2
	[ -x "$WL/chat" ] && measure "$mode" chat 5 "$WL/chat" -r 2 -t 2 -d 1 -q
done
[ "$ran" = 1 ] || skip_all "FENTRY, KPROBE: neither is available in this kernel ($(uname -r))"
done_testing
