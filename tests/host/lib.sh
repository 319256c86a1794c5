# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by every host test. A test script is a list of checks; each
# check prints one TAP line. Prerequisites are named, and a missing one
# skips the whole script with its reason (exit 77), as git's tests do.

set -u
ROOT_DIR=$(cd "$(dirname "$0")/../.." && pwd)
LOCKSTAT=${LOCKSTAT:-$ROOT_DIR/build/lockstat}
WL=${WORKLOADS:-$ROOT_DIR/build/workloads}
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

require_root() { [ "$(id -u)" = 0 ] || skip_all "ROOT: needs root (CAP_BPF, CAP_PERFMON)"; }
require_btf() { [ -r /sys/kernel/btf/vmlinux ] || skip_all "BTF: no /sys/kernel/btf/vmlinux"; }
require_tracepoint() {
	"$LOCKSTAT" probe 2>/dev/null | grep -Eq '^(tracepoint|tp_btf):lock +yes' ||
		skip_all "TRACEPOINT: no lock:contention_begin/end in this kernel"
}
require_cmd() { command -v "$1" >/dev/null 2>&1 || skip_all "$1 is not installed"; }

ok() {
	n_ok=$((n_ok + 1))
	echo "ok - $test_name: $*"
}

not_ok() {
	n_fail=$((n_fail + 1))
	echo "not ok - $test_name: $*"
}

# check "description" command...: passes when the command succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# JSON query helper: jq -e on a file.
jqe() { jq -e "$@" >/dev/null 2>&1; }

done_testing() {
	echo "# $test_name: $n_ok passed, $n_fail failed"
	[ "$n_fail" = 0 ]
}
