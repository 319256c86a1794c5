// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sampling profiler: one perf_event (cycles, else cpu-clock) per CPU runs
 * this program; samples are counted in the kernel per (process, thread,
 * kernel stack, user stack) and drained once per bucket. User stacks are
 * walked by the kernel through frame pointers: code built without them
 * gives short user stacks (the report says how many were truncated).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "sample.h"
#include "targets.bpf.h"
#include "stackhash.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define EFAULT	14

/*
 * Stacks under the hash of their frames (see sample.h). perf_event
 * programs may only use preallocated hash maps: these reserve their
 * max_entries at load, as stack maps did. The collector sets the sizes
 * (-M) and removes the stacks no row refers to any more (trim).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct sample_stack);
	__uint(max_entries, 16384);
} kstacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct sample_stack);
	__uint(max_entries, 16384);
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct sample_stack);
	__uint(max_entries, 1);
} stack_scratch SEC(".maps");

/* perf_event programs may only use preallocated hash maps. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct sample_key);
	__type(value, __u64);
	__uint(max_entries, 32768);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, char[16]);
	__uint(max_entries, 16384);
} sample_comms SEC(".maps");

/*
 * The first sample of a process is announced at once, so that user space
 * reads its mappings while it lives, even when it exits before the next
 * drain.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 16384);
} seen_tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} new_tgids SEC(".maps");

/*
 * --user-stack dwarf: ustack_size bytes of user stack a sample (0: the
 * kernel walks frame pointers); the collector sizes the ring.
 */
const volatile __u32 ustack_size;
/* Wake user space once this much waits in the ring: it also empties it at each drain. */
const volatile __u64 ustack_wake;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} ustack_samples SEC(".maps");

struct sample_lost lost;
/* Odd while user space removes names or announcements; never 0, a zeroed slot's. */
__u64 names_gen = 2;

/* remember_thread()'s slots: the threads seen lately on this CPU. */
#define SAMPLE_THREAD_SLOTS_LOG2	8
#define SAMPLE_THREAD_SLOTS		(1 << SAMPLE_THREAD_SLOTS_LOG2)

struct sample_thread {
	__u32 tid;
	__u32 tgid;
	__u64 gen;
};

struct sample_threads {
	struct sample_thread slot[SAMPLE_THREAD_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct sample_threads);
	__uint(max_entries, 1);
} thread_cache SEC(".maps");

/* Whether tgid was announced (now or before); false when the map is full. */
static bool announce(__u32 tgid)
{
	__u32 one = 1;
	long err;

	if (!tgid || bpf_map_lookup_elem(&seen_tgids, &tgid))
		return true;
	err = bpf_map_update_elem(&seen_tgids, &tgid, &one, BPF_NOEXIST);
	if (err)
		return err == -EEXIST;	/* another CPU won the race, or the map is full */
	bpf_ringbuf_output(&new_tgids, &tgid, sizeof(tgid), 0);
	return true;
}

/*
 * The key of this sample's kernel or user stack in map, the stack stored
 * under it if new; LS_SAMPLE_NO_STACK when there is none of that kind
 * (user mode, a kernel thread) or it could not be kept (counted).
 */
static __u64 stack_of(void *ctx, void *map, __u64 flags, __u64 *error)
{
	__u32 zero = 0;
	struct sample_stack *st = bpf_map_lookup_elem(&stack_scratch, &zero);
	long n, err;
	__u64 h;

	if (!st)
		return LS_SAMPLE_NO_STACK;
	n = bpf_get_stack(ctx, st->ip, sizeof(st->ip), flags);
	if (n <= 0) {
		/* -EFAULT: no stack of that kind here. */
		if (n < 0 && n != -EFAULT)
			__sync_fetch_and_add(error, 1);
		return LS_SAMPLE_NO_STACK;
	}
	st->nr = n / sizeof(__u64);
	h = hash_frames(st->ip, st->nr, LS_SAMPLE_STACK_DEPTH);
	if (h == LS_SAMPLE_NO_STACK)
		h = 1;
	if (bpf_map_lookup_elem(map, &h))
		return h;
	err = bpf_map_update_elem(map, &h, st, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		__sync_fetch_and_add(&lost.stacks_full, 1);
		return LS_SAMPLE_NO_STACK;
	}
	return h;
}

