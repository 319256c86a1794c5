// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Page cache traffic per file and per process, from the filemap and
 * readahead tracepoints, in pages:
 *
 * mm_filemap_add_to_page_cache(folio)          added
 * mm_filemap_delete_from_page_cache(folio)     evicted (reclaim) or removed
 * mm_filemap_get_pages(mapping, first, last)   lookups by read()   (not in 6.1)
 * mm_filemap_fault(mapping, index)             faults              (not in 6.1)
 * mm_filemap_map_pages(mapping, first, last)   fault-around        (not in 6.1)
 * page_cache_ra_unbounded / page_cache_ra_order  readahead         (not in 6.1)
 *
 * The tp_btf handlers get the folio or the mapping, so they can name the
 * file (one dentry chain, walked once per file) and its xarray lock; the
 * classic ones only get dev and inode numbers and serve kernels without
 * BTF. The collector loads, per event, the one handler this kernel fits.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pagecache.h"
#include "targets.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define E2BIG		7
#define PF_MEMALLOC	0x00000800	/* include/linux/sched.h: reclaim runs with it */

const volatile __u32 page_shift = 12;	/* set by the collector */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, struct pc_file_key);
	__type(value, struct pc_val);
	__uint(max_entries, 8192);
} pc_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, struct pc_proc_key);
	__type(value, struct pc_val);
	__uint(max_entries, 4096);
} pc_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct pc_file_key);
	__type(value, struct pc_info);
	__uint(max_entries, 8192);
} pc_info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct pc_lost);
	__uint(max_entries, 1);
} pc_lost SEC(".maps");

/* A pc_info is too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct pc_info);
	__uint(max_entries, 1);
} info_scratch SEC(".maps");

/* The last page_cache_ra_order() window of a task, by thread id. */
struct ra_window {
	struct pc_file_key file;
	__u64 first;
	__u64 end;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, struct ra_window);
	__uint(max_entries, 4096);
} ra_recent SEC(".maps");

static __always_inline struct pc_lost *lost(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&pc_lost, &zero);
}

