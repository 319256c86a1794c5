// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel lock contention: lock:contention_begin/end, aggregated in the
 * kernel per lock x type x kernel stack x sampling shift x outcome (x task
 * with -t), in rows whose key is kept small (struct cont_key).
 *
 * contention_end runs with the lock already taken, so every nanosecond
 * spent there lengthens the critical section and feeds more contention:
 * for an unsampled wait it only takes a timestamp difference and updates
 * a per-CPU row. The lock's class, the task filter, the sampling and, for
 * an unsampled spinning wait, finding (or making) the row are all done at
 * contention_begin, where the task is about to wait anyway: contention_end
 * then finds that row's lines in the cache. A sampled wait's stack is
 * taken at its end, after its clock stopped (see on_begin()).
 *
 * Every wait is counted in its lock's row; a random sample of them also
 * carries its kernel stack (the caller), each with the probability it was
 * taken with (2^-shift, in the row's key), so that report can weigh each
 * sampled wait by 1/p: an unbiased estimate of every caller's waits.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "contention.h"
#include "targets.bpf.h"
#include "guard.bpf.h"
#include "format/consts.h"
#include "lockname.bpf.h"
#include "sampler.bpf.h"
#include "stackhash.bpf.h"

/* The per-CPU spin stack is indexed with a mask the 6.1 verifier can follow. */
_Static_assert((LS_PENDING_SPIN_DEPTH & (LS_PENDING_SPIN_DEPTH - 1)) == 0,
	       "LS_PENDING_SPIN_DEPTH must be a power of two");

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 per_task;		/* aggregate per task (-t) */

/* Kernel stacks by the hash of their frames: a caller is never lost to a collision. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct cont_stack);
	__uint(max_entries, 16384);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cont_stack);
	__uint(max_entries, 1);
} stack_scratch SEC(".maps");

/*
 * Per-CPU rows: the hot update needs no atomics. Built to be allocated on
 * first use, so that memory grows with the locks seen rather than with
 * max_entries times the number of CPUs; the collector reserves them at
 * load where that is small (record/mapsize.h), since an allocation here
 * lengthens the critical section of the lock just taken.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct cont_key);
	__type(value, struct cont_val);
	__uint(max_entries, 16384);
} stats SEC(".maps");

/* Spinning waits: preemption is off, so the CPU identifies the waiter. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cont_pending_spin);
	__uint(max_entries, 1);
} pending_spin SEC(".maps");

/*
 * Every other wait is the task's: it may sleep, move to another CPU, and
 * a mutex's optimistic spin may schedule away. A task waits for one such
 * lock at a time, but for PREEMPT_RT's nesting (struct cont_task_waits);
 * its slots cost a lookup, where a TID hash would cost an insert and a
 * delete per wait.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cont_task_waits);
} task_waits SEC(".maps");

/* Command name and process per task, for -t. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cont_comm);
	__uint(max_entries, 16384);
} comms SEC(".maps");

struct cont_lost lost;

static __always_inline void count_lost(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

/*
 * Direct loads through the BTF-typed current task (no helper call per
 * field); the pointers are only compared, never dereferenced further.
 * A kernel thread has no mm or files: NULL plus an offset matches no lock.
 *
 * A global function, verified once: the kernel checks each load through
 * a trusted pointer with a search of its BTF by name, and inlined, these
 * three were checked again for every state of contention_begin that
 * reached them (11 of its 16 ms of verification).
 */
__noinline __u32 classify_lock(__u64 addr, __u32 flags)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (flags & (LCB_F_READ | LCB_F_WRITE)) {
		if (!(flags & LCB_F_SPIN) && addr == (__u64)&task->mm->mmap_lock)
			return LOCK_CLASS_MM_MMAP_LOCK;
		return LOCK_CLASS_NONE;
	}
	if (!(flags & LCB_F_SPIN) || (flags & LCB_F_MUTEX))
		return LOCK_CLASS_NONE;
	if (addr == (__u64)&task->files->file_lock)
		return LOCK_CLASS_FILES_FILE_LOCK;
	if (addr == (__u64)&task->sighand->siglock)
		return LOCK_CLASS_SIGHAND_SIGLOCK;
	return LOCK_CLASS_NONE;
}

