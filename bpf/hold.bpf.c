// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lock hold times from the lock functions (lockmeter's acquisitions, hold
 * avg/max and UTIL): a hold starts when the lock function returns with
 * the lock and ends when its release function is entered.
 *
 * One fexit program per lock function (a trampoline serves one function)
 * and one fentry program per release function. Not kprobes: on these
 * functions they crashed and hung test guests (lib/record/collect_hold.c
 * refuses them).
 *
 * Spinlocks are held by a CPU and released on it: a few per-CPU slots,
 * no hash and so no lock of our own on their path (but for a row's
 * first acquisition). Mutexes and rwsems
 * are held by a task, which may sleep and move: a hash on (lock, tid).
 *
 * The programs on the sleeping locks' functions (and a spinlock trylock
 * that failed) run preemptibly, on a preemptible kernel: another task's
 * programs may run on the CPU in between (guard.bpf.h). So what such a
 * program builds is on its stack, not in per-CPU scratch, and what it
 * adds to a row or a counter another task may be adding to is added
 * atomically: a plain increment preempted between its load and its
 * store would undo the other's for a time slice.
 *
 * The hash maps take raw spinlocks, which are themselves probed here,
 * and so do the other families' maps: every program runs under the mark
 * all our objects share (guard.bpf.h), and a lock event that comes while
 * its task's is set on that CPU (a map's bucket lock) is skipped, so
 * that no hold is half-seen, no map is re-entered and no program of ours
 * waits for a lock inside another. Interrupts are skipped too: their locks are not
 * the interrupted task's, and a program there would lengthen every
 * critical section of the kernel with interrupts off.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "hold.h"
#include "targets.bpf.h"
#include "guard.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Frames of ours atop a stack: the program and its trampoline (and, at
 * downgrade_write's entry, the function itself). Skipping them leaves the
 * short stack to the callers, and an unwind that cannot get past the
 * trampoline empty rather than naming us.
 */
#define STACK_SKIP	2

#define SPIN_SLOTS	8	/* spinlocks one CPU holds at once (power of 2) */
#define STALE_NS	1000000000ULL	/* a spinlock "held" this long was released unseen */

struct spin_held {
	__u64 lock_addr;	/* 0: free */
	__u64 since_ns;
	struct hold_row_key row;
};

struct sleep_key {
	__u64 lock_addr;
	__u32 tid;
	__u32 pad;
};

struct sleep_held {
	__u64 since_ns;
	struct hold_row_key row;
};

/* Touched with preemption off only: a spinlock held is. */
struct cpu_state {
	__u32 nheld;		/* used slots in held[] */
	__u32 pad;
	struct spin_held held[SPIN_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cpu_state);
	__uint(max_entries, 1);
} cpu_states SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, struct hold_row_key);
	__type(value, struct hold_row_val);
	__uint(max_entries, 16384);
} hold_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct sleep_key);
	__type(value, struct sleep_held);
	__uint(max_entries, 16384);
} sleep_holds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct hold_lost);
	__uint(max_entries, 1);
} hold_lost SEC(".maps");

static __always_inline struct hold_lost *lost(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&hold_lost, &zero);
}

/* Per-CPU, but a hold program may be preempted between a load and its store. */
#define count_lost(field)					\
	do {							\
		struct hold_lost *l__ = lost();			\
								\
		if (l__)					\
			__sync_fetch_and_add(&l__->field, 1);	\
	} while (0)

/*
 * *max raised to v, which another task's program may be raising too:
 * tried again while it changes under us (4 times at most: a bound for
 * the verifier; more would mean 4 greater holds ended meanwhile).
 */
static __always_inline void raise_max(__u64 *max, __u64 v)
{
	int i;

	for (i = 0; i < 4; i++) {
		__u64 old = *max;

		if (v <= old || __sync_val_compare_and_swap(max, old, v) == old)
			return;
	}
}

static __always_inline bool wanted(__u32 *tid)
{
	__u64 id = bpf_get_current_pid_tgid();

	*tid = (__u32)id;
	return *tid && is_target(id >> 32);
}

/*
 * x86's preempt count: per CPU, as __preempt_count before 6.2 and again
 * from 6.15, in pcpu_hot in between. Neither: never in an interrupt.
 */
extern const int __preempt_count __ksym __weak;
struct pcpu_hot {
	int preempt_count;
} __attribute__((preserve_access_index));
extern const struct pcpu_hot pcpu_hot __ksym __weak;

#define NMI_MASK	0x00f00000
#define HARDIRQ_MASK	0x000f0000
#define SOFTIRQ_OFFSET	0x00000100	/* serving a softirq (not one disabled by _bh) */

static __always_inline bool in_interrupt(void)
{
	int pc;

	if (&__preempt_count)
		pc = *(const int *)bpf_this_cpu_ptr(&__preempt_count);
	else if (&pcpu_hot)
		pc = ((const struct pcpu_hot *)bpf_this_cpu_ptr(&pcpu_hot))->preempt_count;
	else
		return false;
	return pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET);
}