/* A row of a per-CPU hash, made on first use when create; NULL when full. */
static __always_inline struct pc_val *row_of(void *map, const void *key, bool create, bool *made)
{
	struct pc_val zero = {}, *v;

	v = bpf_map_lookup_elem(map, key);
	if (v || !create)
		return v;
	*made = !bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/*
 * Name the file while it still has one: the dentry chain from the inode
 * up to its filesystem's root (the collector prefixes the mount point),
 * and the addresses of the mapping's xarray lock and the inode's i_lock
 * (both taken by reclaim), which contention rows show bare. Runs once
 * per file, when its row is made.
 */
static __always_inline void note_file(const struct pc_file_key *fk, struct inode *host,
				      struct address_space *mapping)
{
	struct hlist_node *alias = BPF_CORE_READ(host, i_dentry.first);
	struct dentry *d = NULL, *parent = NULL;
	struct pc_info *in;
	struct pc_lost *l;
	__u32 zero = 0, i;

	in = bpf_map_lookup_elem(&info_scratch, &zero);
	if (!in)
		return;
	in->i_pages_lock = mapping ? (__u64)&mapping->i_pages.xa_lock : 0;
	in->i_lock = (__u64)&host->i_lock;
	in->depth = 0;
	in->truncated = 0;
	if (alias)
		d = (void *)alias - bpf_core_field_offset(struct dentry, d_u.d_alias);
	for (i = 0; d && i < LS_PC_DEPTH; i++) {
		parent = BPF_CORE_READ(d, d_parent);
		if (!parent || parent == d)
			break;
		bpf_probe_read_kernel_str(in->names[i], LS_PC_NAME_LEN, BPF_CORE_READ(d, d_name.name));
		in->depth = i + 1;
		d = parent;
	}
	if (d && i == LS_PC_DEPTH)
		in->truncated = BPF_CORE_READ(d, d_parent) != d;
	if (bpf_map_update_elem(&pc_info, fk, in, BPF_NOEXIST) == -E2BIG && (l = lost()))
		l->info_full++;
}

/*
 * Count pages against the file and the current process. The target
 * filter keeps the files its processes touch; anyone else (kswapd, a
 * reclaiming neighbour, rm) counts only where it takes a known file's
 * pages away, in that file's row and under its own name.
 */
static __always_inline void account(const struct pc_file_key *fk, struct inode *host,
				    struct address_space *mapping, __u32 what, __u64 pages)
{
	struct pc_proc_key pk = {};
	struct pc_lost *l;
	struct pc_val *v;
	bool target, made = false;

	if (what >= PC__COUNT)
		return;
	pk.tgid = bpf_get_current_pid_tgid() >> 32;
	target = is_target(pk.tgid);
	if (!target && what != PC_EVICTED && what != PC_REMOVED)
		return;
	v = row_of(&pc_files, fk, target, &made);
	if (!v) {
		if (target && (l = lost()))
			l->files_full++;
		return;
	}
	if (made && host)
		note_file(fk, host, mapping);
	v->v[what] += pages;
	bpf_get_current_comm(pk.comm, sizeof(pk.comm));
	v = row_of(&pc_procs, &pk, true, &made);
	if (v)
		v->v[what] += pages;
	else if ((l = lost()))
		l->procs_full++;
}

/*
 * tp_btf handlers only: their pointers are typed, so plain loads (which the
 * verifier turns into faulting-safe ones) replace bpf_probe_read calls on
 * the hottest path, mm_filemap_get_pages on every read().
 */
static __always_inline void on_inode(struct inode *host, struct address_space *mapping, __u32 what,
				     __u64 pages)
{
	struct pc_file_key fk = {};

	if (!host)
		return;
	fk.ino = host->i_ino;
	fk.dev = host->i_sb->s_dev;
	account(&fk, host, mapping, what, pages);
}

static __always_inline void on_mapping(struct address_space *mapping, __u32 what, __u64 pages)
{
	if (mapping)
		on_inode(mapping->host, mapping, what, pages);
}

static __always_inline void on_classic(unsigned long ino, __u32 dev, __u32 what, __u64 pages)
{
	struct pc_file_key fk = { .ino = ino, .dev = dev };

	account(&fk, NULL, NULL, what, pages);
}

static __always_inline __u64 folio_pages(struct folio *folio)
{
	unsigned long flags = 0;
	unsigned int n = 1;

	bpf_probe_read_kernel(&flags, sizeof(flags), folio);
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (bpf_core_field_exists(folio->_nr_pages))
		n = BPF_CORE_READ(folio, _nr_pages);
	else if (bpf_core_field_exists(((struct folio___old *)folio)->_folio_nr_pages))
		n = BPF_CORE_READ((struct folio___old *)folio, _folio_nr_pages);
	return n ? n : 1;
}

/* Reclaim (kswapd, direct or memcg reclaim) runs with PF_MEMALLOC set. */
static __always_inline __u32 removal_kind(void)
{
	struct task_struct *t = (void *)bpf_get_current_task();

	return BPF_CORE_READ(t, flags) & PF_MEMALLOC ? PC_EVICTED : PC_REMOVED;
}

static __always_inline __u64 range_pages(unsigned long first, unsigned long last)
{
	return last >= first ? last - first + 1 : 0;
}

/*
 * page_cache_ra_order() falls back to do_page_cache_ra(), which fires
 * page_cache_ra_unbounded() for the same window: count a window once.
 */
static __always_inline void ra_order(const struct pc_file_key *fk, unsigned long first, __u64 size)
{
	struct ra_window w = { .file = *fk, .first = first, .end = first + size };
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_update_elem(&ra_recent, &tid, &w, BPF_ANY);
}

static __always_inline bool ra_is_fallback(const struct pc_file_key *fk, unsigned long index)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ra_window *w = bpf_map_lookup_elem(&ra_recent, &tid);

	if (!w || w->file.ino != fk->ino || w->file.dev != fk->dev || index < w->first ||
	    index >= w->end)
		return false;
	bpf_map_delete_elem(&ra_recent, &tid);
	return true;
}

/*
 * A readahead window may reach past the end of the file, which reads
 * nothing there: count up to the end where the inode tells it (tp_btf).
 */
static __always_inline __u64 within_file(struct inode *host, unsigned long index, __u64 n)
{
	__u64 end;

	if (!host)
		return n;
	end = ((__u64)host->i_size + (1ULL << page_shift) - 1) >> page_shift;
	if (index >= end)
		return 0;
	return n < end - index ? n : end - index;
}

static __always_inline void on_ra_unbounded(const struct pc_file_key *fk, struct inode *host,
					    unsigned long index, __u64 nr)
{
	if (!ra_is_fallback(fk, index))
		account(fk, host, host ? host->i_mapping : NULL, PC_READAHEAD,
			within_file(host, index, nr));
}

