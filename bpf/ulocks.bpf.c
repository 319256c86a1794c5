// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User-space locks from the futex syscall tracepoints, for any process:
 * a thread that sleeps on a lock word sleeps in futex(2).
 *
 * A contended glibc mutex lock is a loop in __lll_lock_wait(): exchange 2
 * into the word, FUTEX_WAIT while it was not 0. One lock call can sleep
 * several times (the lock stolen between the wake and the exchange), so
 * a thread's waits on one word are merged into one contended acquisition
 * until it lets the lock go: its own FUTEX_WAKE on the word (a contended
 * lock is left at 2, so its unlock always wakes), its unlock uprobe, a
 * wait on another word, or the end of the recording (user space closes
 * the ones still open). Condition variables and every other futex user
 * wait with FUTEX_WAIT_BITSET and are recorded apart (ULK_COND,
 * ULK_FUTEX), one row per wait.
 *
 * The wake side: a FUTEX_WAKE leaves the waker's TID and stack for the
 * word; the waiter that returns woken after it charges its wait to that
 * thread. A mutex waiter woken by nobody we saw is charged to the owner
 * TID it read from the mutex (__data.__owner) when it began to wait.
 *
 * Opt-in uprobes on glibc's lock functions count every acquisition and
 * time every hold: lock call to unlock call, less the time the lock was
 * not held in between, its own waits (in the lock call, or to take it
 * back after a condition wait) and the thread's condition waits (the
 * mutex is let go for them). Waits on other locks taken while holding it
 * are part of its hold. Each hit costs a trap (~20 us in a guest): the
 * collector measures it and keeps the rate within a budget.
 *
 * A thread's state lives until it exits (sched_process_exit closes a
 * contention it left open and frees its slot); a thread that finds no
 * slot is counted as lost, never silently dropped.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ulocks.h"
#include "targets.bpf.h"
#include "format/consts.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_WAKE_OP		5
#define FUTEX_LOCK_PI		6
#define FUTEX_UNLOCK_PI		7
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13
#define FUTEX_CMD_MASK		0x7f	/* without FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */
#define FUTEX_TID_MASK		0x3fffffff
#define ETIMEDOUT		110
#define GLIBC_MUTEX_OWNER	8	/* offsetof(pthread_mutex_t, __data.__owner) */
#define MAX_TID			4194304	/* PID_MAX_LIMIT */
#define WAKE_SLACK_NS		(1000 * 1000)

const volatile __u32 self_tgid;		/* lockstat itself: its calibration, its own waits */
const volatile __u32 track_holds;	/* the uprobes are on: charge waits to the locks held */

struct word_key {
	__u64 uaddr;
	__u32 tgid;
	__u32 __pad;
};

/* The last wake of a word: who, when, from where. */
struct wake_rec {
	__u64 ts;
	__u32 tid;
	__u32 __pad;
	__u64 frames[LS_ULOCK_STACK_DEPTH];
};

struct hold_key {
	__u64 lock;
	__u32 tid;
	__u32 __pad;
};

struct hold_pending {
	__u64 start_ns;
	__u64 cond_wait_ns;	/* the thread's condition waits at the lock call */
	__u64 own_wait_ns;	/* the waits on this lock since the lock call */
	struct ulock_key row;
};

/* A thread's slot goes at its exit: an LRU would lose a waiting thread's wait. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct ulock_thread);
	__uint(max_entries, 16384);
} threads SEC(".maps");

/* Words and holds come and go unannounced: LRU maps forget the old ones. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct word_key);
	__type(value, struct wake_rec);
	__uint(max_entries, 8192);
} wakes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct hold_key);
	__type(value, struct hold_pending);
	__uint(max_entries, 16384);
} holding SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, struct ulock_key);
	__type(value, struct ulock_wait);
	__uint(max_entries, 8192);
} wait_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, struct uwake_key);
	__type(value, struct uwake_val);
	__uint(max_entries, 8192);
} wake_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, struct ulock_key);
	__type(value, struct uhold_val);
	__uint(max_entries, 8192);
} hold_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct ulock_lost);
	__uint(max_entries, 1);
} ulock_lost SEC(".maps");

/* Every uprobe entry, filtered or not: the trap is paid either way. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} uprobe_hits SEC(".maps");

/*
 * Scratch for the big structs: the BPF stack is 512 bytes. Only for the
 * tracepoint programs, which run with preemption off: a uprobe program
 * runs with only migration off (bpf_prog_run_array_uprobe, 6.0 on), so
 * on a preemptible kernel another task may run ours on its CPU while
 * one is preempted, and a record built here would be half each task's.
 * The uprobe programs build theirs on their own stack, and read here
 * only the zeroes that nothing writes.
 */