/*
 * This CPU's state, with this task's guard slot held in *g; NULL when the
 * event is skipped: an interrupt's, or one of our programs runs below
 * this one (a loss, unless it is our own map's lock).
 */
static __always_inline struct cpu_state *enter(__u32 **g)
{
	__u32 zero = 0, held;
	struct cpu_state *s;

	if (in_interrupt())
		return NULL;
	*g = guard_enter(&held);
	if (!*g) {
		if (held == GUARD_PROG)
			count_lost(nested);
		return NULL;
	}
	s = bpf_map_lookup_elem(&cpu_states, &zero);
	if (!s)
		guard_leave(*g);
	return s;
}

/* A write to one of our hash maps: the bucket lock it takes is not the workload's. */
static __always_inline long own_update(__u32 *g, void *map, const void *k, const void *v,
				       __u64 flags)
{
	long err;

	guard_mark(g, GUARD_OWN_MAP);
	err = bpf_map_update_elem(map, k, v, flags);
	guard_mark(g, GUARD_PROG);
	return err;
}

static __always_inline void own_delete(__u32 *g, void *map, const void *k)
{
	guard_mark(g, GUARD_OWN_MAP);
	bpf_map_delete_elem(map, k);
	guard_mark(g, GUARD_PROG);
}

/* The row; made here when new (by another CPU or task meanwhile: -EEXIST, no loss). */
static __always_inline struct hold_row_val *row_of(__u32 *g, const struct hold_row_key *k)
{
	struct hold_row_val zero = { 0 }, *v;
	long err;

	v = bpf_map_lookup_elem(&hold_rows, k);
	if (v)
		return v;
	err = own_update(g, &hold_rows, k, &zero, BPF_NOEXIST);
	if (err && err != -EEXIST)
		count_lost(rows_full);
	return bpf_map_lookup_elem(&hold_rows, k);
}

/* Into the row the acquisition was counted in: none, none to add to. */
static __always_inline void account_hold(const struct hold_row_key *k, __u64 hold)
{
	struct hold_row_val *v = bpf_map_lookup_elem(&hold_rows, k);

	if (!v)
		return;
	__sync_fetch_and_add(&v->held, 1);
	__sync_fetch_and_add(&v->hold_ns, hold);
	raise_max(&v->hold_max_ns, hold);
}

/*
 * The slot for a new spinlock hold: one whose lock is taken again (its
 * release was missed: nobody takes a spinlock its CPU holds), a free
 * one, or the oldest when it is stale. -1 when all are busy.
 */
static __always_inline int spin_slot(struct cpu_state *s, __u64 lock, __u64 now)
{
	int i, free = -1, oldest = 0;
	__u64 oldest_ns = ~0ULL;

	for (i = 0; i < SPIN_SLOTS; i++) {
		__u64 a = s->held[i].lock_addr;

		if (a == lock) {
			count_lost(release_unseen);
			s->nheld--;
			return i;
		}
		if (!a && free < 0)
			free = i;
		if (a && s->held[i].since_ns < oldest_ns) {
			oldest_ns = s->held[i].since_ns;
			oldest = i;
		}
	}
	if (free >= 0)
		return free;
	if (now - oldest_ns < STALE_NS) {
		count_lost(pending_full);
		return -1;
	}
	count_lost(release_unseen);
	s->nheld--;
	return oldest;
}

static __always_inline void hold_spin(struct cpu_state *s, const struct hold_row_key *k,
				      __u64 lock, __u64 now)
{
	int i = spin_slot(s, lock, now);
	struct spin_held *h;

	if (i < 0)
		return;
	/* Keep the mask: clang knows i < SPIN_SLOTS, the 6.1 verifier would not. */
	barrier_var(i);
	h = &s->held[i & (SPIN_SLOTS - 1)];
	h->lock_addr = lock;
	h->since_ns = now;
	h->row = *k;
	s->nheld++;
}

static __always_inline void hold_sleeping(__u32 *g, struct sleep_held *sh, __u64 lock, __u32 tid,
					  __u64 now)
{
	struct sleep_key sk = { .lock_addr = lock, .tid = tid };
	long err;

	sh->since_ns = now;
	err = own_update(g, &sleep_holds, &sk, sh, BPF_NOEXIST);
	/* Already there: a release went elsewhere (an rwsem reader's) or unseen. */
	if (err == -EEXIST) {
		count_lost(release_unseen);
		err = own_update(g, &sleep_holds, &sk, sh, BPF_ANY);
	}
	if (err)
		count_lost(pending_full);
}

/*
 * The lock function returned: count the attempt, start the hold. The
 * clock is read last, so that the hold does not include this program.
 * sh: the new hold, on the program's stack.
 */
