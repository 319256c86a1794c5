#!/bin/bash
# The families' counter tables are trimmed as they fill: a shell that
# runs /bin/true 10 000 times makes a row per process in pagecache's
# process table (4096 rows: its pages looked up and faulted) and in fd's
# thread table (8192 rows: ld.so's openat and close), more than either
# map holds. With the rows that changed longest ago removed once a map
# is half full, no row is lost to a full map, and record says how many
# trims it made (-v). The shell starts 1 500 to 3 000 processes a second
# here: 0.25 s buckets, since a map must hold the new rows of two.
. "$(dirname "$0")/lib.sh"
require_root; require_cmd jq
require_tracepoint filemap mm_filemap_add_to_page_cache mm_filemap_delete_from_page_cache

"$LOCKSTAT" record -v --bucket 0.25 -e pagecache,fd -o fork.data -- \
	sh -c 'i=0; while [ $i -lt 10000 ]; do /bin/true; i=$((i + 1)); done' >/dev/null 2>fork.err
check "record -e pagecache,fd of 10 000 processes exits 0 ($?)" test $? = 0
said=$(grep 'lost:' fork.err)
for fam in pagecache fd; do
	trims=$(grep -c "^$fam: removed [0-9]* rows idle longest" fork.err)
	check "$fam: its table was trimmed as it filled ($trims trims)" test "$trims" -ge 1
	# record's lost: line names the family's loss tables too: none here.
	check "$fam: no row lost to a full map, nothing lost by the trim (${said:-no lost: line})" \
		sh -c "! grep -q '$fam.lost\\.\\|${fam}_trimmed_late' fork.err"
done
"$LOCKSTAT" report -i fork.data --view pagecache -f json >pc.json
procs=$(jq '[.processes[] | select(.comm == "true")] | length' pc.json)
check "pagecache: the processes are in the profile ($procs named true, > 4096)" test "${procs:-0}" -gt 4096
"$LOCKSTAT" report -i fork.data --view fd -f json >fd.json
threads=$(jq '[.. | objects | select(has("tid") and .comm? == "true")] | length' fd.json)
check "fd: the threads are in the profile ($threads named true, > 8192)" test "${threads:-0}" -gt 8192
done_testing