struct scratch {
	struct wake_rec wake;
	struct ulock_key key;
	struct uwake_key wkey;
	__u64 chain[LS_ULOCK_STACK_DEPTH];
	__u64 found[LS_ULOCK_STACK_DEPTH];
	__u64 words[64];	/* SCAN_WORDS */
	/* Never written: the zeroed first value of a new row or thread. */
	struct ulock_wait zero_wait;
	struct uwake_val zero_wake;
	struct uhold_val zero_hold;
	struct ulock_thread zero_thread;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct scratch);
	__uint(max_entries, 1);
} scratch SEC(".maps");

/* The syscall tracepoints' records (struct syscall_trace_enter/exit). */
struct sys_enter_ctx {
	__u64 __common;
	__s32 nr;
	__u32 __pad;
	__u64 args[6];
};

struct sys_exit_ctx {
	__u64 __common;
	__s32 nr;
	__u32 __pad;
	__s64 ret;
};

static __always_inline struct ulock_lost *lost(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ulock_lost, &zero);
}

/* Per-CPU, but a uprobe program may be preempted between a load and its store. */
#define count_lost(field)					\
	do {							\
		struct ulock_lost *__l = lost();		\
								\
		if (__l)					\
			__sync_fetch_and_add(&__l->field, 1);	\
	} while (0)

static __always_inline struct scratch *scratch_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/* Keyed by the PIDs of lockstat's namespace: its /proc and its mapping tracker's. */
static __always_inline bool wanted(__u32 *tgid, __u32 *tid)
{
	__u64 id = bpf_get_current_pid_tgid();

	return (__u32)id && is_target(id >> 32) && ids_in_ns(id, tgid, tid) && *tgid != self_tgid;
}

/* The row of key in a per-CPU table, created zeroed the first time. */
static __always_inline void *row_of(void *map, const void *key, const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	if (bpf_map_update_elem(map, key, zero, BPF_NOEXIST))
		count_lost(rows_full);
	return bpf_map_lookup_elem(map, key);
}

#if defined(__TARGET_ARCH_x86)
/*
 * Whether the bytes before a return address are a call: call rel32, or
 * call through a register or memory (ff /2, 2, 3 or 6 bytes long).
 */
static __always_inline bool after_call(__u64 ret)
{
	__u8 b[8];

	if (ret < 0x10000 || ret >= 0x800000000000ULL)
		return false;
	if (bpf_probe_read_user(b, sizeof(b), (void *)(ret - 8)))
		return false;
	if (b[3] == 0xe8)
		return true;
	if (b[6] == 0xff && (b[7] & 0xf8) == 0xd0)
		return true;
	if (b[5] == 0xff && (b[6] & 0xf8) == 0x50)
		return true;
	return b[2] == 0xff && (b[3] == 0x15 || (b[3] & 0xf8) == 0x90);
}

#define SCAN_WORDS	64	/* pthread_cond_wait's frame alone is 24 words */
#define NEAR_LEAF	(16ULL << 20)	/* a return address this near the PC is in the same object */
#define STACK_NEAR	(1ULL << 20)	/* a word this near the stack pointer points into the stack */

static __always_inline bool frame_pointer_ok(__u64 sp, __u64 bp)
{
	return bp > sp && bp - sp < (64 << 10);
}