/* Whether tid's command is kept (now or before); false when the map is full. */
static bool remember_comm(__u32 tid)
{
	char comm[16];
	long err;

	if (bpf_map_lookup_elem(&sample_comms, &tid))
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	err = bpf_map_update_elem(&sample_comms, &tid, comm, BPF_NOEXIST);
	return !err || err == -EEXIST;
}

/*
 * A thread's command kept and its process announced: both hash lookups,
 * each a few cold cache lines at 99 Hz, are asked once per thread and
 * CPU while user space removes neither entry. It makes names_gen odd
 * while it removes some (trim, a process forgotten) and even again
 * after: a slot holds the generation it was checked under, and none is
 * made or believed while the generation is odd. A hit thus stands for
 * lookups that found both at this sample's reading of the generation,
 * as the lookups themselves would have.
 */
static void remember_thread(__u32 tgid, __u32 tid)
{
	__u64 gen = *(volatile __u64 *)&names_gen;
	__u32 zero = 0, i = (tid * 0x9e3779b1U) >> (32 - SAMPLE_THREAD_SLOTS_LOG2);
	struct sample_threads *c = bpf_map_lookup_elem(&thread_cache, &zero);
	struct sample_thread *t;
	bool named, announced;

	if (!c || (gen & 1)) {
		remember_comm(tid);
		announce(tgid);
		return;
	}
	t = &c->slot[i & (SAMPLE_THREAD_SLOTS - 1)];
	if (t->gen == gen && t->tid == tid && t->tgid == tgid)
		return;
	/* Both are asked: neither is to be skipped because the other failed. */
	named = remember_comm(tid);
	announced = announce(tgid);
	if (named && announced) {
		t->tid = tid;
		t->tgid = tgid;
		t->gen = gen;
	}
}

/*
 * Whether the sample interrupted user mode, where the kernel has no stack
 * to give (get_perf_callchain() takes a kernel stack only when
 * !user_mode(regs)); false where we cannot tell: the kernel is asked.
 */
#if defined(__TARGET_ARCH_x86)
/*
 * The context's registers as the BPF UAPI lays them out (x86-64's user
 * pt_regs): the verifier lets a perf_event program read them only a
 * whole word at a time, where CO-RE would narrow cs to the kernel's u16.
 */
struct sample_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

static bool in_user_mode(void *ctx)
{
	return ((const struct sample_regs *)ctx)->cs & 3;
}

/* x86-64's DWARF register numbers: struct sample_uregs.regs. */
#define COPY_UREGS(d, r)	do {						\
	(d)[0] = (r)->ax; (d)[1] = (r)->dx; (d)[2] = (r)->cx; (d)[3] = (r)->bx;	\
	(d)[4] = (r)->si; (d)[5] = (r)->di; (d)[6] = (r)->bp; (d)[7] = (r)->sp;	\
	(d)[8] = (r)->r8; (d)[9] = (r)->r9; (d)[10] = (r)->r10; (d)[11] = (r)->r11;	\
	(d)[12] = (r)->r12; (d)[13] = (r)->r13; (d)[14] = (r)->r14; (d)[15] = (r)->r15;	\
	(d)[16] = (r)->ip;							\
} while (0)

/*
 * The user registers of the sample: the context's when it interrupted
 * user mode, else those the task entered the kernel with; false for a
 * kernel thread (no user mode to return to). Two functions: merged, the
 * compiler reads both kinds through one pointer, and the verifier
 * refuses a context pointer that was moved.
 */
static __noinline bool ctx_uregs(const struct sample_regs *u, __u64 *d)
{
	if (!u)
		return false;
	COPY_UREGS(d, u);
	return true;
}

