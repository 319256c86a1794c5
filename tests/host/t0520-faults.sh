#!/bin/bash
# The quick cases of the fault-injection script, tests/faults/run.sh: a
# full disk, a read-only target, a few SIGKILLs at random moments, a
# stopped workload, 1000 children, a setuid exec; record, top -o and
# export -o each. The 100-SIGKILL run is the script without --quick.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd setpriv

"$ROOT_DIR/tests/faults/run.sh" --quick >faults.out 2>&1
rc=$?
sed 's/^/# /' faults.out
check "every run: the previous file intact, the new one readable or absent, nothing left ($rc)" test $rc = 0
done_testing
