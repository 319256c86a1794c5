#!/bin/bash
# Output files of record and top (lib/base/outfile.c): only regular files are
# replaced, symlinks are followed, the umask holds, the previous profile
# is kept as FILE.old, a full disk leaves both profiles readable, a kill
# during set-up leaves nothing; and record's --metric, --repeat and
# bounds.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

# fsck's walk reached the end of the file and every payload parsed (an END
# chunk may be missing: a killed recording); prints the bucket count.
readable() {
	local out
	out=$("$LOCKSTAT" fsck "$1" 2>&1 | tail -n 1)
	[[ $out == "end of file at byte "*" buckets, "* ]] || { echo "$1: $out" >&2; return 1; }
	sed -E 's/.*; ([0-9]+) buckets.*/\1/' <<<"$out"
}
rec() { "$LOCKSTAT" record -q -e locks "$@"; }

# --- what is never replaced ------------------------------------------------
mkfifo fifo
rec -o fifo -- touch ran 2>err; rc=$?
check "a FIFO: refused, exit 1 ($rc)" test $rc = 1
check "a FIFO: one line that says what it is" sh -c "test \$(wc -l <err) = 1 && grep -q 'fifo is a FIFO' err"
check "a FIFO: still a FIFO, and the workload never ran" sh -c "test -p fifo && test ! -e ran"
mknod null c 1 3	# a private /dev/null: the real one is not put at risk
rec -o null -- true 2>err; rc=$?
check "a device node: refused, exit 1, still a device ($rc)" sh -c \
	"test $rc = 1 && test -c null && grep -q 'a character device' err"
ln -s null to-null
rec -o to-null -- true 2>/dev/null; rc=$?
check "a symlink to a device: refused, the link stays ($rc)" sh -c "test $rc = 1 && test -L to-null && test -c null"
mkdir adir
rec -o adir -- true 2>err; rc=$?
check "a directory: refused ($rc)" sh -c "test $rc = 1 && grep -q 'adir is a directory' err"
"$LOCKSTAT" top -b -n 1 -o fifo -- true >/dev/null 2>err; rc=$?
check "top -o FIFO: refused too ($rc)" sh -c "test $rc = 1 && test -p fifo && grep -q 'is a FIFO' err"

# --- symlinks, umask, FILE.old ----------------------------------------------
mkdir d
ln -s d/real.data link.data
(umask 027 && rec -o link.data -- "$WL/fdstorm" -d 0.3 -q >/dev/null)
check "a symlink is followed: the link stays, its target is the profile" \
	eval 'test -L link.data && readable d/real.data >/dev/null'
check "the umask holds (027: mode 640)" test "$(stat -c %a d/real.data)" = 640
cp d/real.data first.copy
rec -o link.data -- "$WL/fdstorm" -d 0.3 -q >/dev/null
check "the previous profile becomes the target's .old, byte for byte" cmp -s first.copy d/real.data.old
check "the new profile is complete" "$LOCKSTAT" fsck -q d/real.data
check "no temporary file is left" test -z "$(ls -A d | grep -v '^real\.data\(\.old\)\?$')"

rec -o keep.data -- "$WL/fdstorm" -d 0.2 -q >/dev/null
cp keep.data keep.copy
rec -o keep.data -- /nonexistent/cmd 2>/dev/null; rc=$?
check "a command that cannot run: exit 127, the profile untouched, no .old ($rc)" sh -c \
	"test $rc = 127 && cmp -s keep.copy keep.data && test ! -e keep.data.old"

# --- a full disk ------------------------------------------------------------
mkdir small
if mount -t tmpfs -o size=256k lockstat-test small 2>/dev/null; then
	rec -o small/p.data -- "$WL/fdstorm" -d 0.3 -q >/dev/null
	cp small/p.data good.copy
	# Room for the new header and a bucket or two, not for 3 s of samples.
	head -c $((($(df -k --output=avail small | tail -n 1) - 8) * 1024)) /dev/zero >small/fill
	"$LOCKSTAT" record -e locks,sample -F 999 --bucket 0.05 -o small/p.data -- \
		"$WL/hotspots" -d 3 >/dev/null 2>err; rc=$?
	check "full disk: exit 1, says so ($rc)" sh -c "test $rc = 1 && grep -q 'No space left on device' err"
	check "full disk: the previous profile is intact as p.data.old" cmp -s good.copy small/p.data.old
	check "full disk: the message names p.data.old" grep -q 'the previous profile is small/p.data.old' err
	check "full disk: the new file ends at a whole chunk, its buckets readable" eval 'readable small/p.data >/dev/null'
	umount small