/*
 * Frame pointers miss the caller of the C library's lock functions: they
 * keep no frame, so at the futex syscall the frame pointer is still the
 * caller's, whose own return address is below it, or they use the
 * register for data (pthread_cond_wait). The return addresses above the
 * stack pointer are found by scanning for words that follow a call
 * instruction: up to the first one outside the object that made the
 * syscall when the frame pointer leads on from there, else up to the
 * stack's depth. Returns the frames written after frames[0].
 */
struct scan {
	__u64 *words;
	__u64 *frames;
	__u64 ip;
	__u64 sp;
	__u32 limit;
	__u32 n;
	bool chain;
};

/* One word of the scan, as a bpf_loop() callback: verified once, not per word. */
static long scan_word(__u32 i, struct scan *c)
{
	__u64 w;

	if (i >= c->limit || i >= SCAN_WORDS || c->n >= LS_ULOCK_STACK_DEPTH - 1)
		return 1;
	w = c->words[i & (SCAN_WORDS - 1)];
	if ((w > c->sp ? w - c->sp : c->sp - w) < STACK_NEAR || !after_call(w))
		return 0;
	c->frames[(1 + c->n) & (LS_ULOCK_STACK_DEPTH - 1)] = w;
	c->n++;
	return c->chain && w - c->ip > NEAR_LEAF && c->ip - w > NEAR_LEAF;
}

static __always_inline __u32 scan_caller(__u64 *frames, __u64 *words, __u64 ip, __u64 sp, __u64 bp)
{
	struct scan c = { .words = words, .frames = frames, .ip = ip, .sp = sp,
			  .chain = frame_pointer_ok(sp, bp), .limit = SCAN_WORDS };
	__u32 size;

	if (c.chain && (bp - sp) / 8 < SCAN_WORDS)
		c.limit = (bp - sp) / 8;
	size = c.limit * 8;	/* only the words scanned: the mutex path has 5 */
	if (!size || size > SCAN_WORDS * 8 || bpf_probe_read_user(words, size, (void *)sp))
		return 0;
	bpf_loop(SCAN_WORDS, scan_word, &c, 0);
	return c.n;
}
#else
static __always_inline bool frame_pointer_ok(__u64 sp, __u64 bp)
{
	return true;
}

static __always_inline __u32 scan_caller(__u64 *frames, __u64 *words, __u64 ip, __u64 sp, __u64 bp)
{
	return 0;
}
#endif

/* Whether the cached stack starts with the n + 1 frames just found and then ret. */
static __always_inline bool same_start(const __u64 *cache, const __u64 *found, __u32 n, __u64 ret)
{
	__u32 i;

	/*
	 * Unrolled, every index a constant: clang turns "break at n" into a
	 * count down from n, whose bound 6.1's verifier cannot see.
	 */
#pragma unroll
	for (i = 0; i < LS_ULOCK_STACK_DEPTH; i++)
		if (i <= n && cache[i] != found[i])
			return false;
	return !ret || cache[(n + 1) & (LS_ULOCK_STACK_DEPTH - 1)] == ret;
}

/*
 * The user stack at a futex syscall: the PC, the scanned callers, then
 * the frame-pointer chain past the caller's frame. A frame pointer that
 * does not point into the stack just above is no frame pointer (the
 * library used the register): then the scanned frames are all we have.
 *
 * frames is the thread's stack of the last time, taken where at says
 * (ip, sp, bp and the return address above bp). The same four are taken
 * to be the same stack: only that word is read. Else when the PC, the
 * scanned callers and that return address are the same, the rest is
 * taken to be (one call site, one caller) and the frame walk, the
 * costly part, is skipped.
 */
