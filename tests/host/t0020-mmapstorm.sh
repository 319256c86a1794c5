#!/bin/bash
# mmap/munmap and page faults in threads of one process contend on the
# mm's mmap_lock, an rwsem, for read and for write.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" record -q -o mm.data -- "$WL/mmapstorm" -t 2 -d 2 -q >/dev/null
"$LOCKSTAT" report -i mm.data -f json >mm.json
lock='.locks[] | select(.name == "mm_struct.mmap_lock")'
check "mm_struct.mmap_lock is contended" jqe "[$lock | .contended] | add > 0" mm.json
check "its types are rwsem:R / rwsem:W" jqe "[$lock | .type] | length > 0 and all(test(\"^rwsem:[RW]$\"))" mm.json
check "both read and write waits are seen" jqe "[$lock | .type] | (index(\"rwsem:R\") != null) and (index(\"rwsem:W\") != null)" mm.json
"$LOCKSTAT" report -i mm.data --type rwsem:W -f json >w.json
check "--type rwsem:W keeps only write waits" jqe '[.locks[].type] | length > 0 and all(. == "rwsem:W")' w.json
"$LOCKSTAT" report -i mm.data --lock 'mm_struct.*' -f json >f.json
check "--lock glob keeps only mmap_lock" jqe '[.locks[].name] | length > 0 and all(. == "mm_struct.mmap_lock")' f.json
done_testing
