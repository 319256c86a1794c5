#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fault injection for the output files: record, top -o and export -o run
# under a full disk, a read-only target, SIGKILL at random moments, a
# stopped workload, a workload that forks 1000 children and one that execs
# a setuid binary. After every run the previous file must be intact (under
# its name, or as FILE.old once a new profile took the name) and the new
# one complete, readable up to where it stopped (a profile without END,
# as a kill leaves it), or absent; no temporary file may be left. serve,
# killed at random moments, must leave only segments, each one readable.
# Prints one row per scenario and command, and exits 1 if any run broke
# that.
#
#   tests/faults/run.sh            the whole set: 100 SIGKILL runs a command
#   tests/faults/run.sh --quick    a few runs of each (the host tier's t0510)
#
# Root (BPF, mount). FAULTS_SEED=N replays the random kill moments.
set -u
ROOT_DIR=$(cd "$(dirname "$0")/../.." && pwd)
LOCKSTAT=${LOCKSTAT:-$ROOT_DIR/build/lockstat}
WL=${WORKLOADS:-$ROOT_DIR/build/workloads}
FIXTURE=$ROOT_DIR/tests/data/vm61-fdstorm.data	# its lock flame graph: 12 KiB
kills=100 levels="0 4 12 24 48"
[ "${1:-}" = --quick ] && kills=6 levels="4 24"
seed=${FAULTS_SEED:-$$}
RANDOM=$seed

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: faults: ROOT: needs root (BPF, mount)"
	exit 77
fi
for f in "$LOCKSTAT" "$WL/fdstorm" "$WL/hotspots" "$FIXTURE"; do
	[ -e "$f" ] || { echo "faults: $f is missing (make first)"; exit 1; }
done
T=$(mktemp -d /tmp/lockstat-faults.XXXXXX)
cleanup() {
	cd /
	mountpoint -q "$T/d" && umount -l "$T/d"
	rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
chmod 755 "$T"	# the setuid scenario's workload runs as nobody
cp "$WL/fdstorm" fdstorm
mkdir d

# The previous files: a profile for record and top, an export for export.
"$LOCKSTAT" record -q -e locks -o prev.data -- "$WL/fdstorm" -d 0.3 -q >/dev/null || exit 1
echo "previous export" >prev.export
"$LOCKSTAT" export -i "$FIXTURE" -w locks -f svg -o ref.export || exit 1
prev_sum=$(sha1sum <prev.data) prev_exp_sum=$(sha1sum <prev.export) ref_sum=$(sha1sum <ref.export)

failures=0
declare -A runs complete partial absent bad

sum() { [ -e "$1" ] && sha1sum <"$1"; }

# Put the previous file back in d/ and nothing else.
reset_dir() {
	find d -mindepth 1 -delete 2>/dev/null
	if [ "$1" = export ]; then cp prev.export d/out; else cp prev.data d/out; fi
}

# profile_state [FILE]: a new profile: complete (fsck 0), partial (every chunk up to the end, or
# up to a last chunk cut short, parses: a recording killed or stopped by a
# write error), or damaged. FILE: d/out by default.
profile_state() {
	local f=${1:-d/out} last
	"$LOCKSTAT" fsck -q "$f" && { echo complete; return; }
	last=$("$LOCKSTAT" fsck "$f" 2>&1 | tail -n 1)
	case $last in
	"end of file at byte "*|"truncated chunk at byte "*) echo partial ;;
	*) echo "damaged: $last" ;;
	esac
}

# The state of d/ after a run of cmd: complete, partial or absent, or why not.
judge() {
	local cmd=$1 left
	left=$(ls -A d | grep -v -x -e out -e out.old -e fill | tr '\n' ' ')
	[ -z "$left" ] || { echo "left behind: $left"; return; }
	if [ "$cmd" = export ]; then
		case $(sum d/out) in
		"$prev_exp_sum") echo absent ;;
		"$ref_sum") echo complete ;;
		*) echo "export is neither the old file nor the whole new one" ;;
		esac
		return
	fi
	if [ "$(sum d/out)" = "$prev_sum" ] && [ ! -e d/out.old ]; then
		echo absent
	elif [ "$(sum d/out.old)" = "$prev_sum" ]; then
		if [ -e d/out ]; then profile_state; else echo absent; fi
	else
		echo "the previous profile is gone"
	fi
}

