#!/bin/bash
# lockstat top's full-screen view, driven through tmux (send-keys,
# capture-pane): it shows the locks, sorts, filters, drills into a lock,
# switches views, survives a resize, and leaves the terminal as it found
# it (stty -g before and after) on q, Ctrl-C, SIGTERM and a crash.
# The replay part runs the ASan/UBSan build without root; the live part
# (top -- fdstorm) needs root.
. "$(dirname "$0")/lib.sh"
require_cmd tmux
ASAN=${ASAN_LOCKSTAT:-$ROOT_DIR/build/asan/lockstat}
DATA=$ROOT_DIR/tests/data
SOCK=$T/tmux.sock
trap 'tmux -S "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
chmod 755 "$T"

tm() { tmux -S "$SOCK" "$@"; }
screen() { tm capture-pane -p -t top 2>/dev/null; }
# Up to $2 tenths of seconds for the pattern to show; the screen when it does not.
wait_for() {
	local i
	for ((i = 0; i < ${2:-50}; i++)); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	screen | sed 's/^/#   | /' | grep -v '^#   | *$'
	return 1
}
# One key at a time, as people type: tmux would join Esc and the next key into Alt-key.
key() { tm send-keys -t top "$@"; sleep 0.4; }
type_text() { tm send-keys -t top -l "$1"; sleep 0.2; }

