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
check "probe: the locks family uses tp_btf" grep -Eq '^locks +tp_btf ' probe.txt
check "probe: nothing on stderr" test ! -s probe.err

# fd's mode is record's: the fget family by fentry with auto, and not at
# all under --attach tp (probe used to say fentry there as well).
fd_mode() { awk '$1 == "fd" { print $2 }' "$1"; }
"$LOCKSTAT" probe --attach tp >probe-tp.txt 2>&1
check "probe: fd measures the fget family with fentry ($(fd_mode probe.txt))" \
	grep -Eq '^fd +tp_btf[+]fentry[(]fget' probe.txt || show probe.txt
check "probe --attach tp: fd's fget family is not measured, because of --attach" \
	grep -Eq '^fd +tp_btf .*; fget not measured: --attach=tp uses tracepoints only$' probe-tp.txt ||
	show probe-tp.txt
for mode in auto tp; do
	"$LOCKSTAT" record -q --attach=$mode -e fd -o fd-$mode.data -- true 2>fd-$mode.err
	"$LOCKSTAT" report -i fd-$mode.data --view fd >fd-$mode.txt 2>>fd-$mode.err
	p=probe.txt
	[ $mode = tp ] && p=probe-tp.txt
	want="# probes: contention=not recorded sample=not recorded fd=$(fd_mode $p)"
	[ $mode = tp ] && want="$want; fget not measured: --attach=tp uses tracepoints only"
	check "record --attach $mode: fd's mode is the one probe said" grep -qxF "$want" fd-$mode.txt ||
		show fd-$mode.txt fd-$mode.err
done

"$LOCKSTAT" probe -f csv >probe.csv
check "probe -f csv says fentry,yes and kprobe,yes" \
	awk -F, '$1 == "fentry" && $2 == "yes" { a = 1 } $1 == "kprobe" && $2 == "yes" { b = 1 } END { exit !(a && b) }' probe.csv
done_testing
