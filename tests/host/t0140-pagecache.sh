#!/bin/bash
# The pagecache family: tworead's two files, named while they exist (the
# workload deletes them at its end), with the pages read into the cache
# and taken out again; under a memory cgroup smaller than the files,
# reclaim evicts them while they are read.
. "$(dirname "$0")/lib.sh"
require_root; require_cmd jq
require_tracepoint filemap mm_filemap_add_to_page_cache mm_filemap_delete_from_page_cache

cg=
trap '[ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$T"' EXIT

pages=$((32 * 1024 * 1024 / $(getconf PAGESIZE)))
ours='(.path // "" | test("/tworead-[ab]\\.[A-Za-z0-9]{6}$"))'
# Both of tworead's files pass the jq condition $1 in $2.
both() { jqe "[.files[] | select($ours) | select($1)] | length == 2" "$2"; }

"$LOCKSTAT" record -q -e locks,pagecache -o cold.data -- "$WL/tworead" --cold -s 32 -d 1 -D "$T" -q >/dev/null
check "record -e locks,pagecache exits 0" test $? = 0
"$LOCKSTAT" report -i cold.data --view pagecache -f json >cold.json
check "report --view pagecache -f json parses" jqe . cold.json
mode=$(jq -r .pagecache.probes cold.json)
check "the probes say how they attached ($mode)" jqe '.pagecache.probes | test("^(tp_btf|tracepoint):add,delete")' cold.json
check "both files are listed" jqe "[.files[] | select($ours)] | length == 2" cold.json
# With BTF lockstat attaches tp_btf, which gives the inode: paths and locks.
if [ -r /sys/kernel/btf/vmlinux ]; then
	check "with BTF, the probes are tp_btf ($mode)" jqe '.pagecache.probes | startswith("tp_btf:")' cold.json
	check "with their full path in $T, named before they were deleted" \
		both ".path | startswith(\"$T/\")" cold.json
	check "and their xarray lock" both ".i_pages_lock | test(\"^0x[0-9a-f]{8,}$\")" cold.json
else
	skip_check BTF "full paths and xarray locks" "classic tracepoints give no inode, and there is no BTF for tp_btf"
fi
check "each had a file's worth of pages added ($pages: read after --cold)" \
	both ".added >= $pages" cold.json
check "--cold and the final unlink removed them, outside reclaim" \
	both ".removed >= $pages" cold.json
check "every page added was removed or evicted by the end (large folios counted whole)" \
	both ".added == .evicted + .removed" cold.json
check "the tworead process did it" \
	jqe '[.processes[] | select(.comm == "tworead") | .added > 0] | any' cold.json
if has_tracepoint filemap mm_filemap_get_pages; then
	check "mm_filemap_get_pages is in the kernel: lookups are attached ($mode)" grep -Eq '[:,]lookup(,|$)' <<<"$mode"
	check "read() lookups counted, hit% estimated within 0..100" \
		both ".lookups >= $pages and .hit_pct >= 0 and .hit_pct <= 100" cold.json
else
	check "without mm_filemap_get_pages, hit% is null" both ".hit_pct == null" cold.json
fi
if has_tracepoint readahead page_cache_ra_unbounded || has_tracepoint readahead page_cache_ra_order; then
	check "the readahead tracepoints are in the kernel: they are attached ($mode)" grep -Eq '[:,]ra(,|$)' <<<"$mode"
	check "readahead read each file, up to its end ($pages pages)" \
		both ".readahead > 0 and .readahead <= $pages * 2" cold.json
else
	skip_check TRACEPOINT "readahead pages" "no readahead tracepoints in this kernel"
fi
if [ -r /sys/kernel/btf/vmlinux ]; then
	"$LOCKSTAT" report -i cold.data --view tables --table lock_names -f csv >names.csv
	"$LOCKSTAT" report -i cold.data --view pagecache -f csv >cold.csv
	named=0
	for l in $(awk -F, '$1 == "file" && $4 ~ /\/tworead-[ab]\./ { print $15 }' cold.csv | sort -u); do
		grep -q "^$l,address_space.i_pages$" names.csv && named=$((named + 1))
	done
	check "lock_names names both files' locks address_space.i_pages" test "$named" = 2