/*
 * The task's command and process as of its latest wait: a TID reused by
 * another process, or a thread renamed, replaces the entry (a first
 * entry kept for good named a new task's waits after an old one).
 */
static void remember_comm(__u32 tid, __u32 tgid)
{
	struct cont_comm c = { .tgid = tgid }, *old = bpf_map_lookup_elem(&comms, &tid);

	bpf_get_current_comm(c.comm, sizeof(c.comm));
	if (old && old->tgid == tgid && *(__u64 *)old->comm == *(__u64 *)c.comm &&
	    *(__u64 *)&old->comm[8] == *(__u64 *)&c.comm[8])
		return;
	bpf_map_update_elem(&comms, &tid, &c, BPF_ANY);
}

/* Frames mixed into 63 bits; the top bit tells a stack from LS_STACK_NONE/ERR. */
static __u64 hash_stack(const struct cont_stack *st)
{
	return hash_frames(st->ip, st->nr, LS_STACK_DEPTH) | (1ULL << 63);
}

/*
 * Stacks are keyed by their own hash, not by a stack map's bucket: two
 * callers whose stacks share a bucket both keep theirs (a stack map
 * without BPF_F_REUSE_STACKID drops the second, with it the first).
 * n: what bpf_get_stack() returned for the CPU's stack_scratch.
 *
 * A global function: the verifier goes through the frames' loop once,
 * on its own, not once for each state of contention_end that reaches
 * it (start-up's CPU, contrib/bench/startup).
 */
__noinline __u64 keep_stack(long n)
{
	__u32 zero = 0;
	struct cont_stack *st = bpf_map_lookup_elem(&stack_scratch, &zero);
	long err;
	__u64 h;

	if (!st)
		return LS_STACK_ERR;
	if (n <= 0) {
		count_lost(&lost.stack_error);
		return LS_STACK_ERR;
	}
	st->nr = n / sizeof(__u64);
	h = hash_stack(st);
	if (bpf_map_lookup_elem(&stacks, &h))
		return h;
	err = bpf_map_update_elem(&stacks, &h, st, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		count_lost(&lost.stacks_full);
		return LS_STACK_ERR;
	}
	return h;
}

static __u64 take_stack(void *ctx)
{
	__u32 zero = 0;
	struct cont_stack *st = bpf_map_lookup_elem(&stack_scratch, &zero);

	if (!st)
		return LS_STACK_ERR;
	return keep_stack(bpf_get_stack(ctx, st->ip, sizeof(st->ip), 0));
}

/* A sleeping task's stack, for a wait still in progress at the stop. */
static __u64 take_task_stack(struct task_struct *task)
{
	__u32 zero = 0;
	struct cont_stack *st = bpf_map_lookup_elem(&stack_scratch, &zero);

	if (!st)
		return LS_STACK_ERR;
	return keep_stack(bpf_get_task_stack(task, st->ip, sizeof(st->ip), 0));
}

/*
 * A new wait's key: everything but the end, decided while the task waits.
 * now: the wait's start, the sampler's clock too (sampler.bpf.h).
 */
static void fill_key(void *ctx, struct cont_key *k, __u64 addr, __u32 flags, __u64 now)
{
	int draw = sampler_draw(addr, now);
	bool drawn = draw >= 0 && (draw & LS_DRAWN);
	__u32 shift = draw >= 0 ? draw & ~LS_DRAWN : 0;

	/* A wait without a stack keeps its shift too: its chance to have had one. */
	k->lock_addr = addr;
	k->bits = cont_key_bits(flags, classify_lock(addr, flags), shift);
	k->stack = drawn ? LS_STACK_AT_END : LS_STACK_NONE;
	k->tid = 0;
	if (per_task) {
		__u32 tgid, tid;

		/* As lockstat's PID namespace sees it; a task it does not see has none. */
		if (ids_in_ns(bpf_get_current_pid_tgid(), &tgid, &tid) && tid) {
			k->tid = tid;
			remember_comm(tid, tgid);
		}
	}
}