static __always_inline void acquired(void *ctx, __u32 *g, struct cpu_state *s,
				     struct sleep_held *sh, __u64 lock, __u32 kind, bool ok,
				     __u32 tid, __u32 skip)
{
	struct hold_row_key *k = &sh->row;
	struct hold_row_val *v;
	__u64 now;

	__builtin_memset(sh, 0, sizeof(*sh));
	k->lock_addr = lock;
	k->kind = kind;
	bpf_get_stack(ctx, k->frames, sizeof(k->frames), skip & BPF_F_SKIP_FIELD_MASK);
	v = row_of(g, k);
	if (v)
		__sync_fetch_and_add(ok ? &v->acquired : &v->failed, 1);
	if (!ok)
		return;
	now = bpf_ktime_get_ns();
	if (kind == HOLD_SPIN)
		hold_spin(s, k, lock, now);
	else
		hold_sleeping(g, sh, lock, tid, now);
}

static __always_inline bool succeeded(__u32 how, long ret)
{
	if (how == HOLD_RET_TRY)
		return (int)ret != 0;
	if (how == HOLD_RET_ERR)
		return (int)ret == 0;
	return true;
}

static __always_inline int on_acquired(void *ctx, __u64 lock, __u32 kind, bool ok)
{
	struct sleep_held sh;
	struct cpu_state *s;
	__u32 tid, *g;

	if (!lock || !wanted(&tid) || !(s = enter(&g)))
		return 0;
	acquired(ctx, g, s, &sh, lock, kind, ok, tid, STACK_SKIP);
	guard_leave(g);
	return 0;
}

/*
 * Not filtered by process: the next task releases the runqueue lock its
 * predecessor took in __schedule(). A CPU that holds nothing we track
 * (the common case) costs one lookup.
 */
static __always_inline int on_spin_release(__u64 lock)
{
	__u32 zero = 0, tid, i, held, *g;
	struct cpu_state *s = bpf_map_lookup_elem(&cpu_states, &zero);
	struct spin_held *h;

	if (!s || !s->nheld || in_interrupt() || !(g = guard_enter(&held)))
		return 0;
	for (i = 0; i < SPIN_SLOTS; i++) {
		h = &s->held[i];
		if (h->lock_addr != lock)
			continue;
		account_hold(&h->row, bpf_ktime_get_ns() - h->since_ns);
		h->lock_addr = 0;
		s->nheld--;
		guard_leave(g);
		return 0;
	}
	if (wanted(&tid))
		count_lost(unmatched_release);
	guard_leave(g);
	return 0;
}

static __always_inline int on_sleep_release(__u64 lock)
{
	struct sleep_key sk = { .lock_addr = lock };
	struct sleep_held *h;
	__u32 *g;

	if (!lock || !wanted(&sk.tid) || !enter(&g))
		return 0;
	h = bpf_map_lookup_elem(&sleep_holds, &sk);
	if (h) {
		account_hold(&h->row, bpf_ktime_get_ns() - h->since_ns);
		own_delete(g, &sleep_holds, &sk);
	} else {
		count_lost(unmatched_release);
	}
	guard_leave(g);
	return 0;
}

/*
 * The write hold ends, a read hold begins: counted as a read acquisition
 * from here, as mmap_write_downgrade()'s tracepoint does.
 */
static __always_inline int on_downgrade(void *ctx, __u64 lock)
{
	struct sleep_key sk = { .lock_addr = lock };
	struct sleep_held *h, sh;
	struct cpu_state *s;
	__u32 *g;

	if (!lock || !wanted(&sk.tid) || !(s = enter(&g)))
		return 0;
	h = bpf_map_lookup_elem(&sleep_holds, &sk);
	if (h) {
		account_hold(&h->row, bpf_ktime_get_ns() - h->since_ns);
		own_delete(g, &sleep_holds, &sk);
	}
	acquired(ctx, g, s, &sh, lock, HOLD_RWSEM_READ, true, sk.tid, STACK_SKIP + 1);
	guard_leave(g);
	return 0;
}

static __always_inline int on_release(void *ctx, __u64 lock, __u32 kind)
{
	if (kind == HOLD_SPIN)
		return on_spin_release(lock);
	if (kind == HOLD_DOWNGRADE)
		return on_downgrade(ctx, lock);
	return on_sleep_release(lock);
}

/*
 * One program per function, its name the function's with a prefix. The return value is read only where it means something: the
 * verifier refuses a read of a void function's.
 */
#define FEXIT_LOCK(fn, kind, how, release)				\
SEC("fexit/" #fn)							\
int BPF_PROG(fx_##fn, void *lock)					\
{									\
	return on_acquired(ctx, (__u64)lock, kind,			\
			   how == HOLD_RET_VOID || succeeded(how, ctx[1])); \
}

#define FENTRY_UNLOCK(fn, kind)						\
SEC("fentry/" #fn)							\
int BPF_PROG(fe_##fn, void *lock)					\
{									\
	return on_release(ctx, (__u64)lock, kind);			\
}

HOLD_LOCK_FUNCS(FEXIT_LOCK)
HOLD_UNLOCK_FUNCS(FENTRY_UNLOCK)
