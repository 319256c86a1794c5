#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dynamic locks named down to the struct field through their slab cache
# (bpf_get_kmem_cache, Linux 6.13+), checked on objects whose layout the
# test knows: lockstat's own task and files (probe's self-check), a
# files_struct both through the slab and through its per-task class, a
# struct file's f_pos_lock and an inode's i_rwsem while onefile hammers
# one file, and dbench's hot lock (the block device inode's buffer list
# lock, which stress-ng's dentry stressor hits from the same caller).
# The same names in three runs of each workload, and diff matches every
# row of two of them by name. A lock in a cache SLUB merged with others
# (stress-ng --flock's file_lock_ctx, merged with ftrace_event_field and
# more) is named by its struct or by the set of the merged caches, never
# by the one cache the merged one is named after.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq; require_cmd stress-ng
bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "FUNC 'bpf_get_kmem_cache'" ||
	skip_all "KFUNC: no bpf_get_kmem_cache() in this kernel (Linux 6.13+): the VM tier tests the fallback"

"$LOCKSTAT" probe >probe.txt 2>probe.err
check "probe: slab fields, self-check 8 of 8 named right" \
	grep -Eq '^slab fields +yes +slab fields \(bpf_get_kmem_cache; self-check: 8 of 8 named right\)' probe.txt
for want in 'current->files->file_lock: files_struct.file_lock' 'current->mm->mmap_lock: mm_struct.mmap_lock' \
	    'current->sighand->siglock: sighand_struct.siglock' 'current->pi_lock: task_struct.pi_lock' \
	    'current->signal->cred_guard_mutex: signal_struct.cred_guard_mutex' \
	    'file->f_pos_lock: file.f_pos_lock' 'file->f_path.dentry->d_lockref.lock: dentry.d_lockref.lock'; do
	check "probe: $want" grep -Eq "^slab self-check +yes +$(sed 's/[.[\*^$]/\\&/g' <<<"$want")\$" probe.txt
done
check "probe: its binary's inode i_lock is the filesystem's inode struct's" \
	grep -Eq '^slab self-check +yes +file->f_inode->i_lock: ([a-z0-9_]+\.vfs_inode|[a-z0-9_]+\.i_vnode|inode)\.i_lock$' probe.txt
check "probe: the merged slab caches the self-check met, and how their locks were named" \
	grep -Eq '^merged slab caches +yes +[0-9]+ met, [0-9]+ lock\(s\) in them named by type, [0-9]+ as a set of caches(;.*)?$' probe.txt

# fdstorm's files_struct.file_lock, named by its per-task class, is named
# the same through its slab cache: at least one lock checked, none named
# otherwise. With no class lock at all, it is the workers' overlap that
# says whether that is a defect or a busy machine.
run_overlapped fd.out sh -c '"$0" record -v -e locks -o fd.data -- "$1" -t 4 -d 2 2>fd.err' "$LOCKSTAT" "$WL/fdstorm"
echo "# fdstorm: $(tail -n 1 fd.out)"
what="fdstorm: the slab path names the class locks as their class does, never otherwise"
if grep -q 'lock names: the slab path names' fd.err || [ "$overlapped" = 1 ]; then
	check "$what" grep -Eq 'lock names: the slab path names [1-9][0-9]* lock\(s\) of the per-task classes as the class does, 0 otherwise' fd.err ||
		grep 'lock names' fd.err
else
	concurrency_skip "$what"
fi

top_lock() {	# name of the lock with the most waits, of a type matching $2
	"$LOCKSTAT" report -i "$1" -f json -k contended |
		jq -r --arg t "$2" '[.locks[] | select(.type | test($t))][0] | "\(.name) \(.contended)"'
}