/* A new row, its lock's slab noted first: a drain that sees the row sees that. */
static void make_row(const struct cont_key *key)
{
	struct cont_val zero = { .min_ns = ~0ULL };

	lockname_note(key->lock_addr);
	bpf_map_update_elem(&stats, key, &zero, BPF_NOEXIST);
}

/*
 * A spinning wait's row, found or made while it spins. Where many tasks
 * take turns on a CPU, the row's bucket, key and value are cold, and
 * finding them was most of contention_end's time, under the lock just
 * won (doc/benchmarks.md); found here, they are warm at the end. Only
 * the value's first line is read in; the histogram's slot is not known
 * yet. A new row's allocation is here too, not under the lock. A drain
 * skips a row without waits.
 *
 * Not for a task's wait: it may sleep, and end on another CPU with
 * another per-CPU value, after other tasks have had the cache; and its
 * key may still change (a mutex's spin becomes a sleep), which would
 * leave a row made here unused, taking a place in the map (-M 64 and
 * 100 sleeping waiters kept none of them).
 */
static void touch_row(const struct cont_key *key)
{
	struct cont_val *v = bpf_map_lookup_elem(&stats, key);

	if (v)
		(void)*(volatile __u64 *)&v->count;
	else
		make_row(key);
}

/*
 * A sampled spin's row is found at its end, its stack in its key; but
 * its clock runs from the begin's entry, and an unsampled spin's finding
 * its row here is inside its wait (the lock's holder goes on meanwhile):
 * a sampled spin skipping it measured shorter, its callers' estimates
 * low (fdstorm: 10-15 % of file_lock's wait). It looks up the row its
 * lock's unsampled waits use instead, making none.
 */
static void same_work_as_unsampled(const struct cont_key *key)
{
	struct cont_key k = *key;
	struct cont_val *v;

	k.stack = LS_STACK_NONE;
	v = bpf_map_lookup_elem(&stats, &k);
	if (v)
		(void)*(volatile __u64 *)&v->count;
}

/*
 * A spinner cannot be preempted, so only interrupts nest on a CPU, and no
 * spin lasts a second without the kernel's lockup detectors firing: an
 * entry that old lost its end (a recursion miss) and must not be closed.
 */
#define STALE_SPIN_NS	1000000000ULL

static bool top_is_stale(const struct cont_pending_spin *ps, __u32 depth, __u64 now)
{
	__u32 top = depth - 1;

	if (depth == 0 || depth > LS_PENDING_SPIN_DEPTH)
		return false;
	barrier_var(top);
	return now - ps->slot[top & (LS_PENDING_SPIN_DEPTH - 1)].p.start_ns > STALE_SPIN_NS;
}

/*
 * Whether the CPU's pending spins are another task's: a spinner keeps its
 * CPU until its end (preemption is off; an interrupt's waits are the
 * interrupted task's), so those all lost their ends.
 */
static bool top_is_other_task(const struct cont_pending_spin *ps, __u32 depth, __u64 task)
{
	__u32 top = depth - 1;

	if (depth == 0 || depth > LS_PENDING_SPIN_DEPTH)
		return false;
	barrier_var(top);
	return ps->slot[top & (LS_PENDING_SPIN_DEPTH - 1)].task != task;
}

