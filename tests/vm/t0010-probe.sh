#!/bin/sh
# The guest kernel (Debian's cloud kernel) offers what the host may not:
# fentry trampolines and kprobes, beside BTF and the lock tracepoints.
# probe must see them all, and pick tp_btf for the contention family.
. "$(dirname "$0")/lib.sh"

"$LOCKSTAT" probe >probe.txt 2>probe.err
check "probe exits 0" test $? = 0
for f in btf tracefs tracepoint:lock tp_btf:lock fentry kprobe perf_event uprobe; do
	check "probe: $f available ($(awk -v f="$f" '$1 == f { $1 = ""; print substr($0, 2) }' probe.txt))" \
		feature_yes "$f" probe.txt
done
check "probe: the contention family uses tp_btf" grep -Eq '^contention +tp_btf ' probe.txt
check "probe: nothing on stderr" test ! -s probe.err

"$LOCKSTAT" probe -f csv >probe.csv
check "probe -f csv says fentry,yes and kprobe,yes" \
	awk -F, '$1 == "fentry" && $2 == "yes" { a = 1 } $1 == "kprobe" && $2 == "yes" { b = 1 } END { exit !(a && b) }' probe.csv
done_testing