# tally scenario cmd state
tally() {
	local k="$1|$2"
	runs[$k]=$((${runs[$k]:-0} + 1))
	case $3 in
	complete) complete[$k]=$((${complete[$k]:-0} + 1)) ;;
	partial) partial[$k]=$((${partial[$k]:-0} + 1)) ;;
	absent) absent[$k]=$((${absent[$k]:-0} + 1)) ;;
	*) bad[$k]=$((${bad[$k]:-0} + 1)); failures=$((failures + 1))
	   echo "FAIL: $1, $2: $3; lockstat said:" >&2
	   tail -n 3 log >&2 ;;
	esac
}

# run_cmd cmd [extra options]: one run writing d/out, in the background;
# $pid is lockstat's. The workload is $workload (an array).
run_cmd() {
	local cmd=$1
	shift
	case $cmd in
	record) "$LOCKSTAT" record -q "$@" -o d/out -- "${workload[@]}" >/dev/null 2>>log & ;;
	top) "$LOCKSTAT" top -b -q "$@" -o d/out -- "${workload[@]}" >/dev/null 2>>log & ;;
	export) "$LOCKSTAT" export -i "$FIXTURE" -w locks -f svg -o d/out >/dev/null 2>>log & ;;
	esac
	pid=$!
}

# One whole run; the fault is whatever the scenario set up around it.
run_once() {
	local scenario=$1 cmd=$2
	shift 2
	reset_dir "$cmd"
	"$@"
	tally "$scenario" "$cmd" "$(judge "$cmd")"
}

plain_run() { run_cmd "$@"; wait $pid; }

# --- disk full: a tmpfs with a little room left for the new file ----------
disk_full() {
	local cmd level
	workload=("$WL/hotspots" -d 2)
	mount -t tmpfs -o size=320k lockstat-faults d || { echo "faults: cannot mount a tmpfs" >&2; exit 1; }
	for cmd in record top export; do
		for level in $levels; do
			reset_dir "$cmd"
			head -c $((($(df -k --output=avail d | tail -n 1) - level) * 1024)) /dev/zero >d/fill 2>/dev/null
			case $cmd in
			record) run_cmd record -F 999 --bucket 0.1 ;;
			*) run_cmd "$cmd" -F 999 -i 0.1 ;;
			esac
			wait $pid
			tally "disk full (${levels// /, } KiB free)" "$cmd" "$(judge "$cmd")"
		done
	done
	umount d
}

# --- read-only target: the directory's filesystem remounted read-only ------------
read_only() {
	local cmd
	workload=("$WL/fdstorm" -d 0.3 -q)
	mount -t tmpfs -o size=4m lockstat-faults d || exit 1
	for cmd in record top export; do
		reset_dir "$cmd"
		mount -o remount,ro d
		plain_run "$cmd" -e locks
		tally "read-only target" "$cmd" "$(judge "$cmd")"
		mount -o remount,rw d
	done
	umount d
}

# --- SIGKILL at a random moment: set-up, recording, or the last writes --------------
sigkill() {
	local cmd i ms span
	workload=("$WL/fdstorm" -d 1.5 -q)
	for cmd in record top export; do
		span=3000
		[ "$cmd" = export ] && span=40
		for i in $(seq "$kills"); do
			reset_dir "$cmd"
			ms=$((RANDOM % span))
			run_cmd "$cmd"
			sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
			kill -9 $pid 2>/dev/null
			wait $pid 2>/dev/null
			pkill -9 -f "^$WL/fdstorm -d 1.5 -q\$" 2>/dev/null
			tally "SIGKILL at random (0-$span ms)" "$cmd" "$(judge "$cmd")"
		done
	done
}