else
	not_ok "full disk: cannot mount a small tmpfs"
fi

# --- killed during set-up ------------------------------------------------------
rec -o set.data -- true
cp set.data set.copy
left=
for delay in 0.02 0.05 0.1 0.2 0.3 0.5 0.8; do
	"$LOCKSTAT" record -q -e locks -o set.data -- sleep 5.25 &
	pid=$!
	sleep $delay
	kill -9 $pid
	wait $pid 2>/dev/null
	pkill -9 -f '^sleep 5.25$' 2>/dev/null
	left+=$(ls -A | grep '^\.lockstat-')
	# The old profile is the name or, once the new one took it, its .old.
	if [ -e set.data.old ]; then
		cmp -s set.copy set.data.old && readable set.data >/dev/null || left+=" damaged@$delay"
		mv set.data.old set.data
	else
		cmp -s set.copy set.data || left+=" changed@$delay"
	fi
done
check "SIGKILL during set-up: no temporary file, the old profile intact (${left:-clean})" test -z "$left"

# --- --metric with a closed standard output ------------------------------------
"$LOCKSTAT" record -e locks --metric 'ops/s=([0-9]+)' -o m.data -- \
	sh -c 'for i in 1 2 3 4 5 6; do echo ops/s=$i; sleep .2; done' 2>err | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
check "--metric | head -1: record goes on, the workload's status ($rc)" test "$rc" = 0
check "--metric | head -1: a warning, not silence" grep -q 'standard output failed: Broken pipe' err
check "--metric | head -1: the profile is complete" "$LOCKSTAT" fsck -q m.data
check "--metric | head -1: the last value is the metric" \
	jqe '.meta.metric.value == 6' <("$LOCKSTAT" report -i m.data -f json)

# --- --repeat ------------------------------------------------------------------------
"$LOCKSTAT" record -e locks --repeat 3 -o f.data -- /bin/false 2>err; rc=$?
check "--repeat 3 -- false: every run recorded, exit 1 ($rc)" sh -c \
	"test $rc = 1 && test -s f.1.data -a -s f.2.data -a -s f.3.data"
check "--repeat 3 -- false: a warning per run" test "$(grep -c 'the workload exited with status 1' err)" = 3
rec --repeat 3 -o nf.data -- /nonexistent/cmd 2>err; rc=$?
check "--repeat, a command not found: stops, and says which runs are missing ($rc)" sh -c \
	"test $rc = 127 && grep -q 'runs 2 to 3 are not recorded' err && test ! -e nf.1.data"

# --- bounds ----------------------------------------------------------------------------
rec -d 0.5 --bucket 0.01 -o b.data -- "$WL/fdstorm" -d 0.5 -q >/dev/null
n=$(readable b.data)
check "--bucket 0.01: at most one bucket per 10 ms ($n in 0.5 s)" test "${n:-999}" -le 60
rec --bucket 1e-12 -o b.data -- true 2>err; rc=$?
check "--bucket 1e-12: usage error with the range ($rc)" sh -c "test $rc = 2 && grep -q 'from 0.01 to 3600' err"
"$LOCKSTAT" top -b -i 1e-9 -- true >/dev/null 2>err; rc=$?
check "top -i 1e-9: usage error with the range ($rc)" sh -c "test $rc = 2 && grep -q 'from 0.1 to 3600' err"

# --- top -o keeps the previous profile too ------------------------------------------------
"$LOCKSTAT" top -b -n 1 -e locks -o t.data -- "$WL/fdstorm" -d 5 -q >/dev/null 2>&1
cp t.data t.copy
"$LOCKSTAT" top -b -n 1 -e locks -o t.data -- "$WL/fdstorm" -d 5 -q >/dev/null 2>&1
check "top -o: the previous profile is t.data.old, the new one complete" sh -c \
	"cmp -s t.copy t.data.old && $LOCKSTAT fsck -q t.data"
"$LOCKSTAT" top -b -f json -e locks -o tp.data -- "$WL/fdstorm" -d 10 -q 2>err | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
check "top -b | head -1: exit 1, says why, the profile complete ($rc)" sh -c \
	"test $rc = 1 && grep -q 'Broken pipe' err && $LOCKSTAT fsck -q tp.data"
check "top -b | head -1: stopped at the second snapshot, not after 10 s" \
	jqe '.meta.duration_ns < 5000000000' <("$LOCKSTAT" report -i tp.data -f json)
done_testing