/*
 * A spin interrupted spins no more until the interrupt returns, and an
 * interrupt waits on few locks: a pending spin with more waits ended
 * above it than that lost its own end, and its task went on spinning
 * over it. Such a spin is left by an interrupt that ran inside one of our
 * programs before its guard was set (a softirq, at an interrupt's exit),
 * when the kernel skipped its end as a recursion; the same task's next
 * spin on that lock in an interrupt whose begin the kernel skipped in
 * the same way then closed it with all the time since (fdstorm: 932 ms
 * on an RCU node's lock, from rcu_core, its task spinning on file_lock
 * thousands of times a second meanwhile). 256 ends inside one spin
 * would be a softirq's burst of contended locks while its CPU spun.
 */
#define MAX_NESTED_ENDS	256

static __u32 depth_without_stale(struct cont_pending_spin *ps, __u32 depth)
{
	__u32 i;

	for (i = 0; i < LS_PENDING_SPIN_DEPTH; i++) {
		__u32 top = depth - 1;

		if (depth == 0 || depth > LS_PENDING_SPIN_DEPTH)
			break;
		barrier_var(top);
		if (ps->slot[top & (LS_PENDING_SPIN_DEPTH - 1)].nested <= MAX_NESTED_ENDS)
			break;
		count_lost(&lost.stale_begin);
		depth--;
	}
	return depth;
}

static void begin_spin(void *ctx, __u64 addr, __u32 flags, __u64 now)
{
	__u64 task = (__u64)bpf_get_current_task_btf();
	__u32 zero = 0, depth;
	struct cont_pending_spin *ps = bpf_map_lookup_elem(&pending_spin, &zero);
	struct cont_spin_wait *slot;

	if (!ps)
		return;
	depth = ps->depth;
	if (top_is_other_task(ps, depth, task)) {
		count_lost(&lost.stale_begin);
		depth = 0;
	}
	depth = depth_without_stale(ps, depth);
	if (depth >= LS_PENDING_SPIN_DEPTH) {
		if (!top_is_stale(ps, depth, now)) {
			count_lost(&lost.nested_dropped);
			return;
		}
		count_lost(&lost.stale_begin);
		depth = 0;
	}
	barrier_var(depth);
	slot = &ps->slot[depth & (LS_PENDING_SPIN_DEPTH - 1)];
	fill_key(ctx, &slot->p.key, addr, flags, now);
	if (slot->p.key.stack != LS_STACK_AT_END)
		touch_row(&slot->p.key);
	else
		same_work_as_unsampled(&slot->p.key);
	slot->p.start_ns = now;
	slot->task = task;
	slot->nested = 0;
	if (top_is_stale(ps, depth, now)) {
		count_lost(&lost.stale_begin);
		ps->slot[0] = *slot;
		depth = 0;
	}
	ps->depth = depth + 1;
}

/*
 * The task's wait goes on: a mutex's waiter sleeps after its spin
 * (MUTEX after MUTEX|SPIN), and its first waiter spins again after each
 * wake-up (MUTEX|SPIN after MUTEX), kernel/locking/mutex.c. Any other
 * begin on the lock of a wait in progress is a new wait: the end of the
 * one before was lost, and its start is not this wait's.
 */
static bool same_wait(__u32 before, __u32 now)
{
	return (now & LCB_F_MUTEX) && (before ^ now) == LCB_F_SPIN;
}

/*
 * A wait inside which another may begin, on another address: PREEMPT_RT's
 * rwbase read (and write) lock waits for its rt_mutex, rwbase_rt.c.
 */
static bool may_nest(__u32 flags)
{
	return (flags & LCB_F_RT) && (flags & (LCB_F_READ | LCB_F_WRITE));
}

#define CONTINUED	0x80000000U	/* open_depth(): the innermost wait goes on */

/*
 * A begin finds the task's open waits: the innermost is continued (a
 * mutex's next step), or nests this one (rwbase), or is stale, its end
 * lost: counted and dropped, and the next one out is looked at. The
 * depth at which the new wait goes, or that of the continued one and
 * CONTINUED.
 */