static __always_inline void syscall_stack(void *ctx, __u64 *frames, __u64 *at, struct scratch *s)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 ip = regs->ip, sp = regs->sp, bp = regs->bp, ret = 0, *found = s->found;
	__u32 n, i, k;
	long got;

	if (frame_pointer_ok(sp, bp) && bpf_probe_read_user(&ret, sizeof(ret), (void *)(bp + 8)))
		ret = 0;
	if (at[0] == ip && at[1] == sp && at[2] == bp && at[3] == ret && frames[0])
		return;
	at[0] = ip;
	at[1] = sp;
	at[2] = bp;
	at[3] = ret;
	__builtin_memset(found, 0, LS_ULOCK_STACK_DEPTH * sizeof(__u64));
	found[0] = ip;
	n = scan_caller(found, s->words, ip, sp, bp) & (LS_ULOCK_STACK_DEPTH - 1);
	if (same_start(frames, found, n, ret))
		return;
	__builtin_memcpy(frames, found, LS_ULOCK_STACK_DEPTH * sizeof(__u64));
	if (!frame_pointer_ok(sp, bp))
		return;
	got = bpf_get_stack(ctx, s->chain, LS_ULOCK_STACK_DEPTH * sizeof(__u64), BPF_F_USER_STACK);
	if (got <= 0) {
		count_lost(stack_error);
		return;
	}
	for (i = 1; i < LS_ULOCK_STACK_DEPTH; i++) {
		k = n + i;
		if (i >= got / 8 || k >= LS_ULOCK_STACK_DEPTH)
			break;
		barrier_var(k);	/* keep the mask: the verifier bounds k by it */
		frames[k & (LS_ULOCK_STACK_DEPTH - 1)] = s->chain[i];
	}
}

static __always_inline struct ulock_thread *thread_of(__u32 tid, struct scratch *s)
{
	struct ulock_thread *t = bpf_map_lookup_elem(&threads, &tid);

	if (t)
		return t;
	if (bpf_map_update_elem(&threads, &tid, &s->zero_thread, BPF_NOEXIST))
		count_lost(threads_full);
	t = bpf_map_lookup_elem(&threads, &tid);
	if (t)
		t->tid = tid;
	return t;
}

/*
 * The thread's contended acquisition is over: one row for all its waits,
 * its key built in key (the scratch's, or a uprobe program's stack).
 * The counts are added atomically (a uprobe program may be preempted on
 * the row's CPU); a preempted minimum or maximum may lose to another's.
 */
static __always_inline void close_contention_in(struct ulock_thread *t, __u32 tgid, struct ulock_key *key)
{
	struct scratch *s = scratch_buf();
	struct ulock_wait *v;
	__u64 d = t->waited_ns;
	__u32 slot;

	if (!t->lock || !s)
		return;
	key->lock = t->lock;
	key->tgid = tgid;
	key->kind = t->kind;
	__builtin_memcpy(key->frames, t->frames, sizeof(key->frames));
	t->lock = 0;
	t->waited_ns = 0;
	v = row_of(&wait_rows, key, &s->zero_wait);
	if (!v)
		return;
	/* Other CPUs' copies of a new per-CPU row start zeroed, min included. */
	if (!v->count || d < v->min_ns)
		v->min_ns = d;
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, d);
	if (d > v->max_ns)
		v->max_ns = d;
	if (!v->waiter_min || t->tid < v->waiter_min)
		v->waiter_min = t->tid;
	if (t->tid > v->waiter_max)
		v->waiter_max = t->tid;
	slot = log2_slot(d, LS_ULOCK_HIST_SLOTS);
	barrier_var(slot);
	if (slot < LS_ULOCK_HIST_SLOTS)
		__sync_fetch_and_add(&v->hist[slot], 1);
}

/* From a tracepoint program (preemption off): the key in the scratch. */
static __always_inline void close_contention(struct ulock_thread *t, __u32 tgid)
{
	struct scratch *s = scratch_buf();

	if (s)
		close_contention_in(t, tgid, &s->key);
}

/*
 * What kind of wait: the operation first, then the word's neighbours.
 * glibc's lll_lock protocol waits for 2, whether the lock call has a
 * timeout or not; nothing else of glibc waits for exactly 2. A
 * condition variable's waiters sleep on __g_signals[g] (offset 40 or 44
 * of pthread_cond_t) expecting 0, just after __wrefs, which counts them
 * in steps of 8 while they wait (glibc >= 2.25).
 */
