// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lock hold times from the lock functions (lockmeter's acquisitions, hold
 * avg/max and UTIL): a hold starts when the lock function returns with
 * the lock and ends when its release function is entered.
 *
 * fentry mode: one fexit program per lock function (a trampoline serves
 * one function) and one fentry program per release function. kprobe
 * mode: three programs attached to every function, told apart by their
 * cookie; the kretprobe does not see the arguments, so the kprobe at
 * entry remembers the lock for it.
 *
 * Spinlocks are held by a CPU and released on it: a few per-CPU slots,
 * no hash and so no lock of our own on their path. Mutexes and rwsems
 * are held by a task, which may sleep and move: a hash on (lock, tid).
 *
 * The hash maps take raw spinlocks, which are themselves probed here:
 * every program runs under a per-CPU "busy" mark, and a lock event that
 * comes while it is set (our own map's bucket lock, or an interrupt) is
 * skipped, so that no hold is half-seen and no map is re-entered.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "hold.h"
#include "targets.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Frames of ours atop a stack: in fentry mode the program and its
 * trampoline (and, at downgrade_write's entry, the function itself); a
 * kprobe's stack starts from the probed registers. Skipping them leaves
 * the short stack to the callers, and an unwind that cannot get past the
 * trampoline (it happens in interrupts) empty rather than naming us.
 */
const volatile __u32 stack_skip;

#define SPIN_SLOTS	8	/* spinlocks one CPU holds at once (power of 2) */
#define ENTER_DEPTH	4	/* spin lock calls nested by interrupts (power of 2) */
#define STALE_NS	1000000000ULL	/* a spinlock "held" this long was released unseen */

/* busy values: a nested event is skipped; counted unless it is ours */
#define BUSY_PROG	1
#define BUSY_OWN_MAP	2

struct spin_held {
	__u64 lock_addr;	/* 0: free */
	__u64 since_ns;
	struct hold_row_key row;
};

/* kprobe mode: a spin lock call between its entry and return */
struct spin_entering {
	__u64 lock_addr;
	__u64 cookie;
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

struct cpu_state {
	__u32 busy;
	__u32 nheld;		/* used slots in held[] */
	__u32 nentering;	/* may exceed ENTER_DEPTH: the extra ones are not kept */
	__u32 pad;
	struct spin_entering entering[ENTER_DEPTH];
	struct spin_held held[SPIN_SLOTS];
	struct sleep_held scratch;	/* a new row key or sleeping hold */
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

/* kprobe mode: the sleeping lock a task is inside of, by tid */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct spin_entering);
	__uint(max_entries, 8192);
} sleep_entering SEC(".maps");

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

static __always_inline bool wanted(__u32 *tid)
{
	__u64 id = bpf_get_current_pid_tgid();

	*tid = (__u32)id;
	return *tid && is_target(id >> 32);
}

/*
 * This CPU's state, marked busy; NULL when one of ours already runs here.
 * count: say so in the lost table (once per event: kprobe mode enters at
 * the call and at the return).
 */
static __always_inline struct cpu_state *enter(bool count)
{
	__u32 zero = 0;
	struct cpu_state *s = bpf_map_lookup_elem(&cpu_states, &zero);
	struct hold_lost *l;

	if (!s)
		return NULL;
	if (s->busy) {
		if (count && s->busy == BUSY_PROG && (l = lost()))
			l->nested++;
		return NULL;
	}
	s->busy = BUSY_PROG;
	return s;
}

static __always_inline void leave(struct cpu_state *s)
{
	s->busy = 0;
}

/* A write to one of our hash maps: the bucket lock it takes is not the workload's. */
static __always_inline long own_update(struct cpu_state *s, void *map, const void *k,
				       const void *v, __u64 flags)
{
	long err;

	s->busy = BUSY_OWN_MAP;
	err = bpf_map_update_elem(map, k, v, flags);
	s->busy = BUSY_PROG;
	return err;
}

static __always_inline void own_delete(struct cpu_state *s, void *map, const void *k)
{
	s->busy = BUSY_OWN_MAP;
	bpf_map_delete_elem(map, k);
	s->busy = BUSY_PROG;
}

static __always_inline struct hold_row_val *row_of(struct cpu_state *s, const struct hold_row_key *k)
{
	struct hold_row_val zero = { 0 }, *v;
	struct hold_lost *l;

	v = bpf_map_lookup_elem(&hold_rows, k);
	if (v)
		return v;
	if (own_update(s, &hold_rows, k, &zero, BPF_NOEXIST) && (l = lost()))
		l->rows_full++;
	return bpf_map_lookup_elem(&hold_rows, k);
}

/* Into the row the acquisition was counted in: none, none to add to. */
static __always_inline void account_hold(const struct hold_row_key *k, __u64 hold)
{
	struct hold_row_val *v = bpf_map_lookup_elem(&hold_rows, k);

	if (!v)
		return;
	v->held++;
	v->hold_ns += hold;
	if (hold > v->hold_max_ns)
		v->hold_max_ns = hold;
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
	struct hold_lost *l;

	for (i = 0; i < SPIN_SLOTS; i++) {
		__u64 a = s->held[i].lock_addr;

		if (a == lock) {
			if ((l = lost()))
				l->release_unseen++;
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
	l = lost();
	if (now - oldest_ns < STALE_NS) {
		if (l)
			l->pending_full++;
		return -1;
	}
	if (l)
		l->release_unseen++;
	s->nheld--;
	return oldest;
}

static __always_inline void hold_spin(struct cpu_state *s, __u64 lock, __u64 now)
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
	h->row = s->scratch.row;
	s->nheld++;
}

static __always_inline void hold_sleeping(struct cpu_state *s, __u64 lock, __u32 tid, __u64 now)
{
	struct sleep_key sk = { .lock_addr = lock, .tid = tid };
	struct hold_lost *l;
	long err;

	s->scratch.since_ns = now;
	err = own_update(s, &sleep_holds, &sk, &s->scratch, BPF_NOEXIST);
	/* Already there: a release went elsewhere (an rwsem reader's) or unseen. */
	if (err == -EEXIST) {
		if ((l = lost()))
			l->release_unseen++;
		err = own_update(s, &sleep_holds, &sk, &s->scratch, BPF_ANY);
	}
	if (err && (l = lost()))
		l->pending_full++;
}

/*
 * The lock function returned: count the attempt, start the hold. The
 * clock is read last, so that the hold does not include this program.
 */
static __always_inline void acquired(void *ctx, struct cpu_state *s, __u64 lock, __u32 kind,
				     bool ok, __u32 tid, __u32 skip)
{
	struct hold_row_key *k = &s->scratch.row;
	struct hold_row_val *v;
	__u64 now;

	k->lock_addr = lock;
	k->kind = kind;
	k->pad = 0;
	__builtin_memset(k->frames, 0, sizeof(k->frames));
	bpf_get_stack(ctx, k->frames, sizeof(k->frames), skip & BPF_F_SKIP_FIELD_MASK);
	v = row_of(s, k);
	if (v) {
		if (ok)
			v->acquired++;
		else
			v->failed++;
	}
	if (!ok)
		return;
	now = bpf_ktime_get_ns();
	if (kind == HOLD_SPIN)
		hold_spin(s, lock, now);
	else
		hold_sleeping(s, lock, tid, now);
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
	struct cpu_state *s;
	__u32 tid;

	if (!lock || !wanted(&tid) || !(s = enter(true)))
		return 0;
	acquired(ctx, s, lock, kind, ok, tid, stack_skip);
	leave(s);
	return 0;
}

/*
 * Not filtered by process: the next task releases the runqueue lock its
 * predecessor took in __schedule(). A CPU that holds nothing we track
 * (the common case) costs one lookup.
 */
static __always_inline int on_spin_release(__u64 lock)
{
	__u32 zero = 0, tid, i;
	struct cpu_state *s = bpf_map_lookup_elem(&cpu_states, &zero);
	struct spin_held *h;
	struct hold_lost *l;

	if (!s || !s->nheld || s->busy)
		return 0;
	s->busy = BUSY_PROG;
	for (i = 0; i < SPIN_SLOTS; i++) {
		h = &s->held[i];
		if (h->lock_addr != lock)
			continue;
		account_hold(&h->row, bpf_ktime_get_ns() - h->since_ns);
		h->lock_addr = 0;
		s->nheld--;
		leave(s);
		return 0;
	}
	if (wanted(&tid) && (l = lost()))
		l->unmatched_release++;
	leave(s);
	return 0;
}

static __always_inline int on_sleep_release(__u64 lock)
{
	struct sleep_key sk = { .lock_addr = lock };
	struct sleep_held *h;
	struct cpu_state *s;
	struct hold_lost *l;

	if (!lock || !wanted(&sk.tid) || !(s = enter(true)))
		return 0;
	h = bpf_map_lookup_elem(&sleep_holds, &sk);
	if (h) {
		account_hold(&h->row, bpf_ktime_get_ns() - h->since_ns);
		own_delete(s, &sleep_holds, &sk);
	} else if ((l = lost())) {
		l->unmatched_release++;
	}
	leave(s);
	return 0;
}

/*
 * The write hold ends, a read hold begins: counted as a read acquisition
 * from here, as mmap_write_downgrade()'s tracepoint does.
 */
static __always_inline int on_downgrade(void *ctx, __u64 lock)
{
	struct sleep_key sk = { .lock_addr = lock };
	struct sleep_held *h;
	struct cpu_state *s;

	if (!lock || !wanted(&sk.tid) || !(s = enter(true)))
		return 0;
	h = bpf_map_lookup_elem(&sleep_holds, &sk);
	if (h) {
		account_hold(&h->row, bpf_ktime_get_ns() - h->since_ns);
		own_delete(s, &sleep_holds, &sk);
	}
	acquired(ctx, s, lock, HOLD_RWSEM_READ, true, sk.tid, stack_skip + 1);
	leave(s);
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
 * fentry mode: one program per function, its name the function's with a
 * prefix. The return value is read only where it means something: the
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

/* kprobe mode: the lock a call is for, kept until it returns. */
static __always_inline void remember_entry(struct cpu_state *s, __u64 lock, __u64 cookie, __u32 tid)
{
	struct spin_entering e = { .lock_addr = lock, .cookie = cookie };
	struct hold_lost *l;
	__u32 n;

	if (HOLD_COOKIE_KIND(cookie) != HOLD_SPIN) {
		if (own_update(s, &sleep_entering, &tid, &e, BPF_ANY) && (l = lost()))
			l->pending_full++;
		return;
	}
	n = s->nentering++;
	barrier_var(n);
	if (n < ENTER_DEPTH)
		s->entering[n & (ENTER_DEPTH - 1)] = e;
}

/* The lock of the call returning now, or 0; spin calls return in LIFO order. */
static __always_inline __u64 recall_entry(struct cpu_state *s, __u64 cookie, __u32 tid)
{
	struct spin_entering *e;
	__u64 lock;
	__u32 n;

	if (HOLD_COOKIE_KIND(cookie) != HOLD_SPIN) {
		e = bpf_map_lookup_elem(&sleep_entering, &tid);
		if (!e || e->cookie != cookie)
			return 0;
		lock = e->lock_addr;
		own_delete(s, &sleep_entering, &tid);
		return lock;
	}
	if (!s->nentering)
		return 0;
	n = --s->nentering;
	barrier_var(n);
	if (n >= ENTER_DEPTH)
		return 0;
	e = &s->entering[n & (ENTER_DEPTH - 1)];
	if (e->cookie != cookie) {	/* out of step: start again */
		s->nentering = 0;
		return 0;
	}
	return e->lock_addr;
}

SEC("kprobe")
int BPF_KPROBE(kp_lock, void *lock)
{
	struct cpu_state *s;
	__u32 tid;

	if (!lock || !wanted(&tid) || !(s = enter(false)))
		return 0;
	remember_entry(s, (__u64)lock, bpf_get_attach_cookie(ctx), tid);
	leave(s);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kp_lock_ret, long ret)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), lock;
	struct cpu_state *s;
	__u32 tid;

	if (!wanted(&tid) || !(s = enter(true)))
		return 0;
	lock = recall_entry(s, cookie, tid);
	if (lock)
		acquired(ctx, s, lock, HOLD_COOKIE_KIND(cookie),
			 succeeded(HOLD_COOKIE_HOW(cookie), ret), tid, stack_skip);
	leave(s);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_unlock, void *lock)
{
	return on_release(ctx, (__u64)lock, HOLD_COOKIE_KIND(bpf_get_attach_cookie(ctx)));
}