# profile, caller function or "type:T": the name of the lock that caller
# waited on most (the scheduler's run-queue lock, taken inside a mutex's
# slow path, has the mutex's caller too), or of the type's busiest lock.
lock_of() {
	"$LOCKSTAT" report -i "$1" -f json -k contended | jq -r --arg c "$2" '
		if ($c | startswith("type:")) then
			[.locks[] | select(.type == ($c | ltrimstr("type:")))][0].name // "none"
		else
			[.locks[] | {name, n: ([.callers[] | select(.symbol | startswith($c + "+")) | .contended] | add // 0)}
			 | select(.n > 0)] | max_by(.n).name // "none"
		end'
}
# has_waits PROFILE TYPE-REGEX: some lock of that type was waited on.
has_waits() { [ "$(top_lock "$1" "$2")" != "null null" ]; }

# check_waited WORKLOAD TYPE-REGEX "what" command...: a check about the
# workload's contended lock. Where a run had no such lock and its workers
# hardly ran at once, the machine was busy: skipped, by name. (A mutex's
# waiters sleep, so onefile's overlap is low even while it is contended:
# the waits, not the overlap, decide.)
check_waited() {
	local w=$1 t=$2 what=$3 i
	shift 3
	for i in 1 2 3; do
		has_waits $w.$i.data "$t" || [ "${busy[$w]}" = 0 ] || { concurrency_skip "$what"; return 0; }
	done
	check "$what" "$@"
}

fs=$(stat -f -c %T .)
declare -A busy=([pos]=0 [write]=0 [dentry]=0)	# stress-ng says no overlap
for i in 1 2 3; do
	for m in pos write; do
		"$LOCKSTAT" record -q -e locks -o $m.$i.data -- \
			"$WL/onefile" --mode $m -t 2 -d 1 >$m.$i.out 2>>rec.err
		overlapped_in $m.$i.out || busy[$m]=1
		echo "# onefile: $(tail -n 1 $m.$i.out)"
	done
	"$LOCKSTAT" record -q -e locks -o dentry.$i.data -- stress-ng --dentry 4 --timeout 2 -q >/dev/null 2>>rec.err
done
read -r name n <<<"$(top_lock pos.1.data '^mutex')"
check_waited pos '^mutex' "onefile --mode pos: the mutex with the most waits is file.f_pos_lock ($name, $n waits)" \
	test "$name" = file.f_pos_lock
read -r name n <<<"$(top_lock write.1.data '^rwsem:W')"
check_waited write '^rwsem:W' "onefile --mode write on $fs: the rwsem with the most waits is the inode's i_rwsem ($name, $n waits)" \
	grep -Eqx '([a-z0-9_]+\.vfs_inode|[a-z0-9_]+\.i_vnode|inode)\.i_rwsem' <<<"$name"
name=$(lock_of dentry.1.data find_get_block_common)
check "stress-ng --dentry on $fs: the lock waited on from find_get_block_common, dbench's hot caller, is the block device inode's buffer lock ($name)" \
	test "$name" = bdev_inode.vfs_inode.i_data.i_private_lock

# The lock waited on most from the call site that identifies it, by name:
# the same in every run, and never a raw address (each run has a new
# struct file and a new inode). Writes are told by their type.
for w in 'pos|fdget_pos|^mutex' 'write|type:rwsem:W|^rwsem:W' 'dentry|find_get_block_common|.'; do
	IFS='|' read -r f by t <<<"$w"
	a=$(lock_of $f.1.data "$by") b=$(lock_of $f.2.data "$by") c=$(lock_of $f.3.data "$by")
	check_waited $f "$t" "$f: the lock waited on from ${by#type:} has the same name in three runs ($a, $b, $c)" \
		test "$a" != none -a "$a" = "$b" -a "$b" = "$c"
	check_waited $f "$t" "$f: ... and it is not a raw address" test "${a:0:2}" != 0x
done

# diff matches the workload's lock by name, and never shows one anonymous
# lock as gone under one function and new under another (a row of each,
# of the same type, with a caller in common): the first caller seen,
# which named them before, changes from run to run.
split_anon='def funcs: [.callers[]?.symbol | select(startswith("[") | not)];
	[.rows[] | select(.status == "new" and (.name | startswith("[anon]")))] as $new |
	[.rows[] | select(.status == "gone" and (.name | startswith("[anon]")))] as $gone |
	[$new[] as $n | $gone[] | select(.type == $n.type and ((funcs - ($n | funcs)) != funcs))] | length == 0'
for w in 'pos|file.f_pos_lock|^mutex' 'dentry|bdev_inode.vfs_inode.i_data.i_private_lock|.'; do
	IFS='|' read -r f name t <<<"$w"
	"$LOCKSTAT" diff -f json $f.1.data $f.2.data >$f.diff.json 2>diff.err
	check_waited $f "$t" "diff of two $f runs: $name is matched" \
		jqe --arg n "$name" '[.rows[] | select(.name == $n) | .status] | any(. != "new" and . != "gone")' $f.diff.json
	check "diff of two $f runs: no anonymous lock is gone under one name and new under another" \
		jqe "$split_anon" $f.diff.json
done
# stress-ng --flock: every flock takes its inode's file_lock_context.flc_lock,
# in the 56-byte cache file_lock_ctx that Linux 6.18 merges into one named
# ftrace_event_field. The lock is its struct's field, or a set of merged
# caches that has file_lock_ctx in it.
"$LOCKSTAT" record -q -e locks -o flock.data -- stress-ng --flock 2 --timeout 3 -q >/dev/null 2>>rec.err
name=$(lock_of flock.data flock_lock_inode)
what="stress-ng --flock: the lock waited on from flock_lock_inode is file_lock_context.flc_lock or a set of caches with file_lock_ctx ($name)"
if [ "$name" = none ]; then
	skip_check CONCURRENCY "$what" "no wait from flock_lock_inode (machine busy)"
else
	check "$what" grep -Eqx 'file_lock_context\.flc_lock|&\{([^}]*,)?file_lock_ctx(,[^}]*)?\}\+0x0' <<<"$name"
fi
"$LOCKSTAT" report -i flock.data >flock.txt
check "stress-ng --flock: the report's header counts the merged slab caches met and their locks named" \
	grep -Eq '^# lock names: .*; merged slab caches: [1-9][0-9]* met, [0-9]+ lock\(s\) in them named by type, [0-9]+ as a set of caches(;.*)?$' flock.txt

# No lock of any of these recordings is named after one cache of a merged
# one ("&ftrace_event_field+0x0"): /sys/kernel/slab links each merged
# cache's names to one directory.
for f in *.data; do
	"$LOCKSTAT" report -i "$f" -f json | jq -r '.locks[].name | select(startswith("&") and (startswith("&{") | not))'
done | sed 's/^&\([^+]*\).*/\1/' | sort -u >single.txt
merged=$(while read -r c; do [ -L "/sys/kernel/slab/$c" ] && echo "$c"; done <single.txt | tr '\n' ' ')
check "no lock in $(ls *.data | wc -l) recordings is named after one of the caches of a merged cache (${merged:-none})" \
	test -z "$merged"
done_testing