static __always_inline __u32 wait_kind(__u32 cmd, __u64 uaddr, __u32 val)
{
	__u32 around[2];

	/* pthread_mutex_timedlock and clocklock wait with FUTEX_WAIT_BITSET and a timeout. */
	if ((cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) && val == 2)
		return ULK_MUTEX;
	if (cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2)
		return ULK_MUTEX_PI;
	if (cmd == FUTEX_WAIT_REQUEUE_PI)
		return ULK_COND;
	if (cmd != FUTEX_WAIT_BITSET || val || bpf_probe_read_user(around, sizeof(around), (void *)(uaddr - 8)))
		return ULK_FUTEX;
	if ((around[1] >= 8 && around[1] < (1U << 24)) || (around[0] >= 8 && around[0] < (1U << 24)))
		return ULK_COND;
	return ULK_FUTEX;
}

/* Who holds it, as the lock word or the mutex says; 0 when unknown. */
static __always_inline __u32 owner_of(__u32 kind, __u64 uaddr)
{
	__u32 v = 0;

	if (kind == ULK_MUTEX_PI)
		bpf_probe_read_user(&v, sizeof(v), (void *)uaddr);
	else if (kind == ULK_MUTEX)
		bpf_probe_read_user(&v, sizeof(v), (void *)(uaddr + GLIBC_MUTEX_OWNER));
	else
		return 0;
	v &= FUTEX_TID_MASK;
	return v < MAX_TID ? v : 0;
}

/* A lock whose waits in one lock call merge into one contended acquisition. */
static __always_inline bool merges(__u32 kind)
{
	return kind == ULK_MUTEX || kind == ULK_RWLOCK_R || kind == ULK_RWLOCK_W;
}

/*
 * glibc's rwlock waits are futex waits like any other, on __readers,
 * __wrphase_futex or __writers_futex (offsets 0, 8, 12); inside a lock
 * call the uprobes saw, they are that rwlock's.
 */
static __always_inline __u64 rwlock_of(const struct ulock_thread *t, __u64 word, __u32 *kind)
{
	__u64 off = word - t->in_lock;

	if (*kind != ULK_FUTEX || !t->in_lock || (off != 0 && off != 8 && off != 12) ||
	    (t->in_lock_kind != ULK_RWLOCK_R && t->in_lock_kind != ULK_RWLOCK_W))
		return word;
	*kind = t->in_lock_kind;
	return t->in_lock;
}

static __always_inline void begin_wait(void *ctx, __u32 tgid, __u32 tid, __u64 word, __u32 kind)
{
	struct scratch *s = scratch_buf();
	struct ulock_thread *t;
	__u64 lock;

	if (!s || !(t = thread_of(tid, s)))
		return;
	lock = rwlock_of(t, word, &kind);
	/* Another lock, or a wait that is no lock: the last contention is over. */
	if (t->lock && (t->lock != lock || !merges(kind) || t->kind != kind))
		close_contention(t, tgid);
	if (!t->lock) {
		t->lock = lock;
		t->tgid = tgid;
		t->kind = kind;
		t->waited_ns = 0;
		t->owner = owner_of(kind, word);
		syscall_stack(ctx, t->frames, t->frames_at, s);
	}
	t->wait_word = word;
	t->wait_kind = kind;
	t->wait_start = bpf_ktime_get_ns();
}

/*
 * Charge a woken wait to the thread that woke it, or to the owner. The
 * word's last wake is the one that woke us (or a later one): a wake that
 * woke nobody is overwritten by the one that did. It may have begun just
 * before we began to wait (our own probe on its way in delays it), hence
 * the slack; an older one is some other wait's.
 */
static __always_inline void charge_waker(struct ulock_thread *t, __u32 tgid, __u64 d, bool woken)
{
	struct word_key wk = { .uaddr = t->wait_word, .tgid = tgid };
	struct scratch *s = scratch_buf();
	struct uwake_val *v;
	struct wake_rec *w;

	if (!s)
		return;
	__builtin_memset(&s->wkey, 0, sizeof(s->wkey));
	w = bpf_map_lookup_elem(&wakes, &wk);
	if (woken && w && w->ts + WAKE_SLACK_NS >= t->wait_start) {
		s->wkey.waker = w->tid;
		__builtin_memcpy(s->wkey.frames, w->frames, sizeof(s->wkey.frames));
	} else if (t->owner && t->wait_kind == ULK_MUTEX && t->lock == t->wait_word) {
		s->wkey.waker = t->owner;
		s->wkey.from_owner = 1;
	} else {
		return;
	}
	s->wkey.lock = t->lock;
	s->wkey.tgid = tgid;
	s->wkey.kind = t->wait_kind;
	v = row_of(&wake_rows, &s->wkey, &s->zero_wake);
	if (v) {
		v->wakes++;
		v->wait_ns += d;
	}
}

