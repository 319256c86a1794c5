# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by every host test. A test script is a list of checks; each
# check prints one TAP line. Prerequisites are named, and a missing one
# skips the whole script with its reason (exit 77), as git's tests do:
#   SKIP: t0010-record-fdstorm: PREREQ: why
# A check that cannot run here is skipped the same way, in TAP:
#   ok - t0120-export: go tool pprof agrees # SKIP GO: go is not installed
# Prerequisites are checked here, from the kernel's own files, never by
# asking lockstat: a lockstat bug must fail a test, not skip it.
# tests/run-host.sh counts the TAP lines; tests/ci-expect names the
# prerequisites whose skip fails CI.

set -u
ROOT_DIR=$(cd "$(dirname "$0")/../.." && pwd)
LOCKSTAT=${LOCKSTAT:-$ROOT_DIR/build/lockstat}
WL=${WORKLOADS:-$ROOT_DIR/build/workloads}
T=$(mktemp -d /tmp/lockstat-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

n_ok=0
n_fail=0
n_skip=0
test_name=$(basename "$0" .sh)

# skip_all "PREREQ: why": the whole script cannot run here.
skip_all() {
	echo "SKIP: $test_name: $*"
	exit 77
}

require_root() { [ "$(id -u)" = 0 ] || skip_all "ROOT: needs root (CAP_BPF, CAP_PERFMON)"; }
require_btf() { [ -r /sys/kernel/btf/vmlinux ] || skip_all "BTF: no /sys/kernel/btf/vmlinux"; }
require_cmd() {
	command -v "$1" >/dev/null 2>&1 || skip_all "$(tr a-z- A-Z_ <<<"$1"): $1 is not installed"
}

# The tracefs mount, mounted as lockstat would where nobody has.
tracefs_dir() {
	local d
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$d/events" ] && { echo "$d"; return 0; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && [ -d /sys/kernel/tracing/events ] &&
		echo /sys/kernel/tracing
}

# has_tracepoint SYSTEM EVENT...: tracefs lists every one of the events.
has_tracepoint() {
	local sys=$1 tfs e
	shift
	tfs=$(tracefs_dir) || return 1
	for e in "$@"; do
		[ -e "$tfs/events/$sys/$e/id" ] || return 1
	done
}

# require_tracepoint [SYSTEM EVENT...]: default lock:contention_begin/end.
require_tracepoint() {
	[ $# -gt 0 ] || set -- lock contention_begin contention_end
	has_tracepoint "$@" || skip_all "TRACEPOINT: no $1:${*:2} in this kernel's tracefs"
}

# CONFIG_PERF_EVENTS; as root, a cpu-clock event always opens.
require_perf_event() {
	[ -e /proc/sys/kernel/perf_event_paranoid ] ||
		skip_all "PERF_EVENT: no /proc/sys/kernel/perf_event_paranoid (no perf events in this kernel)"
}

# CONFIG_UPROBES: the uprobe PMU that perf_event_open() attaches through.
has_uprobes() { [ -e /sys/bus/event_source/devices/uprobe/type ]; }

ok() {
	n_ok=$((n_ok + 1))
	echo "ok - $test_name: $*"
}

not_ok() {
	n_fail=$((n_fail + 1))
	echo "not ok - $test_name: $*"
}

# skip_check PREREQ "what" "why": a check this machine cannot run.
skip_check() {
	n_skip=$((n_skip + 1))
	echo "ok - $test_name: $2 # SKIP $1: $3"
}

# check "description" command...: passes when the command succeeds.
# Returns 1 when it failed, for `check ... || show what went wrong`.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; return 1; fi
}

# build_prog NAME [CC ARGS...]: tests/host/progs/NAME.c into ./NAME, with
# frame pointers (user stacks) and debug info (lines). gcc builds lockstat
# itself, so a failure here is a failure, not a missing prerequisite.
build_prog() {
	local name=$1
	shift
	${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer -pthread \
		-o "$name" "$ROOT_DIR/tests/host/progs/$name.c" "$@"
}

# stats_fd_looks PID N: whether PID holds a kernel.bpf_stats descriptor,
# looked at N times 20 ms apart; prints how many looks saw it.
stats_fd_looks() {
	local pid=$1 n=$2 i on=0
	for i in $(seq "$n"); do
		ls -l /proc/"$pid"/fd 2>/dev/null | grep -q "anon_inode:bpf-stats" && on=$((on + 1))
		sleep 0.02
	done
	echo "$on"
}

# JSON query helper: jq -e on a file.
jqe() { jq -e "$@" >/dev/null 2>&1; }

# field NAME FILE: the value of NAME=VALUE in a workload's result line.
field() { sed -n "s/^[a-z]*: .*\\b$1=\\([^ ]*\\).*/\\1/p" "$2" | tail -n 1; }

# Two threads contend only while they run at once, and on a busy 2-CPU
# machine they may take turns instead. fdstorm and mmapstorm say how much
# of their run their workers overlapped (overlap=P% in their result line,
# see contrib/workloads/workload.h); taking turns on one CPU gives 0.0 %,
# and 1 % of a 1.5 s run is still some 60 000 fdstorm waits.
# Below MIN_OVERLAP a run says nothing about contention: run_overlapped
# tries once more, saying why, and a check that needed the overlap is
# then skipped by name (CONCURRENCY), never failed or passed in silence.
MIN_OVERLAP=${MIN_OVERLAP:-1}

# overlapped_in FILE: the workload's result line in FILE says its workers
# ran at once enough; sets $overlap to the figure.
overlapped_in() {
	overlap=$(field overlap "$1")
	awk -v p="${overlap%\%}" -v m="$MIN_OVERLAP" 'BEGIN { exit !(p != "" && p >= m) }'
}

# run_overlapped OUT CMD...: run CMD, whose stdout (into OUT) carries a
# workload's result line, again if its workers hardly ran at once.
# Returns CMD's status; sets $overlap (the figure) and $overlapped (1:
# enough of it).
run_overlapped() {
	local out=$1 try rc
	shift
	overlapped=0
	for try in 1 2; do
		"$@" >"$out"
		rc=$?
		[ "$rc" = 0 ] || return "$rc"
		overlapped_in "$out" && { overlapped=1; return 0; }
		[ -n "$overlap" ] || { echo "# no overlap= in the workload's line: $(tail -n 1 "$out")"; return 0; }
		echo "# try $try: the workers ran at once $overlap of the time (< $MIN_OVERLAP %): the machine is busy"
	done
	return 0
}

# concurrency_skip "what": skip a check that needed the workers to run at once.
concurrency_skip() {
	skip_check CONCURRENCY "$1" "the workers ran at once only ${overlap:-?} of the time (machine busy)"
}

# csv_sum FILE COLUMN: the sum of a CSV column, found by its header.
csv_sum() {
	awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		c { n += $c } END { print n + 0 }' "$1"
}

# csv_count FILE COLUMN VALUE: the rows whose COLUMN is VALUE.
csv_count() {
	awk -F, -v col="$2" -v val="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		c && $c == val { n++ } END { print n + 0 }' "$1"
}

# Every profile a test leaves in its directory (*.data: recordings, serve's
# segments) keeps the invariants of lockstat-fsck(1): fsck --deep exits 3
# on figures that contradict each other, and that fails the test whatever
# its own checks said. A file fsck cannot read, or reads cut (exit 1), is
# the test's own business; a view it cannot build, or a crash, is not.
check_profiles() {
	local f rc n=0 bad=
	while IFS= read -r -d '' f; do
		"$LOCKSTAT" fsck --deep "$f" >"$T/.fsck-deep" 2>&1
		rc=$?
		grep -q ' rows checked; ' "$T/.fsck-deep" && n=$((n + 1))
		if [ "$rc" = 0 ] || { [ "$rc" = 1 ] && ! grep -q 'checking the figures' "$T/.fsck-deep"; }; then
			continue
		fi
		bad+=" ${f#"$T"/} (exit $rc)"
		echo "# fsck --deep ${f#"$T"/}:"
		grep '^fsck: \|^lockstat: ' "$T/.fsck-deep" | tail -n 10 | sed 's/^/# /'
	done < <(find "$T" -name '*.data' -type f -print0 2>/dev/null)
	rm -f "$T/.fsck-deep"
	if [ -n "$bad" ]; then
		not_ok "fsck --deep: figures that contradict each other in:$bad"
	elif [ "$n" -gt 0 ]; then
		ok "fsck --deep: every row of its $n profile(s) keeps the invariants"
	fi
}

done_testing() {
	check_profiles
	echo "# $test_name: $n_ok passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" = 0 ]
}