static __u32 open_depth(struct cont_task_waits *w, __u64 addr, __u32 flags)
{
	__u32 d = w->depth, i;

	for (i = 0; i < LS_PENDING_TASK_DEPTH; i++) {
		__u32 top = d - 1;
		struct cont_pending *p;

		if (d == 0 || d > LS_PENDING_TASK_DEPTH)
			return 0;
		barrier_var(top);
		top &= LS_PENDING_TASK_DEPTH - 1;
		p = &w->slot[top];
		if (p->key.lock_addr == addr && same_wait(w->last_flags[top], flags))
			return d | CONTINUED;
		if (p->key.lock_addr != addr && may_nest(w->last_flags[top]) && d < LS_PENDING_TASK_DEPTH)
			return d;
		count_lost(&lost.stale_begin);
		p->start_ns = 0;
		d--;
	}
	return d;
}

/*
 * A continued wait keeps its start, its stack and its sampling; its type
 * stays MUTEX once it slept (MUTEX & MUTEX|SPIN).
 */
static void begin_task(void *ctx, __u64 addr, __u32 flags, __u64 now)
{
	struct cont_task_waits *w = bpf_task_storage_get(&task_waits, bpf_get_current_task_btf(), NULL,
							 BPF_LOCAL_STORAGE_GET_F_CREATE);
	struct cont_pending *p;
	__u32 d;

	if (!w) {
		count_lost(&lost.pending_full);
		return;
	}
	d = open_depth(w, addr, flags);
	if (d & CONTINUED) {
		d = (d - 1) & (LS_PENDING_TASK_DEPTH - 1);
		w->slot[d].key.bits &= flags | ~CK_FLAGS_MASK;
		w->last_flags[d] = flags;
		return;
	}
	if (d >= LS_PENDING_TASK_DEPTH)
		return;
	barrier_var(d);
	d &= LS_PENDING_TASK_DEPTH - 1;
	p = &w->slot[d];
	fill_key(ctx, &p->key, addr, flags, now);
	p->start_ns = now;
	w->last_flags[d] = flags;
	w->depth = d + 1;
}

/*
 * A wait that begins while one of our programs runs on this CPU (a map's
 * lock, or an interrupt's while our contention_end runs, whose own end
 * the kernel would skip as a recursion) is skipped and counted: the
 * guard (guard.bpf.h) skips its end too.
 *
 * Every wait is timed from here, before its row, and its stack is taken
 * at its end, after the clock stopped. A stack taken here, inside the
 * wait, would change the sampled waits alone (shorter or longer by the
 * stack's time, as the clock starts after or before it), and the
 * callers' estimates, made of sampled waits only, would no longer add up
 * to their lock's exact total. Taken at the end, the stack lengthens the
 * critical section just won, and so the waits of the others that queue
 * behind it, sampled or not alike: every
 * sampled wait is then an unbiased draw of its lock's waits, and short
 * waits' stacks are thinned so that the lengthening stays small
 * (stack_at_end()). The stack is the same: contention_end fires in the
 * function that called contention_begin.
 */
static __always_inline void on_begin(void *ctx, __u64 addr, __u32 flags)
{
	__u32 held, *g;
	__u64 now;

	if (!is_target(bpf_get_current_pid_tgid() >> 32))
		return;
	now = bpf_ktime_get_ns();
	g = guard_enter(&held);
	if (!g) {
		count_lost(&lost.in_probe);
		return;
	}
	if ((flags & (LCB_F_SPIN | LCB_F_MUTEX)) == LCB_F_SPIN)
		begin_spin(ctx, addr, flags, now);
	else
		begin_task(ctx, addr, flags, now);
	guard_leave(g);
}

/* Add one square to a 128-bit sum: the spread of a caller's estimated wait. */
static void add_square(struct cont_val *v, __u64 w)
{
	__u64 a = w >> 32, b = w & 0xffffffffULL, mid = a * b;
	__u64 lo = b * b, hi = a * a + (mid >> 31), shifted = mid << 33;

	lo += shifted;
	hi += lo < shifted;
	v->sumsq_lo += lo;
	v->sumsq_hi += hi + (v->sumsq_lo < lo);
}