/*
 * A wait the locks this thread holds were not held for: their own (in
 * the lock call, or taking a mutex back after a condition wait), and a
 * condition wait, the mutex's it let go (the pthread_cond_*wait uprobe
 * says which); the other locks the thread holds stay held through it.
 * Where that uprobe is not on, the mutex is unknown: every lock the
 * thread holds is taken to be let go (cond_wait_ns).
 */
static __always_inline void charge_holds(struct ulock_thread *t, __u32 tid, __u64 d)
{
	struct hold_key hk = { .lock = t->lock, .tid = tid };
	struct hold_pending *p;

	if (t->wait_kind == ULK_COND) {
		if (!t->cond_mutex) {
			t->cond_wait_ns += d;
			return;
		}
		hk.lock = t->cond_mutex;
	}
	p = bpf_map_lookup_elem(&holding, &hk);
	if (p)
		p->own_wait_ns += d;
}

static __always_inline void end_wait(__u32 tgid, __u32 tid, long ret)
{
	struct ulock_thread *t = bpf_map_lookup_elem(&threads, &tid);
	__u64 d;

	if (!t || !t->wait_start)
		return;
	d = bpf_ktime_get_ns() - t->wait_start;
	t->waited_ns += d;
	if (track_holds)
		charge_holds(t, tid, d);
	charge_waker(t, tgid, d, ret >= 0);
	t->wait_start = 0;
	/*
	 * Only a lock call's waits merge; a PI lock is held when the call
	 * returns, and a timed lock call that timed out gave up.
	 */
	if (!merges(t->kind) || ret == -ETIMEDOUT)
		close_contention(t, tgid);
}

/* A wake: remember who, and close the waker's own contention on the word. */
static __always_inline void on_wake(void *ctx, __u32 tgid, __u32 tid, __u64 uaddr)
{
	struct word_key wk = { .uaddr = uaddr, .tgid = tgid };
	struct scratch *s = scratch_buf();
	struct ulock_thread *t;

	if (!s || !(t = thread_of(tid, s)))
		return;
	if (t->lock == uaddr)
		close_contention(t, tgid);
	syscall_stack(ctx, t->wake_frames, t->wake_frames_at, s);
	s->wake.ts = bpf_ktime_get_ns();
	s->wake.tid = tid;
	__builtin_memcpy(s->wake.frames, t->wake_frames, sizeof(s->wake.frames));
	if (bpf_map_update_elem(&wakes, &wk, &s->wake, BPF_ANY))
		count_lost(wakes_full);
}

static __always_inline int futex_enter(void *ctx, __u64 uaddr, __u32 op, __u32 val, __u64 uaddr2)
{
	__u32 tgid, tid, cmd = op & FUTEX_CMD_MASK;

	if (!wanted(&tgid, &tid))
		return 0;
	switch (cmd) {
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_UNLOCK_PI:
		on_wake(ctx, tgid, tid, uaddr);
		return 0;
	case FUTEX_WAKE_OP:
		on_wake(ctx, tgid, tid, uaddr2);
		return 0;
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_WAIT_REQUEUE_PI:
		begin_wait(ctx, tgid, tid, uaddr, wait_kind(cmd, uaddr, val));
		return 0;
	default:
		return 0;
	}
}

