// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel lock contention: lock:contention_begin/end, aggregated in the
 * kernel per lock x type x kernel stack (x task with -t).
 *
 * contention_end runs with the lock already taken, so every nanosecond
 * spent there lengthens the critical section and feeds more contention:
 * it only takes a timestamp difference and updates a per-CPU row. The
 * stack, the lock's class and the task filter are all done at
 * contention_begin, where the task is about to wait anyway.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "contention.h"
#include "targets.bpf.h"
#include "guard.bpf.h"
#include "hist.h"

/* The per-CPU spin stack is indexed with a mask the 6.1 verifier can follow. */
_Static_assert((LS_PENDING_SPIN_DEPTH & (LS_PENDING_SPIN_DEPTH - 1)) == 0,
	       "LS_PENDING_SPIN_DEPTH must be a power of two");

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 per_task;		/* aggregate per task (-t) */
const volatile __u64 stack_rate;	/* stacks per second per CPU; 0: every wait */
const volatile __u32 stack_window_cap;	/* at most this many stacks per window */

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, LS_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 16384);
} stacks SEC(".maps");

/*
 * Per-CPU rows, allocated on first use: the hot update needs no atomics,
 * and memory grows with the locks seen rather than with max_entries times
 * the number of CPUs.
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

/* Sleeping waits: the task may wake on another CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cont_pending);
	__uint(max_entries, 16384);
} pending_sleep SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct stack_budget);
	__uint(max_entries, 1);
} stack_budget SEC(".maps");

/* Command name per task, for -t. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, char[LS_COMM_LEN]);
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
 */
static __u32 classify_lock(__u64 addr, __u32 flags)
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

static void remember_comm(__u32 tid)
{
	char comm[LS_COMM_LEN];

	if (bpf_map_lookup_elem(&comms, &tid))
		return;
	bpf_get_current_comm(comm, sizeof(comm));
	bpf_map_update_elem(&comms, &tid, comm, BPF_NOEXIST);
}

/*
 * Taking a kernel stack is most of contention_begin's cost (about 2 us on
 * a nested-virtualisation guest, 10x the typical spinlock wait), so above
 * stack_rate waits per second per CPU each wait gets a stack with the
 * probability that keeps to that rate, recomputed every window from the
 * previous window's count. Random, not every Nth nor the first after a
 * pause: both would favour callers by their timing. Below the rate every
 * wait has its stack; waits without one are still counted exactly, under
 * LS_STACK_UNSAMPLED.
 */
#define STACK_WINDOW_NS	10000000ULL
#define NSEC_PER_SEC	1000000000ULL

/*
 * The probability for the next window, as a 32-bit threshold: rate x
 * elapsed / events, in fixed point (rate <= 1e6, elapsed <= 0.1 s, so
 * nothing overflows).
 */
static __u32 stack_threshold(__u64 elapsed, __u32 events)
{
	__u64 t;

	if (elapsed > 100000000ULL)
		elapsed = 100000000ULL;
	if (!events)
		return ~0U;
	t = (stack_rate * elapsed << 12) / events;
	if (t >= NSEC_PER_SEC << 12)
		return ~0U;
	return (__u32)((t << 20) / NSEC_PER_SEC);
}

/*
 * A window that follows a quiet one starts with a high probability; the
 * cap keeps a sudden storm of waits from taking a stack each meanwhile.
 */
static bool may_take_stack(__u64 now)
{
	__u32 zero = 0;
	struct stack_budget *b;

	if (!stack_rate)
		return true;
	b = bpf_map_lookup_elem(&stack_budget, &zero);
	if (!b)
		return true;
	if (now - b->window_start_ns >= STACK_WINDOW_NS) {
		b->threshold = stack_threshold(now - b->window_start_ns, b->events);
		b->window_start_ns = now;
		b->events = 0;
		b->taken = 0;
	}
	b->events++;
	if (b->taken >= stack_window_cap)
		return false;
	if (b->threshold != ~0U && bpf_get_prandom_u32() > b->threshold)
		return false;
	b->taken++;
	return true;
}

