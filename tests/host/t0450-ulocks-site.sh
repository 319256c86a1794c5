#!/bin/bash
# Per-thread waits grouped by their wait site (-e ulocks): semsite's four
# workers each wait on their own semaphore from await_turn, through the
# wrapper semaphore_wait; two threads share shared_sem. The per-thread
# words are one row, "[per-thread]@await_turn" of type u:site, in the
# default report, its caller worker_main, in every reader of the locks
# view (text, JSON, CSV, top, diff, export); shared_sem stays its own
# row, a u:futex (an event: shown with --type).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_cmd jq

"$LOCKSTAT" record -q -e ulocks -o probe.data -- true >/dev/null 2>&1
"$LOCKSTAT" report -i probe.data -f json >probe.json 2>/dev/null
jqe '.meta.probes.ulocks | test("^tracepoint")' probe.json ||
	skip_all "TRACEPOINT: ulocks $(jq -r .meta.probes.ulocks probe.json 2>/dev/null)"

build_prog semsite
N=4 S=2 R=20
"$LOCKSTAT" record -q -e ulocks -o s.data -- ./semsite $N $S $R >s.out 2>s.err
check "semsite ran: $(cat s.out)" grep -qx "waits=$(((N + S) * R))" s.out

"$LOCKSTAT" report -i s.data -f json >s.json
SITE='[per-thread]@await_turn'
n=$(jq --arg s "$SITE" '[.locks[] | select(.name == $s and .type == "u:site")] | length' s.json)
check "the per-thread waits are one row, $SITE, u:site: $n" test "$n" = 1
c=$(jq --arg s "$SITE" '.locks[] | select(.name == $s) | .contended' s.json)
# A post may come before its wait: that wait does not sleep. Most sleep.
check "its waits: ${c:-none} of $((N * R)), at least half" test "${c:-0}" -ge $((N * R / 2)) -a "${c:-0}" -le $((N * R))
check "its caller is worker_main, alone" \
	jqe --arg s "$SITE" '[.locks[] | select(.name == $s) | .callers[].symbol] == ["worker_main"]' s.json
check "no u:futex row in the default report (shared_sem is an event)" \
	jqe '[.locks[] | select(.type == "u:futex")] | length == 0' s.json
check "no per-thread site named after the wrapper or the C library" \
	jqe '[.locks[] | select(.name | test("semaphore_wait|sem_wait|futex"))] | length == 0' s.json

"$LOCKSTAT" report -i s.data --type u:futex -f json >f.json
check "shared_sem, waited on by $S threads, is its own u:futex row" \
	jqe '[.locks[] | select(.name == "shared_sem" and .type == "u:futex")] | length == 1' f.json
check "no per-thread semaphore is a u:futex row" \
	jqe '[.locks[] | select(.name | test("own_sem"))] | length == 0' f.json
"$LOCKSTAT" report -i s.data --type u:site -f json >t.json
check "--type u:site: the site's row alone" jqe --arg s "$SITE" '[.locks[].name] == [$s]' t.json

"$LOCKSTAT" report -i s.data >s.txt
check "text report: the row" grep -qF "u:site  $SITE" s.txt
"$LOCKSTAT" report -i s.data -f csv >s.csv
check "CSV report: the row" grep -qF "$SITE" s.csv
"$LOCKSTAT" top --replay s.data --speed 0 -b >top.txt 2>&1
check "top: the row" grep -qF "$SITE" top.txt
"$LOCKSTAT" diff s.data s.data >diff.txt 2>&1
check "diff: the row, by its site" grep -qF "u:site  $SITE" diff.txt
"$LOCKSTAT" export -i s.data -f folded >s.folded
check "export: the site's stacks under its name, through the wrapper" \
	grep -q "^\[per-thread\]@await_turn;.*worker_main;await_turn;semaphore_wait;" s.folded
done_testing
