# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by every VM test (tests/vm/t*.sh), which runs inside the guest
# under busybox sh: no bash-isms, no jq. Same shape as tests/host/lib.sh:
# a test is a list of checks, each printing one TAP line; a missing
# prerequisite skips the whole script with its reason (exit 77).

set -u
LOCKSTAT=${LOCKSTAT:-/usr/bin/lockstat}
WL=${WORKLOADS:-/usr/lib/lockstat/workloads}
T=$(mktemp -d /tmp/lockstat-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

n_ok=0
n_fail=0
test_name=$(basename "$0" .sh)

skip_all() {
	echo "SKIP: $test_name: $*"
	exit 77
}

ok() {
	n_ok=$((n_ok + 1))
	echo "ok - $test_name: $*"
}

not_ok() {
	n_fail=$((n_fail + 1))
	echo "not ok - $test_name: $*"
}

# check "description" command...: passes when the command succeeds.
# Returns 1 when it failed, for `check ... || show FILE`.
check() {
	what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; return 1; fi
}

# show FILE...: the files as "#" comments, to explain a failed check.
show() {
	for f in "$@"; do
		[ -s "$f" ] && sed "s|^|# $f: |" "$f"
	done
	return 0
}

done_testing() {
	echo "# $test_name: $n_ok passed, $n_fail failed"
	[ "$n_fail" = 0 ]
}

# feature_yes FEATURE [FILE]: `lockstat probe` (saved in FILE, else run
# now) says FEATURE is available.
feature_yes() {
	if [ $# -gt 1 ]; then cat "$2"; else "$LOCKSTAT" probe 2>/dev/null; fi |
		awk -v f="$1" '$1 == f && $2 == "yes" { found = 1 } END { exit !found }'
}

require_feature() {
	feature_yes "$1" || skip_all "$1: not available in this kernel ($(uname -r))"
}

# CSV as `lockstat report -f csv` writes it (RFC 4180 quoting), columns
# found by their header name.
_csv_awk='
function parse(line,   n, i, c, f, q) {
	n = 0; f = ""; q = 0
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (q) {
			if (c == "\"") {
				if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0
			} else f = f c
		} else if (c == "\"") q = 1
		else if (c == ",") { F[++n] = f; f = "" }
		else f = f c
	}
	F[++n] = f
	return n
}
{ sub(/\r$/, "") }
NR == 1 { n = parse($0); for (i = 1; i <= n; i++) col[F[i]] = i; next }
{ parse($0) }
'

# csv_col FILE ROW LOCK COLUMN: COLUMN of each row of kind ROW (lock,
# caller, total) whose lock is LOCK ("" for any), one a line.
csv_col() {
	awk -v row="$2" -v lock="$3" -v want="$4" "$_csv_awk"'
	(want in col) && F[col["row"]] == row && (lock == "" || F[col["lock"]] == lock) { print F[col[want]] }
	' "$1"
}

# csv_sum FILE ROW LOCK COLUMN: the sum of those values (0 when none).
csv_sum() {
	csv_col "$@" | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
