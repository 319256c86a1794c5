#!/bin/bash
# A profile cut at any byte is read up to its last good chunk with a
# warning, or refused with a clear error, never a crash.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" record -q -o full.data -- "$WL/fdstorm" -t 2 -d 2 -q >/dev/null
size=$(stat -c %s full.data)
check "fsck passes a complete profile" "$LOCKSTAT" fsck -q full.data
crashes=0 refused=0 partial=0 silent=0
# Up to size - 1: a cut at the size is the whole file, rightly read in silence.
for off in $(seq 0 7 $((size - 1))) $(seq 0 1 80); do
	head -c "$off" full.data >cut.data
	"$LOCKSTAT" report -i cut.data -f json >cut.json 2>cut.err
	rc=$?
	if [ $rc -ge 128 ]; then crashes=$((crashes + 1)); echo "# crash (exit $rc) at offset $off"; continue; fi
	if [ $rc = 0 ]; then
		partial=$((partial + 1))
		grep -Eq 'truncated at byte|no END chunk' cut.err || { silent=$((silent + 1)); echo "# no warning at $off"; }
		jq -e . cut.json >/dev/null || { crashes=$((crashes + 1)); echo "# bad JSON at $off"; }
	else
		refused=$((refused + 1))
		[ "$(wc -l <cut.err)" = 1 ] && grep -q '^lockstat: ' cut.err || { silent=$((silent + 1)); echo "# unclear error at $off: $(head -c 200 cut.err)"; }
	fi
done
check "no crash and valid JSON at any cut ($crashes bad)" test "$crashes" = 0
check "every partial read warns, every refusal is one clear line ($silent not)" test "$silent" = 0
check "cuts past the header are read, not refused ($partial read, $refused refused)" test "$partial" -gt "$refused"
head -c $((size - 3)) full.data >cut.data
"$LOCKSTAT" fsck -q cut.data
check "fsck fails on a truncated profile" test $? = 1
"$LOCKSTAT" fsck cut.data >fsck.out
check "fsck names the truncation" grep -q 'truncated chunk at byte' fsck.out
# Flip one byte in the middle: the CRC catches it.
cp full.data bad.data
printf '\xff' | dd of=bad.data bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$LOCKSTAT" report -i bad.data >/dev/null 2>bad.err
check "a damaged chunk is reported with its offset" grep -Eq 'damaged chunk at byte [0-9]+|truncated at byte' bad.err
done_testing
