#!/bin/bash
# The pagecache family's per-process table (4096 rows) is trimmed as it
# fills: a shell that runs /bin/true 6000 times makes a row per process
# (its pages looked up and faulted), more than the map holds. With the
# rows that changed longest ago removed once it is half full, no row is
# lost to a full map, and record says how many trims it made (-v). The
# shell starts 1 500 to 3 000 processes a second here: 0.25 s buckets,
# since a map must hold the new rows of two buckets.
. "$(dirname "$0")/lib.sh"
require_root; require_cmd jq
require_tracepoint filemap mm_filemap_add_to_page_cache mm_filemap_delete_from_page_cache

"$LOCKSTAT" record -v --bucket 0.25 -e pagecache -o fork.data -- \
	sh -c 'i=0; while [ $i -lt 6000 ]; do /bin/true; i=$((i + 1)); done' >/dev/null 2>fork.err
check "record -e pagecache of 6000 processes exits 0 ($?)" test $? = 0
trims=$(grep -c 'pagecache: removed [0-9]* rows idle longest' fork.err)
check "the per-process table was trimmed as it filled ($trims trims)" test "$trims" -ge 1
"$LOCKSTAT" report -i fork.data --view pagecache -f json >fork.json
procs=$(jq '[.processes[] | select(.comm == "true")] | length' fork.json)
check "the processes are in the profile ($procs named true)" test "${procs:-0}" -gt 4096
# record's lost: line names the family's loss tables too: none here.
check "no process lost to a full map (no pagecache.lost.procs_full in: $(grep 'lost:' fork.err))" \
	sh -c "! grep -q 'pagecache.lost.procs_full' fork.err"
check "the trim lost nothing it had counted" sh -c "! grep -q 'pagecache_trimmed_late' fork.err"
done_testing