static __noinline bool task_uregs(__u64 *d)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	if (!r || !(r->cs & 3))
		return false;
	COPY_UREGS(d, r);
	return true;
}

static bool user_regs(void *ctx, __u64 *d)
{
	return in_user_mode(ctx) ? ctx_uregs(ctx, d) : task_uregs(d);
}

/*
 * Copy the top of the user stack: ustack_size bytes from sp, or, where
 * the stack's mapping ends sooner (a thread near its stack's top),
 * whole pages less until a read succeeds: the size read, 0 if none.
 */
static __u32 copy_ustack(struct sample_uregs *e)
{
	__u64 sp = e->regs[7];
	__u32 first = LS_SAMPLE_PAGE - (sp & (LS_SAMPLE_PAGE - 1)), n;
	int k;

	if (!bpf_probe_read_user(e->stack, ustack_size, (void *)sp))
		return ustack_size;
	for (k = LS_SAMPLE_USTACK_MAX / LS_SAMPLE_PAGE; k >= 0; k--) {
		n = first + k * LS_SAMPLE_PAGE;
		if (n >= ustack_size)
			continue;
		if (!bpf_probe_read_user(e->stack, n, (void *)sp))
			return n;
	}
	return 0;
}

/*
 * --user-stack dwarf: the sample with its user registers and stack to
 * user space, which unwinds and counts it. False when it is not sent
 * (frame pointers, no user mode, the ring full: counted): it is then
 * counted here, with the kernel's walk or without a user stack.
 */
static bool send_ustack(void *ctx, struct sample_key *key)
{
	__u64 regs[LS_SAMPLE_UREGS];
	struct sample_uregs *e;
	int i;

	if (!ustack_size || !user_regs(ctx, regs))
		return false;
	e = bpf_ringbuf_reserve(&ustack_samples, sizeof(*e) + ustack_size, 0);
	if (!e) {
		__sync_fetch_and_add(&lost.ustack_dropped, 1);
		return false;
	}
	for (i = 0; i < LS_SAMPLE_UREGS; i++)
		e->regs[i] = regs[i];
	e->tgid = key->tgid;
	e->tid = key->tid;
	e->kstack = key->kstack;
	e->size = copy_ustack(e);
	e->__pad = 0;
	bpf_ringbuf_submit(e, bpf_ringbuf_query(&ustack_samples, BPF_RB_AVAIL_DATA) >= ustack_wake ?
			   BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	return true;
}
#else
static bool in_user_mode(void *ctx)
{
	return false;
}

static bool send_ustack(void *ctx, struct sample_key *key)
{
	return false;
}
#endif

SEC("perf_event")
int on_sample(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), one = 1, *count;
	struct sample_key key = {};

	/* Keyed by the PIDs of lockstat's namespace: its /proc and its mapping tracker's. */
	if (!is_target(pid_tgid >> 32) || !ids_in_ns(pid_tgid, &key.tgid, &key.tid))
		return 0;
	/*
	 * A kernel stack the kernel would give empty is not asked for: it
	 * costs a full one's cold lines all the same (its callchain buffer
	 * and the 512 bytes it clears, at 99 Hz). A kernel thread's empty
	 * user stack costs little, and telling a kernel thread needs the
	 * task's flags, so kernel BTF, which the sampler needs nowhere else.
	 */
	if (!in_user_mode(ctx))
		key.kstack = stack_of(ctx, &kstacks, 0, &lost.kstack_error);
	if (!ustack_size)
		key.ustack = stack_of(ctx, &ustacks, BPF_F_USER_STACK, &lost.ustack_error);
	remember_thread(key.tgid, key.tid);
	if (send_ustack(ctx, &key))
		return 0;
	count = bpf_map_lookup_elem(&counts, &key);
	if (count) {
		__sync_fetch_and_add(count, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		count = bpf_map_lookup_elem(&counts, &key);
		if (count)
			__sync_fetch_and_add(count, 1);
		else
			__sync_fetch_and_add(&lost.map_full, 1);
	}
	return 0;
}
