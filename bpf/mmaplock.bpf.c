// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mmap_lock hold and wait times from its own tracepoints, which fire on
 * every acquisition (not only the contended ones): the one kernel lock
 * whose hold time needs neither fentry nor kprobes.
 *
 * start_locking(mm, write)       the task asks for the lock
 * acquire_returned(mm, write, ok) it has it (ok) or gave up
 * released(mm, write)            it let go
 *
 * Before 6.8 (b3c6ecf4d4b0, "mm: remove memcg_path from the mmap_lock
 * tracepoints") each also carried the memcg path before `write`. The
 * verifier only allows constant context offsets, so each handler comes
 * in both layouts and the collector loads the one BTF describes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "mmaplock.h"
#include "targets.bpf.h"
#include "sampler.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* One lock a task asked for or holds; a task can hold two mms (fork). */
struct pending_key {
	__u64 lock_addr;
	__u32 tid;
	__u32 write;
};

struct pending {
	__u64 start_ns;		/* 0 when acquired by trylock */
	__u64 acquired_ns;
	struct mmap_key row;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct pending_key);
	__type(value, struct pending);
	__uint(max_entries, 16384);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, struct mmap_key);
	__type(value, struct mmap_val);
	__uint(max_entries, 8192);
} mmap_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct mmap_lost);
	__uint(max_entries, 1);
} mmap_lost SEC(".maps");

/* Scratch for a new pending entry: too big for the BPF stack with a key. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct pending);
	__uint(max_entries, 1);
} scratch SEC(".maps");

static __always_inline struct mmap_lost *lost(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&mmap_lost, &zero);
}

static __always_inline bool wanted(__u32 *tgid, __u32 *tid)
{
	__u64 id = bpf_get_current_pid_tgid();

	*tgid = id >> 32;
	*tid = (__u32)id;
	return *tid && is_target(*tgid);
}

static __always_inline __u64 lock_of(struct mm_struct *mm)
{
	return (__u64)&mm->mmap_lock;
}

static __always_inline struct mmap_val *row_of(struct mmap_key *k)
{
	struct mmap_val zero = { 0 }, *v;
	struct mmap_lost *l;

	v = bpf_map_lookup_elem(&mmap_rows, k);
	if (v)
		return v;
	if (bpf_map_update_elem(&mmap_rows, k, &zero, BPF_NOEXIST) && (l = lost()))
		l->rows_full++;
	return bpf_map_lookup_elem(&mmap_rows, k);
}

static __always_inline int on_start(struct mm_struct *mm, bool write)
{
	struct pending_key pk;
	struct pending *p;
	struct mmap_lost *l;
	__u32 tgid, zero = 0;

	if (!wanted(&tgid, &pk.tid))
		return 0;
	pk.lock_addr = lock_of(mm);
	pk.write = write;
	p = bpf_map_lookup_elem(&scratch, &zero);
	if (!p)
		return 0;
	p->start_ns = bpf_ktime_get_ns();
	p->acquired_ns = 0;
	if (bpf_map_update_elem(&pending, &pk, p, BPF_ANY) && (l = lost()))
		l->pending_full++;
	return 0;
}

/* Close the hold that started at p->acquired_ns, in its own row. */
static __always_inline void account_hold(struct pending *p, __u64 now)
{
	struct mmap_val *v = row_of(&p->row);
	__u64 hold = now - p->acquired_ns;

	if (!v)
		return;
	v->held++;
	v->hold_ns += hold;
	if (hold > v->hold_max_ns)
		v->hold_max_ns = hold;
}

/*
 * mmap_write_downgrade() reports a read acquisition while the task still
 * has the write one: the write hold ends there, the read hold begins.
 */
static __always_inline void end_downgraded(struct pending_key pk, __u64 now)
{
	struct pending *w;

	pk.write = 1;
	w = bpf_map_lookup_elem(&pending, &pk);
	if (!w || !w->acquired_ns)
		return;
	account_hold(w, now);
	bpf_map_delete_elem(&pending, &pk);
}

/*
 * The acquirer's stack, where the sampler gives this acquisition one: a
 * stack costs microseconds, and page faults take the lock thousands of
 * times a second. Every acquisition is counted in its process's row all
 * the same; report weighs the sampled ones for the callers' figures.
 * True when it took one.
 */