# --- serve killed at a random moment, its segments 1 s long ----------------------------
# Every file left in its directory is a segment (named by time, nothing
# temporary) and reads as a profile, complete or cut (the one it was
# writing); the worst of them is tallied.
serve_judge() {
	local f state worst=absent
	for f in d/serve/*; do
		[ -e "$f" ] || continue
		[[ ${f##*/} =~ ^lockstat-[0-9]{8}T[0-9]{6}Z(\.[1-9][0-9]*)?\.data$ ]] ||
			{ echo "left behind: ${f##*/}"; return; }
		state=$(profile_state "$f")
		case $state in
		complete) [ "$worst" = absent ] && worst=complete ;;
		partial) worst=partial ;;
		*) echo "${f##*/}: $state"; return ;;
		esac
	done
	echo "$worst"
}

serve_sigkill() {
	local i ms
	for i in $(seq "$kills"); do
		find d -mindepth 1 -delete 2>/dev/null
		ms=$((RANDOM % 4000))
		"$LOCKSTAT" serve -q -D d/serve -s 1 -l none 2>>log &
		pid=$!
		sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		tally "SIGKILL at random (0-4000 ms), -s 1" serve "$(serve_judge)"
	done
}

# --- the workload stopped, then continued; or stopped until -d ends the run ------------
# The workload's pid once it runs (exec'd: its name is fdstorm), or nothing.
workload_pid() {
	local i
	for i in $(seq 100); do
		pgrep -P $pid -x fdstorm && return
		sleep 0.05
	done
}

# stop_run scenario cmd -d SECS: the workload is stopped 0.3 s into its run
# and continued after a second, or never (-d then ends it: SIGTERM, and
# SIGKILL 3 s later).
stop_run() {
	local scenario=$1 cmd=$2 wl
	shift 2
	reset_dir "$cmd"
	run_cmd "$cmd" "$@"
	wl=$(workload_pid)
	if [ -z "$wl" ]; then
		kill -9 $pid
		wait $pid
		tally "$scenario" "$cmd" "the workload never ran"
		return
	fi
	sleep 0.3
	kill -STOP "$wl"
	[ "$scenario" = "workload SIGSTOP, SIGCONT" ] && { sleep 1; kill -CONT "$wl"; }
	wait $pid
	tally "$scenario" "$cmd" "$(judge "$cmd")"
}

stopped() {
	local cmd
	workload=("$WL/fdstorm" -d 2 -q)
	for cmd in record top; do
		stop_run "workload SIGSTOP, SIGCONT" "$cmd" -d 6
		stop_run "workload SIGSTOP until -d" "$cmd" -d 1
	done
	reset_dir export
	run_cmd export
	kill -STOP $pid 2>/dev/null; sleep 0.5; kill -CONT $pid 2>/dev/null
	wait $pid
	tally "workload SIGSTOP, SIGCONT" export "$(judge export)"
}

# --- 1000 short children; a setuid binary exec'd by an unprivileged workload ----------
forks_and_setuid() {
	local cmd
	for cmd in record top; do
		workload=(sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i + 1)); done')
		run_once "1000 short children" "$cmd" plain_run "$cmd"
		workload=(setpriv --reuid=65534 --regid=65534 --clear-groups -- \
			  sh -c "$T/fdstorm -d 0.3 -q; exec mount --version")
		run_once "setuid exec (mount)" "$cmd" plain_run "$cmd"
	done
}

disk_full
read_only
sigkill
serve_sigkill
stopped
forks_and_setuid

printf '\n%-38s %-7s %5s %9s %8s %7s %5s\n' scenario command runs complete partial absent bad
for k in "${!runs[@]}"; do
	printf '%-38s %-7s %5d %9d %8d %7d %5d\n' "${k%|*}" "${k#*|}" "${runs[$k]}" "${complete[$k]:-0}" \
		"${partial[$k]:-0}" "${absent[$k]:-0}" "${bad[$k]:-0}"
done | sort
echo "faults: seed $seed, $failures bad runs (previous file damaged or gone, new file unreadable, temporary file left)"
[ "$failures" = 0 ]