/*
 * The row was made at begin, but for a wait that gave up (a row of its
 * own, with the errno) or one that serve's trim removed meanwhile: that
 * is made here. Should the allocation contend, the nested wait is
 * refused at begin (the guard) rather than left pending, since this
 * program cannot re-enter itself to end it.
 *
 * A full map would drop exactly the sampled waits (a stack makes a new
 * row), the lock's totals and its callers' estimates low: such a wait
 * goes to a row its lock has (cont_key_fallback), counted apart, and
 * only a wait that finds none of them is lost. *bits: the row's key bits.
 */
static struct cont_val *row_of(const struct cont_key *key, __u32 *bits)
{
	struct cont_val *v = bpf_map_lookup_elem(&stats, key);
	struct cont_key k;
	int i;

	*bits = key->bits;
	if (v)
		return v;
	make_row(key);
	v = bpf_map_lookup_elem(&stats, key);
	k = *key;
	for (i = 0; !v && i < 2 && cont_key_fallback(&k); i++)
		v = bpf_map_lookup_elem(&stats, &k);
	if (!v) {
		count_lost(&lost.map_full);
		return NULL;
	}
	if (i)
		count_lost(&lost.map_full_sampled);
	*bits = k.bits;
	return v;
}

/*
 * A wait's histogram slot. A global function: inlined, its branches made
 * as many states of the rest of contention_end as the verifier had to go
 * through (it is an array index, so every one is kept apart), twice, in
 * account() and thin_shift(): most of what was left of its verification.
 */
__noinline __u32 hist_slot(__u64 ns)
{
	return log2_slot(ns, LS_HIST_SLOTS);
}

static void account(const struct cont_key *key, __u64 delta)
{
	__u32 slot, bits;
	struct cont_val *v = row_of(key, &bits);

	if (!v)
		return;
	/* Other CPUs' copies of a new per-CPU row start zeroed, min included. */
	if (!v->count || delta < v->min_ns)
		v->min_ns = delta;
	v->count++;
	v->total_ns += delta;
	if (delta > v->max_ns)
		v->max_ns = delta;
	slot = hist_slot(delta);
	barrier_var(slot);
	if (slot < LS_HIST_SLOTS)
		v->hist[slot]++;
	if ((bits & (CK_SHIFT_MASK << CK_SHIFT_SHIFT)) && key->stack != LS_STACK_NONE)
		add_square(v, delta);
}

/*
 * The stack of a sampled wait is taken with the lock held (microseconds,
 * several times a short wait), added to the critical section and so to
 * the waits of all that queue behind it; a lock whose waits are fewer
 * than the budget has nearly all of them sampled, and its own waits grow
 * (doc/benchmarks.md, stack thinning). So a wait's chance of a stack,
 * p = 2^-shift drawn at its begin, is at most its length over
 * 2^thin_slot ns: a drawn wait keeps its stack with probability
 * q = 2^-k, k = thin_slot - its log2 slot - shift where that is
 * positive, so that p * q = 2^-max(shift, thin_slot - slot): in
 * proportion to its length, in powers of two. The stacks then add at
 * most 2^-thin_slot of a stack's time per ns of the lock's waits (65 us
 * by default), and long waits, which make the totals, keep theirs; a
 * lock the budget already samples at a low p is thinned only below it.
 * A wait kept counts 2^(shift + k) times (its row's shift: an unbiased
 * weight, since q is known from the wait itself); one thinned out counts
 * in its lock's totals alone, where report knows its chance from its
 * length.
 *
 * A lock's first stack on a CPU is never thinned, so that a lock whose
 * waits are all short has its caller named: stacked[] remembers the locks
 * that had one, as the sampler remembers those that had their free draw
 * (lock_seen_before(): a lock pushed out by another gets one more).
 */