static __always_inline bool take_stack(void *ctx, struct mmap_key *row, __u64 now)
{
	/*
	 * Read back from the map: the verifier knows the register as a
	 * pointer into the mm, and a global function takes only numbers.
	 */
	int draw = sampler_draw(*(volatile __u64 *)&row->lock_addr, now);
	/* No sampler (cannot happen): every acquisition its stack, as with p = 1. */
	int shift = draw < 0 ? 0 : (draw & LS_DRAWN) ? draw & ~LS_DRAWN : -1;
	__builtin_memset(row->frames, 0, sizeof(row->frames));
	row->shift = shift >= 0 ? shift : LS_MMAP_UNSAMPLED;
	if (shift < 0)
		return false;
	bpf_get_stack(ctx, row->frames, sizeof(row->frames), 0);
	return true;
}

static __always_inline int on_acquired(void *ctx, struct mm_struct *mm, bool write, bool ok)
{
	__u64 now = bpf_ktime_get_ns(), wait = 0;
	struct pending_key pk;
	struct pending *p;
	struct mmap_val *v;
	struct mmap_lost *l;
	__u32 tgid, zero = 0;
	bool fresh;

	if (!wanted(&tgid, &pk.tid))
		return 0;
	pk.lock_addr = lock_of(mm);
	pk.write = write;
	if (!write && ok)
		end_downgraded(pk, now);
	p = bpf_map_lookup_elem(&pending, &pk);
	fresh = !p;
	if (fresh) {		/* a trylock: no start_locking */
		p = bpf_map_lookup_elem(&scratch, &zero);
		if (!p)
			return 0;
		p->start_ns = 0;
	}
	if (p->start_ns)
		wait = now - p->start_ns;
	p->acquired_ns = now;
	p->row.lock_addr = pk.lock_addr;
	p->row.tgid = tgid;
	p->row.write = pk.write;
	/* The hold starts after our stack: it would add microseconds to the sampled ones. */
	if (take_stack(ctx, &p->row, now))
		p->acquired_ns = bpf_ktime_get_ns();
	v = row_of(&p->row);
	if (v) {
		if (ok)
			v->acquired++;
		else
			v->failed++;
		v->wait_ns += wait;
		if (wait > v->wait_max_ns)
			v->wait_max_ns = wait;
	}
	if (!ok) {
		if (!fresh)
			bpf_map_delete_elem(&pending, &pk);
		return 0;
	}
	if (fresh && bpf_map_update_elem(&pending, &pk, p, BPF_ANY) && (l = lost()))
		l->pending_full++;
	return 0;
}

static __always_inline int on_released(struct mm_struct *mm, bool write)
{
	struct pending_key pk;
	struct pending *p;
	struct mmap_lost *l;
	__u32 tgid;

	if (!wanted(&tgid, &pk.tid))
		return 0;
	pk.lock_addr = lock_of(mm);
	pk.write = write;
	p = bpf_map_lookup_elem(&pending, &pk);
	if (!p || !p->acquired_ns) {
		if ((l = lost()))
			l->no_acquire++;
		return 0;
	}
	account_hold(p, bpf_ktime_get_ns());
	bpf_map_delete_elem(&pending, &pk);
	return 0;
}

SEC("tp_btf/mmap_lock_start_locking")
int BPF_PROG(start_btf, struct mm_struct *mm, bool write)
{
	return on_start(mm, write);
}

SEC("tp_btf/mmap_lock_acquire_returned")
int BPF_PROG(acquired_btf, struct mm_struct *mm, bool write, bool ok)
{
	return on_acquired(ctx, mm, write, ok);
}

SEC("tp_btf/mmap_lock_released")
int BPF_PROG(released_btf, struct mm_struct *mm, bool write)
{
	return on_released(mm, write);
}

/* Before 6.8: (mm, memcg_path, write[, success]). */
SEC("tp_btf/mmap_lock_start_locking")
int BPF_PROG(start_old, struct mm_struct *mm, const char *memcg, bool write)
{
	return on_start(mm, write);
}

SEC("tp_btf/mmap_lock_acquire_returned")
int BPF_PROG(acquired_old, struct mm_struct *mm, const char *memcg, bool write, bool ok)
{
	return on_acquired(ctx, mm, write, ok);
}

SEC("tp_btf/mmap_lock_released")
int BPF_PROG(released_old, struct mm_struct *mm, const char *memcg, bool write)
{
	return on_released(mm, write);
}