static __always_inline void on_ra_order(const struct pc_file_key *fk, struct inode *host,
					unsigned long index, __u64 size)
{
	ra_order(fk, index, size);
	account(fk, host, host ? host->i_mapping : NULL, PC_READAHEAD, within_file(host, index, size));
}

static __always_inline void inode_key(struct inode *inode, struct pc_file_key *fk)
{
	fk->ino = inode->i_ino;
	fk->dev = inode->i_sb->s_dev;
	fk->__pad = 0;
}

/* --- tp_btf ------------------------------------------------------------- */

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(add_btf, struct folio *folio)
{
	on_mapping(folio->mapping, PC_ADDED, folio_pages(folio));
	return 0;
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(delete_btf, struct folio *folio)
{
	on_mapping(folio->mapping, removal_kind(), folio_pages(folio));
	return 0;
}

SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(get_pages_btf, struct address_space *mapping, unsigned long first, unsigned long last)
{
	on_mapping(mapping, PC_LOOKUPS, range_pages(first, last));
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(fault_btf, struct address_space *mapping, unsigned long index)
{
	on_mapping(mapping, PC_FAULTS, 1);
	return 0;
}

SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(map_pages_btf, struct address_space *mapping, unsigned long first, unsigned long last)
{
	on_mapping(mapping, PC_MAP_PAGES, range_pages(first, last));
	return 0;
}

SEC("tp_btf/page_cache_ra_unbounded")
int BPF_PROG(ra_unbounded_btf, struct inode *inode, unsigned long index, unsigned long nr_to_read)
{
	struct pc_file_key fk;

	if (!inode)
		return 0;
	inode_key(inode, &fk);
	on_ra_unbounded(&fk, inode, index, nr_to_read);
	return 0;
}

SEC("tp_btf/page_cache_ra_order")
int BPF_PROG(ra_order_btf, struct inode *inode, unsigned long index, struct file_ra_state *ra)
{
	struct pc_file_key fk;

	if (!inode || !ra)
		return 0;
	inode_key(inode, &fk);
	on_ra_order(&fk, inode, index, BPF_CORE_READ(ra, size));
	return 0;
}

/* --- classic tracepoints: dev and inode numbers only ----------------------- */

static __always_inline __u64 classic_pages(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	if (bpf_core_field_exists(ctx->order))
		return 1ULL << (ctx->order & 31);
	return 1;
}

SEC("tracepoint/filemap/mm_filemap_add_to_page_cache")
int add_tp(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	on_classic(ctx->i_ino, ctx->s_dev, PC_ADDED, classic_pages(ctx));
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_delete_from_page_cache")
int delete_tp(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	on_classic(ctx->i_ino, ctx->s_dev, removal_kind(), classic_pages(ctx));
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_get_pages")
int get_pages_tp(struct trace_event_raw_mm_filemap_op_page_cache_range *ctx)
{
	on_classic(ctx->i_ino, ctx->s_dev, PC_LOOKUPS, range_pages(ctx->index, ctx->last_index));
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_fault")
int fault_tp(struct trace_event_raw_mm_filemap_fault *ctx)
{
	on_classic(ctx->i_ino, ctx->s_dev, PC_FAULTS, 1);
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_map_pages")
int map_pages_tp(struct trace_event_raw_mm_filemap_op_page_cache_range *ctx)
{
	on_classic(ctx->i_ino, ctx->s_dev, PC_MAP_PAGES, range_pages(ctx->index, ctx->last_index));
	return 0;
}

SEC("tracepoint/readahead/page_cache_ra_unbounded")
int ra_unbounded_tp(struct trace_event_raw_page_cache_ra_unbounded *ctx)
{
	struct pc_file_key fk = { .ino = ctx->i_ino, .dev = ctx->s_dev };

	on_ra_unbounded(&fk, NULL, ctx->index, ctx->nr_to_read);
	return 0;
}

SEC("tracepoint/readahead/page_cache_ra_order")
int ra_order_tp(struct trace_event_raw_page_cache_ra_order *ctx)
{
	struct pc_file_key fk = { .ino = ctx->i_ino, .dev = ctx->s_dev };

	on_ra_order(&fk, NULL, ctx->index, ctx->size);
	return 0;
}