static __always_inline int futex_exit(long ret)
{
	__u32 tgid, tid;

	if (wanted(&tgid, &tid))
		end_wait(tgid, tid, ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex")
int futex_enter_tp(struct sys_enter_ctx *ctx)
{
	return futex_enter(ctx, ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[4]);
}

SEC("tracepoint/syscalls/sys_exit_futex")
int futex_exit_tp(struct sys_exit_ctx *ctx)
{
	return futex_exit(ctx->ret);
}

/* A thread exits: a contention it left open is counted, and its slot freed. */
SEC("tracepoint/sched/sched_process_exit")
int thread_exit_tp(void *ctx)
{
	struct ulock_thread *t;
	__u32 tgid, tid;

	/* Keyed as wanted() keys it. */
	if (!ids_in_ns(bpf_get_current_pid_tgid(), &tgid, &tid) || !(t = bpf_map_lookup_elem(&threads, &tid)))
		return 0;
	close_contention(t, t->tgid);
	bpf_map_delete_elem(&threads, &tid);
	return 0;
}

/* futex2 (v6.7): futex_wait(uaddr, val, mask, flags, timeout, clockid). */
SEC("tracepoint/syscalls/sys_enter_futex_wait")
int futex2_wait_tp(struct sys_enter_ctx *ctx)
{
	return futex_enter(ctx, ctx->args[0], FUTEX_WAIT_BITSET, ctx->args[1], 0);
}

SEC("tracepoint/syscalls/sys_exit_futex_wait")
int futex2_wait_exit_tp(struct sys_exit_ctx *ctx)
{
	return futex_exit(ctx->ret);
}

/* futex2 (v6.7): futex_wake(uaddr, mask, nr, flags). */
SEC("tracepoint/syscalls/sys_enter_futex_wake")
int futex2_wake_tp(struct sys_enter_ctx *ctx)
{
	return futex_enter(ctx, ctx->args[0], FUTEX_WAKE, 0, 0);
}

/* v5.16: futex_waitv(waiters, nr, flags, timeout, clockid); the first word names it. */
SEC("tracepoint/syscalls/sys_enter_futex_waitv")
int futex_waitv_tp(struct sys_enter_ctx *ctx)
{
	__u64 uaddr = 0;

	/* struct futex_waitv { __u64 val; __u64 uaddr; __u32 flags; __u32 __reserved; } */
	if (bpf_probe_read_user(&uaddr, sizeof(uaddr), (void *)(ctx->args[0] + 8)))
		return 0;
	return futex_enter(ctx, uaddr, FUTEX_WAIT_BITSET, 0, 0);
}

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int futex_waitv_exit_tp(struct sys_exit_ctx *ctx)
{
	return futex_exit(ctx->ret);
}

/* --- uprobes ---------------------------------------------------------------- */

static __always_inline void count_hit(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&uprobe_hits, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * The user stack at a lock function's first instruction: the frame
 * pointer is still the caller's, so the chain misses the caller itself,
 * whose return address is on top of the stack (the kernel adds it only
 * for functions that begin by pushing a frame pointer, and glibc's do
 * not).
 */
static __always_inline void entry_stack(struct pt_regs *ctx, __u64 *frames, __u64 *chain)
{
	__u64 ret = 0;
	__u32 i, k = 1;
	long got;

	__builtin_memset(frames, 0, LS_ULOCK_STACK_DEPTH * sizeof(__u64));
	frames[0] = PT_REGS_IP(ctx);
#if defined(__TARGET_ARCH_x86)
	if (!bpf_probe_read_user(&ret, sizeof(ret), (void *)PT_REGS_SP(ctx)) && ret)
		frames[k++] = ret;
#endif
	got = bpf_get_stack(ctx, chain, LS_ULOCK_STACK_DEPTH * sizeof(__u64), BPF_F_USER_STACK);
	if (got <= 0) {
		count_lost(stack_error);
		return;
	}
	for (i = 1; i < LS_ULOCK_STACK_DEPTH; i++) {
		if (i >= got / 8 || k >= LS_ULOCK_STACK_DEPTH)
			break;
		if (i == 1 && chain[i] == ret)
			continue;	/* the kernel added it after all */
		frames[k & (LS_ULOCK_STACK_DEPTH - 1)] = chain[i];
		k++;
	}
}

/*
 * A lock call: count the acquisition now (the call returns with the lock)
 * and remember when, with the thread's futex wait so far. The record is
 * built on this program's stack, not in the per-CPU scratch (see there).
 */
static __always_inline int on_lock(struct pt_regs *ctx, __u64 lock, __u32 kind)
{
	struct hold_key hk = { .lock = lock };
	__u64 chain[LS_ULOCK_STACK_DEPTH];
	struct hold_pending hold = {};
	struct uhold_val *v;
	struct scratch *s;
	struct ulock_thread *t;
	__u32 tgid;

	count_hit();
	if (!wanted(&tgid, &hk.tid) || !(s = scratch_buf()))
		return 0;
	hold.start_ns = bpf_ktime_get_ns();
	t = thread_of(hk.tid, s);
	hold.cond_wait_ns = t ? t->cond_wait_ns : 0;
	if (t) {
		t->in_lock = lock;
		t->in_lock_kind = kind;
	}
	hold.row.lock = lock;
	hold.row.tgid = tgid;
	hold.row.kind = kind;
	entry_stack(ctx, hold.row.frames, chain);
	v = row_of(&hold_rows, &hold.row, &s->zero_hold);
	if (v)
		__sync_fetch_and_add(&v->acquired, 1);
	if (bpf_map_update_elem(&holding, &hk, &hold, BPF_ANY))
		count_lost(holds_full);
	return 0;
}

static __always_inline int on_unlock(__u64 lock)
{
	struct hold_key hk = { .lock = lock };
	struct ulock_key key;
	struct hold_pending *p;
	struct uhold_val *v;
	struct ulock_thread *t;
	__u64 hold, waited;
	__u32 tgid;

	count_hit();
	if (!wanted(&tgid, &hk.tid))
		return 0;
	t = bpf_map_lookup_elem(&threads, &hk.tid);
	if (t && t->lock == lock)
		close_contention_in(t, tgid, &key);
	if (t && t->in_lock == lock)
		t->in_lock = 0;
	p = bpf_map_lookup_elem(&holding, &hk);
	if (!p) {
		count_lost(unlock_unseen);
		return 0;
	}
	hold = bpf_ktime_get_ns() - p->start_ns;
	waited = p->own_wait_ns + (t ? t->cond_wait_ns - p->cond_wait_ns : 0);
	hold = hold > waited ? hold - waited : 0;
	v = bpf_map_lookup_elem(&hold_rows, &p->row);
	if (v) {
		__sync_fetch_and_add(&v->held, 1);
		__sync_fetch_and_add(&v->hold_ns, hold);
		if (hold > v->hold_max_ns)
			v->hold_max_ns = hold;
	}
	bpf_map_delete_elem(&holding, &hk);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(mutex_lock, void *lock)
{
	return on_lock(ctx, (__u64)lock, ULK_MUTEX);
}

SEC("uprobe")
int BPF_KPROBE(rwlock_rdlock, void *lock)
{
	return on_lock(ctx, (__u64)lock, ULK_RWLOCK_R);
}

SEC("uprobe")
int BPF_KPROBE(rwlock_wrlock, void *lock)
{
	return on_lock(ctx, (__u64)lock, ULK_RWLOCK_W);
}

SEC("uprobe")
int BPF_KPROBE(spin_lock, void *lock)
{
	return on_lock(ctx, (__u64)lock, ULK_SPIN);
}

/*
 * pthread_cond_wait, timedwait, clockwait (cond, mutex, ...): the mutex
 * this thread's condition waits let go, until its next one.
 */
SEC("uprobe")
int BPF_KPROBE(cond_wait, void *cond, void *mutex)
{
	struct ulock_thread *t;
	struct scratch *s;
	__u32 tgid, tid;

	count_hit();
	if (!wanted(&tgid, &tid) || !(s = scratch_buf()) || !(t = thread_of(tid, s)))
		return 0;
	t->cond_mutex = (__u64)mutex;
	return 0;
}

/* pthread_mutex_unlock, pthread_rwlock_unlock, pthread_spin_unlock. */
SEC("uprobe")
int BPF_KPROBE(lock_release, void *lock)
{
	return on_unlock((__u64)lock);
}