static __s32 take_stack(void *ctx, __u64 now)
{
	long id;

	if (!may_take_stack(now))
		return LS_STACK_UNSAMPLED;
	id = bpf_get_stackid(ctx, &stacks, 0);
	if (id >= 0)
		return id;
	count_lost(id == -EEXIST ? &lost.stack_collision : &lost.stack_error);
	return LS_STACK_FAILED;
}

/* A new wait: everything but the end time, decided while the task waits. */
static void fill_pending(void *ctx, struct cont_pending *p, __u64 addr, __u32 flags, __u64 now)
{
	struct cont_key *key = &p->key;

	key->lock_addr = addr;
	key->stack_id = take_stack(ctx, now);
	key->flags = flags;
	key->lock_class = classify_lock(addr, flags);
	if (per_task) {
		__u64 pid_tgid = bpf_get_current_pid_tgid();

		key->tgid = pid_tgid >> 32;
		key->tid = (__u32)pid_tgid;
		remember_comm(key->tid);
	}
	/*
	 * The wait is timed from here, after our own work, so that waits with
	 * and without a stack compare: a stack would add 2 us to a 200 ns wait.
	 */
	p->start_ns = key->stack_id == LS_STACK_UNSAMPLED ? now : bpf_ktime_get_ns();
}

/*
 * A spinner cannot be preempted, so only interrupts nest on a CPU, and no
 * spin lasts a second without the kernel's lockup detectors firing: an
 * entry that old lost its end (a recursion miss) and must not be closed.
 */
#define STALE_SPIN_NS	1000000000ULL

static void drop_stale_spins(struct cont_pending_spin *ps, __u64 now)
{
	__u32 d = ps->depth;

	if (d == 0 || d > LS_PENDING_SPIN_DEPTH)
		return;
	d--;
	barrier_var(d);
	if (now - ps->slot[d & (LS_PENDING_SPIN_DEPTH - 1)].start_ns > STALE_SPIN_NS) {
		count_lost(&lost.stale_begin);
		ps->depth = 0;
	}
}

static void begin_spin(void *ctx, __u64 addr, __u32 flags, __u64 now)
{
	__u32 zero = 0, depth;
	struct cont_pending_spin *ps = bpf_map_lookup_elem(&pending_spin, &zero);

	if (!ps)
		return;
	drop_stale_spins(ps, now);
	depth = ps->depth;
	if (depth >= LS_PENDING_SPIN_DEPTH) {
		count_lost(&lost.nested_dropped);
		return;
	}
	barrier_var(depth);
	fill_pending(ctx, &ps->slot[depth & (LS_PENDING_SPIN_DEPTH - 1)], addr, flags, now);
	ps->depth = depth + 1;
}

/*
 * A mutex first spins on its owner (MUTEX|SPIN, preemption off), then may
 * sleep (a second, nested begin with MUTEX). Move the spinning entry to the
 * sleeping map so the wait is counted once, from its first nanosecond.
 */
static bool promote_mutex_spin(__u64 addr, __u32 tid)
{
	__u32 zero = 0, top;
	struct cont_pending_spin *ps = bpf_map_lookup_elem(&pending_spin, &zero);
	struct cont_pending p;

	if (!ps || ps->depth == 0 || ps->depth > LS_PENDING_SPIN_DEPTH)
		return false;
	top = ps->depth - 1;
	barrier_var(top);
	top &= LS_PENDING_SPIN_DEPTH - 1;
	if (ps->slot[top].key.lock_addr != addr)
		return false;
	p = ps->slot[top];
	p.key.flags = LCB_F_MUTEX;
	ps->depth = top;
	if (bpf_map_update_elem(&pending_sleep, &tid, &p, BPF_ANY))
		count_lost(&lost.pending_full);
	return true;
}