fi

# Classic tracepoints (kernels without BTF): dev and inode numbers only,
# named from the workload's open files at a drain.
"$LOCKSTAT" record -q -e pagecache --attach tracepoint -o classic.data -- \
	"$WL/tworead" --cold -s 32 -d 1 -D "$T" -q >/dev/null
"$LOCKSTAT" report -i classic.data --view pagecache -f json >classic.json
check "--attach tracepoint: classic probes" jqe '.pagecache.probes | startswith("tracepoint:")' classic.json
check "--attach tracepoint: both files, named from /proc, pages counted alike" \
	both ".added >= $pages and .added == .evicted + .removed and .i_pages_lock == null" classic.json

# Text and CSV carry the same rows.
"$LOCKSTAT" report -i cold.data --view pagecache >cold.txt
check "text: the header explains hit%" grep -q '^# hit%' cold.txt
check "text: both files under FILES" test "$(sed -n '/^FILES/,/^PROCESSES/p' cold.txt | grep -Ec '/tworead-[ab]\.')" = 2
check "text: tworead under PROCESSES" grep -Eq ' tworead$' cold.txt
"$LOCKSTAT" report -i cold.data --view pagecache -f csv >cold.csv
check "csv: a constant column count" awk -F, 'NR == 1 { n = NF } NF != n { exit 1 } END { exit NR < 3 }' cold.csv
check "csv: the header names the columns" \
	grep -q '^row,dev,ino,path,pid,comm,added,evicted,removed,lookups,hit_pct,' cold.csv
check "csv: both files and the process" \
	test "$(grep -Ec '^file,.*/tworead-[ab]\.' cold.csv)-$(grep -c '^process,.*,tworead,' cold.csv)" = 2-1
"$LOCKSTAT" report -i cold.data --view pagecache -f csv -n 1 >top.csv
check "-n 1 keeps the file with most pages added" test "$(grep -c '^file,' top.csv)" = 1
"$LOCKSTAT" record -q -e locks -o nopc.data -- true
"$LOCKSTAT" report -i nopc.data --view pagecache >/dev/null 2>nopc.err
check "a profile without pagecache data is an error that says so" \
	grep -q 'record with -e pagecache' nopc.err

# A memory cgroup smaller than the files: cgroup v2's memory.max, else v1.
cg_v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg_v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
limit=$((48 * 1024 * 1024))
if [ -n "$cg_v2" ] && grep -qw memory "$cg_v2/cgroup.controllers" 2>/dev/null; then
	grep -qw memory "$cg_v2/cgroup.subtree_control" || echo +memory >"$cg_v2/cgroup.subtree_control"
	cg=$cg_v2/lockstat-test-$$
	mkdir "$cg" && echo "$limit" >"$cg/memory.max" || cg=
elif [ -n "$cg_v1" ]; then
	cg=$cg_v1/lockstat-test-$$
	mkdir "$cg" && echo "$limit" >"$cg/memory.limit_in_bytes" || cg=
fi
if [ -z "$cg" ]; then
	skip_check MEMCG "evictions under a memory cgroup" "no memory cgroup controller (v2 memory.max or v1) to limit the run"
	done_testing
	exit
fi
"$LOCKSTAT" record -q -e pagecache -o small.data -- \
	sh -c "echo \$\$ >$cg/cgroup.procs && exec $WL/tworead --cold -s 64 -d 2 -D $T -q" >/dev/null
check "record in a 48 MB memory cgroup exits 0" test $? = 0
"$LOCKSTAT" report -i small.data --view pagecache -f json >small.json
check "both 64 MB files are evicted while read" \
	both ".evicted > 0" small.json
check "more pages added than fit, each added page gone by the end" \
	both ".added > $pages * 2 and .added == .evicted + .removed" small.json ||
	jq -c '{lost: .lost, files: [.files[] | {name, added, evicted, removed}]}' small.json | sed 's/^/# /'
check "tworead reclaimed them itself (memcg reclaim runs in the charging task)" \
	jqe '[.processes[] | select(.comm == "tworead") | .evicted > 0] | any' small.json
done_testing