const volatile __u32 thin_slot;		/* 0: every sampled wait keeps its stack */

struct cont_stacked {
	__u64 addr[LS_SAMPLED_LOCKS];	/* lock_seen_before()'s cache */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cont_stacked);
	__uint(max_entries, 1);
} stacked SEC(".maps");

/* k for a sampled wait of that length: shift + k = max(shift, thin_slot - slot), within LS_MAX_SHIFT. */
static __u32 thin_shift(__u64 wait, __u32 shift)
{
	__u32 slot = hist_slot(wait), want;

	if (!thin_slot || slot + shift >= thin_slot)
		return 0;
	want = thin_slot - slot;
	return (want <= LS_MAX_SHIFT ? want : LS_MAX_SHIFT) - shift;
}

static void stack_at_end(void *ctx, struct cont_key *key, __u64 wait)
{
	__u32 zero = 0, shift = cont_key_shift(key->bits), k = thin_shift(wait, shift);
	struct cont_stacked *c = bpf_map_lookup_elem(&stacked, &zero);

	if (c && !lock_seen_before(c->addr, key->lock_addr)) {
		k = 0;
	} else if (k && (bpf_get_prandom_u32() & ((1U << k) - 1))) {
		struct stack_sampler *s = this_sampler();

		if (s)
			return_token(s);
		key->stack = LS_STACK_NONE;
		return;
	}
	key->bits = (key->bits & ~(CK_SHIFT_MASK << CK_SHIFT_SHIFT)) | (shift + k) << CK_SHIFT_SHIFT;
	key->stack = take_stack(ctx);
}

/*
 * A wait ends: ret < 0, it gave up without the lock, a row of its own
 * with the errno: a task's wait (-EINTR, ww_mutex's -EDEADLK) or, since
 * Linux 6.15, an rqspinlock's spin (-ETIMEDOUT, -EDEADLK).
 */
static void close_wait(void *ctx, struct cont_pending *p, int ret, __u64 now)
{
	__u64 start = p->start_ns;

	p->start_ns = 0;
	if (now < start) {	/* a wrapped difference would be a wait of 584 years */
		count_lost(&lost.end_before_begin);
		return;
	}
	if (ret < 0)
		p->key.bits = cont_key_with_err(p->key.bits, -ret);
	if (p->key.stack == LS_STACK_AT_END)
		stack_at_end(ctx, &p->key, now - start);
	account(&p->key, now - start);
}

/*
 * Search the per-CPU stack from the top, for the current task's wait on
 * that lock; waits end in LIFO order. A wait whose end was lost stays on
 * the stack: another task's end on that lock, whose begin was not
 * recorded (not a target, or skipped), closed it as a wait of all the
 * time since (rq.__lock, 620 ms, fdstorm), and so may any end of its own
 * task after more than a second.
 */
static bool end_spin(void *ctx, struct cont_pending_spin *ps, __u64 addr, int ret, __u64 now)
{
	__u64 task = (__u64)bpf_get_current_task_btf();
	__u32 i;

	if (ps->depth == 0)
		return false;
	for (i = LS_PENDING_SPIN_DEPTH; i > 0; i--) {
		struct cont_spin_wait *w = &ps->slot[i - 1];

		if (i > ps->depth || w->p.key.lock_addr != addr || w->task != task)
			continue;
		if (now - w->p.start_ns > STALE_SPIN_NS && now > w->p.start_ns) {
			count_lost(&lost.stale_begin);
			w->p.start_ns = 0;
		} else {
			close_wait(ctx, &w->p, ret, now);
		}
		if (ps->depth > i)	/* anything above it was abandoned */
			count_lost(&lost.stale_begin);
		ps->depth = i - 1;
		if (i > 1)	/* the spin it ended inside: one more */
			ps->slot[(i - 2) & (LS_PENDING_SPIN_DEPTH - 1)].nested++;
		return true;
	}
	return false;
}

