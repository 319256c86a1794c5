# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the t08xx tests of lockstat serve, after lib.sh.

# serve_start NAME ARGS...: lockstat serve in the background, on a free
# loopback port, its messages in NAME.err; sets SERVE_PID and URL.
serve_start() {
	local name=$1 i
	shift
	"$LOCKSTAT" serve -l 127.0.0.1:0 "$@" 2>"$name.err" &
	SERVE_PID=$!
	URL=
	for i in $(seq 100); do
		URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$name.err" | head -1)
		[ -n "$URL" ] && return 0
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# serve did not start:" >&2
	sed 's/^/#   /' "$name.err" >&2
	return 1
}

# serve_stop [SIGNAL]: stop it and wait; sets SERVE_RC.
serve_stop() {
	kill -"${1:-TERM}" "$SERVE_PID" 2>/dev/null
	wait "$SERVE_PID"
	SERVE_RC=$?
}

# metric NAME{LABELS} from a /metrics page in a file: its value, or nothing.
metric() { awk -v m="$1" 'index($0, m " ") == 1 { print $NF }' "$2"; }

# The segments of a directory, oldest first (X.data before X.1.data: "data" sorts as 0).
segments() { ls "$1" 2>/dev/null | grep -E '^lockstat-[0-9]{8}T[0-9]{6}Z(\.[1-9][0-9]*)?\.data$' | sort -t. -k1,1 -k2,2n; }

# Wait up to $2 seconds (default 10) for a command to succeed.
wait_for() {
	local cmd=$1 secs=${2:-10} i
	for i in $(seq $((secs * 10))); do
		eval "$cmd" && return 0
		sleep 0.1
	done
	return 1
}
