#!/bin/bash
# The ulocks family's tables are trimmed as they fill: manylocks waits
# once on each of 3 000 mutexes through a futex, and four runs of it, a
# bucket or two apart, make 12 000 rows of waits (and as many of wakes)
# for tables of 8 192. With the rows that changed longest ago removed
# once a table is half full, every wait is in the profile and nothing is
# lost; without the trim, 7 620 of them were (ulocks.lost.rows_full).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_cmd jq
require_tracepoint syscalls sys_enter_futex sys_exit_futex

check "manylocks builds" build_prog manylocks
"$LOCKSTAT" record -v --bucket 0.25 -e ulocks -o many.data -- \
	sh -c 'for i in 1 2 3 4; do ./manylocks 3000 || exit 1; sleep 0.6; done' >many.out 2>many.err
check "record -e ulocks of four manylocks runs exits 0 ($?)" test $? = 0
check "manylocks waited 4 x 3000 times" test "$(grep -c '^waits=3000$' many.out)" = 4
trims=$(grep -c '^ulocks: removed [0-9]* rows idle longest' many.err)
check "ulocks: its tables were trimmed as they filled ($trims trims)" test "$trims" -ge 1
said=$(grep 'lost:' many.err)
check "ulocks: no row lost to a full map, nothing lost by the trim (${said:-no lost: line})" \
	sh -c "! grep -q 'ulocks.lost\\.\\|ulocks_trimmed_late' many.err"
"$LOCKSTAT" report -i many.data -f json >many.json
waits=$(jq '[.locks[] | select(.user) | .contended] | add // 0' many.json)
check "every wait is in the profile ($waits contended user acquisitions, 12000)" test "$waits" = 12000
rows=$(jq '[.locks[] | select(.user)] | length' many.json)
check "one row a mutex and process ($rows, 12000)" test "$rows" = 12000
done_testing