/* The innermost wait of that lock ends; any inside it lost their ends. */
static void end_task(void *ctx, __u64 addr, int ret, __u64 now)
{
	struct cont_task_waits *w = bpf_task_storage_get(&task_waits, bpf_get_current_task_btf(), NULL, 0);
	__u32 i;

	for (i = LS_PENDING_TASK_DEPTH; w && i > 0; i--) {
		struct cont_pending *p = &w->slot[i - 1];

		if (i > w->depth || !p->start_ns || p->key.lock_addr != addr)
			continue;
		close_wait(ctx, p, ret, now);
		if (w->depth > i)
			count_lost(&lost.stale_begin);
		w->depth = i - 1;
		return;
	}
	if (is_target(bpf_get_current_pid_tgid() >> 32))
		count_lost(&lost.missing_begin);
}

static __always_inline void on_end(void *ctx, __u64 addr, int ret)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0, held, *g = guard_enter(&held);
	struct cont_pending_spin *ps = bpf_map_lookup_elem(&pending_spin, &zero);

	if (!g)
		return;
	if (ps && !end_spin(ctx, ps, addr, ret, now))
		end_task(ctx, addr, ret, now);
	guard_leave(g);
}

/* tp_btf: the raw tracepoint arguments, typed through the kernel's BTF. */
SEC("tp_btf/contention_begin")
int BPF_PROG(begin_btf, void *lock, unsigned int flags)
{
	on_begin(ctx, (__u64)lock, flags);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(end_btf, void *lock, int ret)
{
	on_end(ctx, (__u64)lock, ret);
	return 0;
}

/* Classic tracepoints: the fallback where tp_btf is refused. */
SEC("tracepoint/lock/contention_begin")
int begin_tp(struct trace_event_raw_contention_begin *ctx)
{
	on_begin(ctx, (__u64)ctx->lock_addr, ctx->flags);
	return 0;
}

SEC("tracepoint/lock/contention_end")
int end_tp(struct trace_event_raw_contention_end *ctx)
{
	on_end(ctx, (__u64)ctx->lock_addr, ctx->ret);
	return 0;
}

/*
 * Raw tracepoints, never loaded by the collector ("?": autoload off):
 * BPF_PROG_TEST_RUN runs these and not the others, so that a test
 * (tests/host/progs/contdrive.c) can play begins and ends of its own.
 */
SEC("?raw_tp/contention_begin")
int BPF_PROG(begin_raw, void *lock, unsigned int flags)
{
	on_begin(ctx, (__u64)lock, flags);
	return 0;
}

SEC("?raw_tp/contention_end")
int BPF_PROG(end_raw, void *lock, int ret)
{
	on_end(ctx, (__u64)lock, ret);
	return 0;
}

/*
 * Set by the collector for the iteration at the stop, when the begin and
 * end programs are detached: a sampled wait still in progress then has
 * its stack taken from its sleeping task. The trim's iterations while
 * recording leave it alone (no map update of ours under the tracepoints).
 */
bool stop_stacks;

/*
 * The tasks still waiting: one struct cont_pending each, for the
 * collector to close at the stop time, or to keep their stacks and tasks
 * through a trim. Run on demand, not attached.
 */
SEC("iter/task")
int waiting_tasks(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct cont_task_waits *w;
	struct cont_pending p;
	__u32 i;

	if (!task)
		return 0;
	w = bpf_task_storage_get(&task_waits, task, NULL, 0);
	for (i = 0; w && i < LS_PENDING_TASK_DEPTH; i++) {
		if (i >= w->depth || !w->slot[i].start_ns)
			continue;
		p = w->slot[i];
		if (p.key.stack == LS_STACK_AT_END && stop_stacks)
			p.key.stack = take_task_stack(task);
		bpf_seq_write(ctx->meta->seq, &p, sizeof(p));
	}
	return 0;
}