static void begin_sleep(void *ctx, __u64 addr, __u32 flags, __u64 pid_tgid, __u64 now)
{
	__u32 tid = (__u32)pid_tgid;
	struct cont_pending *old, p = {};

	if ((flags & LCB_F_MUTEX) && promote_mutex_spin(addr, tid))
		return;
	old = bpf_map_lookup_elem(&pending_sleep, &tid);
	if (old) {
		if (old->key.lock_addr == addr)
			return;		/* nested begin on the same lock */
		count_lost(&lost.stale_begin);
	}
	fill_pending(ctx, &p, addr, flags, now);
	if (bpf_map_update_elem(&pending_sleep, &tid, &p, BPF_ANY))
		count_lost(&lost.pending_full);
}

/*
 * A wait that begins while one of our programs runs on this CPU (a map's
 * lock, or an interrupt's while our contention_end runs, whose own end
 * the kernel would skip as a recursion) is skipped and counted: the
 * guard (guard.bpf.h) skips its end too.
 */
static __always_inline void on_begin(void *ctx, __u64 addr, __u32 flags)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 held, *g;

	if (!is_target(pid_tgid >> 32))
		return;
	g = guard_enter(&held);
	if (!g) {
		count_lost(&lost.in_probe);
		return;
	}
	__u64 now = bpf_ktime_get_ns();

	if (flags & LCB_F_SPIN)
		begin_spin(ctx, addr, flags, now);
	else
		begin_sleep(ctx, addr, flags, pid_tgid, now);
	guard_leave(g);
}

/*
 * A new row is allocated here, once per row. Should that allocation
 * contend, the nested wait is refused at begin (the guard) rather than
 * left pending, since this program cannot re-enter itself to end it.
 */
static void account(const struct cont_key *key, __u64 delta)
{
	struct cont_val *v = bpf_map_lookup_elem(&stats, key);
	__u32 slot;

	if (!v) {
		struct cont_val zero = { .min_ns = ~0ULL };

		bpf_map_update_elem(&stats, key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&stats, key);
		if (!v) {
			count_lost(&lost.map_full);
			return;
		}
	}
	/* Other CPUs' copies of a new per-CPU row start zeroed, min included. */
	if (!v->count || delta < v->min_ns)
		v->min_ns = delta;
	v->count++;
	v->total_ns += delta;
	if (delta > v->max_ns)
		v->max_ns = delta;
	slot = log2_slot(delta, LS_HIST_SLOTS);
	barrier_var(slot);
	if (slot < LS_HIST_SLOTS)
		v->hist[slot]++;
}

/* Search the per-CPU stack from the top; waits end in LIFO order. */
static bool end_spin(struct cont_pending_spin *ps, __u64 addr, __u64 now)
{
	__u32 i;

	if (ps->depth == 0)
		return false;
	for (i = LS_PENDING_SPIN_DEPTH; i > 0; i--) {
		__u32 at = i - 1;

		if (at >= ps->depth || ps->slot[at].key.lock_addr != addr)
			continue;
		account(&ps->slot[at].key, now - ps->slot[at].start_ns);
		ps->depth = at;	/* anything above it was abandoned */
		return true;
	}
	return false;
}

static void end_sleep(__u64 addr, __u64 now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct cont_pending *p = bpf_map_lookup_elem(&pending_sleep, &tid);

	if (!p || p->key.lock_addr != addr) {
		if (is_target(bpf_get_current_pid_tgid() >> 32))
			count_lost(&lost.missing_begin);
		return;
	}
	account(&p->key, now - p->start_ns);
	bpf_map_delete_elem(&pending_sleep, &tid);
}

static __always_inline void on_end(__u64 addr)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0, held, *g = guard_enter(&held);
	struct cont_pending_spin *ps = bpf_map_lookup_elem(&pending_spin, &zero);

	if (!g)
		return;
	if (ps && !end_spin(ps, addr, now))
		end_sleep(addr, now);
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
	on_end((__u64)lock);
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
	on_end((__u64)ctx->lock_addr);
	return 0;
}
