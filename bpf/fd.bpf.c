// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fd family. Three sources, each optional but the first:
 *
 * raw_syscalls:sys_enter   fd syscalls per thread, and the fd table the
 *                          thread uses (task->files); tp_btf, or the
 *                          classic tracepoint where BTF cannot attach
 * sched_process_exec       the new comm of a thread already counted
 * fget family              calls and latency of fget, fget_raw, fdget...
 *                          through fentry/fexit (one program per function:
 *                          a trampoline is bound to its target at load) or
 *                          one kprobe/kretprobe pair attached to each
 *                          function with its slot as the cookie
 *
 * Every row is per thread, and a thread runs on one CPU at a time, so
 * plain hashes updated in place are exact without atomics or per-CPU
 * copies.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fd.h"
#include "targets.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Per syscall number, its index in fd_thread.calls plus one; 0: not an fd syscall. */
const volatile __u8 fd_index[LS_FD_NR_MAX];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct fd_thread_key);
	__type(value, struct fd_thread);
	__uint(max_entries, 8192);
} fd_threads SEC(".maps");

/* Never written: the zeroed row a new thread starts from (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct fd_thread);
	__uint(max_entries, 1);
} fd_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct fd_fget_key);
	__type(value, struct fd_fget_val);
	__uint(max_entries, 16384);
} fd_fget SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct fd_pending_key);
	__type(value, __u64);
	__uint(max_entries, 16384);
} fd_pending SEC(".maps");

struct fd_lost fd_lost;

static __always_inline void count_lost(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

/* The index in fd_thread.calls plus one, or 0 for a syscall not counted. */
static __always_inline __u32 fd_syscall_index(long nr)
{
	__u64 n = nr;	/* a negative nr wraps above the range */

	return n < LS_FD_NR_MAX ? fd_index[n] : 0;
}

static __always_inline struct fd_thread *thread_row(struct fd_thread_key *k)
{
	struct fd_thread *t = bpf_map_lookup_elem(&fd_threads, k);
	__u32 zero = 0;
	void *empty;

	if (t)
		return t;
	empty = bpf_map_lookup_elem(&fd_zero, &zero);
	if (!empty)
		return NULL;
	if (bpf_map_update_elem(&fd_threads, k, empty, BPF_NOEXIST)) {
		count_lost(&fd_lost.threads_full);
		return NULL;
	}
	return bpf_map_lookup_elem(&fd_threads, k);
}

/* files is the task's fd table: NULL when it has none (exiting). */
static __always_inline void count_syscall(__u32 tgid, __u32 tid, __u32 idx,
					  struct files_struct *files)
{
	struct fd_thread_key k = { .tgid = tgid, .tid = tid };
	struct fd_thread *t = thread_row(&k);

	if (!t || idx > LS_FD_NSYSCALLS)
		return;
	/* idx is 1..64 here, but older verifiers forget idx != 0: the mask bounds it. */
	t->calls[(idx - 1) & (LS_FD_NSYSCALLS - 1)]++;
	if (t->files == (__u64)files)
		return;
	/* A new thread, or unshare(CLONE_FILES) gave it a table of its own. */
	t->files = (__u64)files;
	t->file_lock = files ? (__u64)&files->file_lock : 0;
	bpf_get_current_comm(t->comm, sizeof(t->comm));
}

/* A direct load through the BTF-typed task: no helper call. */
static __always_inline struct files_struct *files_btf(void)
{
	return bpf_get_current_task_btf()->files;
}

static __always_inline struct files_struct *files_classic(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, files);
}

/* The syscall number first: it is the test that fails for most events. */
static __always_inline int on_sys_enter(long nr, bool btf)
{
	__u32 idx = fd_syscall_index(nr);
	__u64 id;

	if (!idx)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!is_target(id >> 32))
		return 0;
	count_syscall(id >> 32, (__u32)id, idx, btf ? files_btf() : files_classic());
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	return on_sys_enter(id, true);
}

SEC("tracepoint/raw_syscalls/sys_enter")
int sys_enter_tp(struct trace_event_raw_sys_enter *ctx)
{
	return on_sys_enter(ctx->id, false);
}

/* exec changes the comm and keeps the thread and (unshared) its table. */
static __always_inline int on_exec(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fd_thread_key k = { .tgid = id >> 32, .tid = (__u32)id };
	struct fd_thread *t = bpf_map_lookup_elem(&fd_threads, &k);

	if (t)
		bpf_get_current_comm(t->comm, sizeof(t->comm));
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(exec_btf)
{
	return on_exec();
}

SEC("tracepoint/sched/sched_process_exec")
int exec_tp(void *ctx)
{
	return on_exec();
}

/* --- the fget family ----------------------------------------------------- */

static __always_inline int fget_enter(__u32 slot)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	struct fd_pending_key k = { .tid = (__u32)id, .slot = slot };

	if (!is_target(id >> 32))
		return 0;
	now = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&fd_pending, &k, &now, BPF_ANY))
		count_lost(&fd_lost.pending_full);
	return 0;
}

static __always_inline void account_call(__u32 tgid, __u32 tid, __u32 slot, __u64 ns)
{
	struct fd_fget_key k = { .tgid = tgid, .tid = tid, .slot = slot };
	struct fd_fget_val *v, fresh = { .calls = 1, .total_ns = ns, .max_ns = ns };

	v = bpf_map_lookup_elem(&fd_fget, &k);
	if (!v) {
		if (bpf_map_update_elem(&fd_fget, &k, &fresh, BPF_NOEXIST))
			count_lost(&fd_lost.fget_full);
		return;
	}
	v->calls++;
	v->total_ns += ns;
	if (ns > v->max_ns)
		v->max_ns = ns;
}

static __always_inline int fget_exit(__u32 slot)
{
	__u64 id = bpf_get_current_pid_tgid(), *start, now = bpf_ktime_get_ns();
	struct fd_pending_key k = { .tid = (__u32)id, .slot = slot };

	if (!is_target(id >> 32))
		return 0;
	start = bpf_map_lookup_elem(&fd_pending, &k);
	if (!start) {
		count_lost(&fd_lost.exit_unseen);
		return 0;
	}
	account_call(id >> 32, (__u32)id, slot, now - *start);
	bpf_map_delete_elem(&fd_pending, &k);
	return 0;
}

/*
 * One fentry/fexit pair per slot; the collector sets each one's target
 * before loading and turns the unused slots off. No arguments are read,
 * so one body fits every prototype.
 */
#define FGET_SLOT(n)						\
SEC("fentry")							\
int BPF_PROG(fd_enter##n)					\
{								\
	return fget_enter(n);					\
}								\
SEC("fexit")							\
int BPF_PROG(fd_exit##n)					\
{								\
	return fget_exit(n);					\
}

FGET_SLOT(0)
FGET_SLOT(1)
FGET_SLOT(2)
FGET_SLOT(3)

_Static_assert(LS_FD_SLOTS == 4, "one FGET_SLOT() per slot");
_Static_assert((LS_FD_NSYSCALLS & (LS_FD_NSYSCALLS - 1)) == 0, "a mask bounds the calls index");

/* kprobes: one program for every function, the slot in the cookie. */
SEC("kprobe")
int BPF_KPROBE(fd_kenter)
{
	return fget_enter(bpf_get_attach_cookie(ctx));
}

SEC("kretprobe")
int BPF_KRETPROBE(fd_kexit)
{
	return fget_exit(bpf_get_attach_cookie(ctx));
}
