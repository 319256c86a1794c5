#!/bin/bash
# Bad input gets one clear line and a non-zero exit, never a crash.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" record --bogus -- true 2>err; rc=$?
check "unknown option: exit 2 ($rc)" test $rc = 2
check "unknown option: usage on stderr" grep -q 'usage: lockstat record' err
"$LOCKSTAT" frobnicate 2>err; rc=$?
check "unknown command: exit 2 ($rc)" test $rc = 2
"$LOCKSTAT" record 2>err; rc=$?
check "no target: exit 2 with a reason ($rc)" sh -c "test $rc = 2 && grep -q 'nothing to record' err"
"$LOCKSTAT" record -d abc -- true 2>err; rc=$?
check "bad duration: exit 2 and names the option" sh -c "test $rc = 2 && grep -q -- '--duration' err"

"$LOCKSTAT" record -q -o nf.data -- /nonexistent/cmd 2>err; rc=$?
check "command not found: exit 127 ($rc)" test $rc = 127
check "command not found: says so" grep -q "cannot run '/nonexistent/cmd'" err
check "command not found: no profile left behind" test ! -e nf.data
touch noexec.sh
"$LOCKSTAT" record -q -o nx.data -- ./noexec.sh 2>err; rc=$?
check "command not executable: exit 126 ($rc)" test $rc = 126

"$LOCKSTAT" record -q -o /nonexistent-dir/x.data -- touch ran-anyway 2>err; rc=$?
check "unwritable output: exit 1 ($rc)" test $rc = 1
check "unwritable output: one line naming the file" sh -c "test \$(wc -l <err) = 1 && grep -q '/nonexistent-dir/x.data' err"
check "unwritable output: the workload never started" test ! -e ran-anyway

if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$LOCKSTAT" record -o /tmp/np.data -- true 2>err; rc=$?
	check "no privileges: exit 1 ($rc)" test $rc = 1
	check "no privileges: names the capabilities" grep -q 'CAP_BPF' err
else
	skip_check SETPRIV "no privileges: exit 1, names the capabilities" "setpriv is not installed (Debian: util-linux)"
fi

"$LOCKSTAT" report -i missing.data 2>err; rc=$?
check "missing profile: exit 1 with the reason" sh -c "test $rc = 1 && grep -q 'No such file' err"
"$LOCKSTAT" report -i missing.data -f json 2>/dev/null >err.json
check "JSON mode: the error is JSON on stdout too" jqe '.error | test("missing.data: No such file")' err.json
echo "hello world, not a profile" >foreign.data
"$LOCKSTAT" report -i foreign.data 2>err; rc=$?
check "foreign file: exit 1, 'not a lockstat profile'" sh -c "test $rc = 1 && grep -q 'not a lockstat profile' err"
"$LOCKSTAT" report -i . 2>err; rc=$?
check "a directory: exit 1" test $rc = 1
"$LOCKSTAT" record -q -o ok.data -- true
printf 'LKSTAT\0\n' | cat - <(head -c 56 /dev/zero) >hdr.data
"$LOCKSTAT" report -i hdr.data 2>err; rc=$?
check "damaged header: exit 1, names the checksum" sh -c "test $rc = 1 && grep -q 'checksum' err"
"$LOCKSTAT" report -i ok.data -k nosuchkey 2>err; rc=$?
check "bad sort key: exit 2" test $rc = 2
"$LOCKSTAT" report -i ok.data --pid 1 2>err; rc=$?
check "--pid on a profile without -t: exit 1 with the reason" sh -c "test $rc = 1 && grep -q 'recorded with -t' err"
"$LOCKSTAT" report -i ok.data >/dev/full 2>err; rc=$?
check "a full stdout is an error, not silence ($rc)" sh -c "test $rc = 1 && grep -q 'standard output' err"
done_testing