# A fresh pane: no session, no server, nor the files of the last run (a
# check must not pass on them). Killing the last session ends the server,
# and a new session started while it exits is lost with it: wait for it.
new_pane() {
	local i
	tm kill-server 2>/dev/null
	for ((i = 0; i < 50; i++)); do tm has-session 2>/dev/null || break; sleep 0.1; done
	rm -f stty.before stty.after exit.rc
	tm new-session -d -s top -x 160 -y 40 -c "$T" "bash --norc --noprofile" ||
		{ sleep 1; tm new-session -d -s top -x 160 -y 40 -c "$T" "bash --norc --noprofile"; }
	sleep 0.3
}
# A shell in a 160x40 pane runs CMD, between two snapshots of the terminal's settings.
start() {
	new_pane
	type_text "stty -g >stty.before; $1; echo EXIT=\$?; stty -g >stty.after"
	key Enter
}
# start_sh CMD: the same, but under a non-interactive sh: an interactive
# bash saves the terminal's settings and puts them back itself when a job
# dies of a signal, which would hide whether top restored them.
start_sh() {
	new_pane
	type_text "sh -c 'stty -g >stty.before; $1; echo EXIT=\$? | tee exit.rc; stty -g >stty.after'"
	key Enter
}
# The newest lockstat top of this build: ours.
top_pid() { pgrep -n -f "^$LOCKSTAT top "; }
sane() { sleep 0.3; test -s stty.after && cmp -s stty.before stty.after; }
left_full_screen() { ! screen | grep -q 'h help  q quit'; }
unprivileged() {
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		echo "setpriv --reuid=65534 --regid=65534 --clear-groups"
	fi
}
san_clean() { ! grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$1"; }
drawn() { screen | grep -q "lockstat top  $1" && screen | grep -q 'CONT/s' && screen | grep -q 'h help  q quit'; }
fits() { screen | grep -q 'lockstat top' && [ "$(screen | wc -l)" -le "$1" ] && screen | grep -q 'CONT/s' && ! screen | grep -q 'CALLER'; }
locks_shown() { [ "$(screen | grep -Ec ' (spinlock|mutex|rwsem|rwlock)')" = "$1" ]; }

# --- the view under ASan/UBSan, on a replay (no root) -----------------------------
if [ -x "$ASAN" ]; then
	start "ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:exitcode=98 $(unprivileged) $ASAN top --replay $DATA/fdstorm.data --speed 0.5 2>asan.err"
	check "replay: the view shows files_struct.file_lock" wait_for 'files_struct\.file_lock'
	check "replay: header, column names and key help are drawn" drawn REPLAY
	key '>'
	check "replay: > sorts by the next column" wait_for 'sort: avg '
	key '<'
	key '/'
	check "replay: / asks for a filter" wait_for '^filter \(lock='
	type_text "caller=alloc"
	key Enter
	check "replay: the filter applies and is shown" wait_for 'filter: caller=alloc'
	check "replay: the lock taken from alloc_fd stays" wait_for 'files_struct\.file_lock +alloc_fd'
	key Enter
	check "replay: Enter shows the lock's callers and stacks" wait_for 'kernel stacks, most waited first'
	check "replay: the stack goes through alloc_fd" wait_for '^ +alloc_fd\+0x'
	key Escape
	check "replay: Esc goes back to the locks" wait_for 'CONT/s +WAIT/s'
	key '/'
	key C-u
	key Enter
	key 2
	check "replay: 2 shows the sampled functions" wait_for 'HITS/s .*FUNCTION'
	key 3
	check "replay: 3 shows the other families' tables" wait_for "the other families' counters"
	key h
	check "replay: h shows the help" wait_for 'sort by the column to the left or right'
	key Escape
	key 1
	tm resize-window -t top -x 90 -y 20
	sleep 0.5
	check "replay: after a resize to 90x20 the view is redrawn to fit, fewer columns" fits 20
	tm resize-window -t top -x 160 -y 40
	sleep 0.5
	check "replay: and back to 160x40, the callers column returns" wait_for 'CALLER'
	key ' '
	check "replay: space pauses" wait_for 'PAUSED'
	key ' '
	key r
	check "replay: r resets the cumulative counters" wait_for 'since reset'
	key +
	check "replay: + lengthens the interval" wait_for 'every 2 s'
	key q
	check "replay: q quits, exit 0" wait_for '^EXIT=0'
	check "replay: q leaves the terminal's settings as they were" sane
	check "replay: q leaves the full screen" left_full_screen
	check "replay: no sanitizer report" san_clean asan.err

	start "$(unprivileged) $ASAN top --replay $DATA/fdstorm.data --speed 0.2 2>asan2.err"
	wait_for 'files_struct\.file_lock' >/dev/null
	key C-c
	check "replay: Ctrl-C quits, exit 0" wait_for '^EXIT=0'
	check "replay: Ctrl-C leaves the terminal as it was" sane
	check "replay: Ctrl-C: no sanitizer report" san_clean asan2.err
else
	skip_check ASAN "the full-screen replay under ASan/UBSan" "$ASAN is not built (make unit-tests)"
fi

# A crash: the handler restores the terminal, then the signal kills top.
start_sh "$LOCKSTAT top --replay $DATA/fdstorm.data --speed 0.1"
wait_for 'lockstat top  REPLAY' >/dev/null
kill -SEGV "$(top_pid)"
for ((i = 0; i < 50; i++)); do [ -s exit.rc ] && break; sleep 0.1; done
check "SIGSEGV: top dies of it ($(cat exit.rc 2>/dev/null || echo 'no exit status'))" grep -qx EXIT=139 exit.rc
check "SIGSEGV: the terminal's settings are restored" sane
check "SIGSEGV: the full screen is left" left_full_screen

# --- live (root) -------------------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	skip_check ROOT "live top under tmux" "needs root (CAP_BPF, CAP_PERFMON)"
	done_testing
	exit
fi
start "$LOCKSTAT top -- $WL/fdstorm -t 2 -d 60 -q"
check "live: top -- fdstorm shows files_struct.file_lock" wait_for 'files_struct\.file_lock' 150
check "live: the header measures the probes' cost" wait_for 'probe cost [0-9.]+ % of a CPU'
key '>'
check "live: > sorts" wait_for 'sort: avg '
key '/'
type_text "file_lock"
key Enter
check "live: / file_lock filters the locks" wait_for 'filter: lock=file_lock'
check "live: only the fd table's lock is left" locks_shown 1
key Enter
check "live: Enter drills into its callers and stacks" wait_for 'kernel stacks, most waited first'
key q
check "live: q quits top and its workload, exit 0" wait_for '^EXIT=0' 80
check "live: the terminal's settings are as before" sane
check "live: the full screen is left" left_full_screen
check "live: fdstorm is gone" sh -c "! pgrep -f '^$WL/fdstorm -t 2 -d 60' >/dev/null"

start "$LOCKSTAT top -a"
wait_for 'lockstat top  LIVE' >/dev/null
kill -TERM "$(top_pid)"
check "live: SIGTERM stops top, exit 0" wait_for '^EXIT=0'
check "live: SIGTERM leaves the terminal as it was" sane
check "live: SIGTERM leaves the full screen" left_full_screen

start "$LOCKSTAT top -- $WL/fdstorm -t 2 -d 2 -q"
check "live: when the workload ends, its last figures stay on the screen" wait_for 'lockstat top  FINISHED' 100
key q
check "live: then q quits" wait_for '^EXIT=0'
check "live: the terminal is as before" sane
done_testing
