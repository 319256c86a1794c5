// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lock naming: programs run through BPF_PROG_TEST_RUN, never attached,
 * that read what user space cannot see of the kernel's locks. Kept apart
 * from contention.bpf.c so that a kernel without one of these fields only
 * loses the names that need it.
 *
 *   find_rq_locks  every CPU's struct rq, through the BTF-typed task
 *                  group of the current task: its cfs_rq[cpu]->rq is that
 *                  CPU's run queue (the per-CPU runqueues symbol is not
 *                  resolvable without CONFIG_KALLSYMS_ALL)
 *   check_zones    which addresses are a zone's lock: the zone's
 *                  zone_pgdat must point back at a node whose
 *                  node_zones[] holds it
 *   find_zones     two real zones' locks, for the self-check of
 *                  check_zones: through the current task's memory
 *                  cgroup, whose per-node lruvec points at the node
 *   read_caches    size, slab order, red zone and name of kmem_caches
 *   self_check     addresses and slab caches of locks in lockstat's own
 *                  objects, for the self-check of the slab path
 *
 * The types below are local flavours (___names): CO-RE matches them to the
 * running kernel by name, as it does with bpf/vmlinux/vmlinux.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "names.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define __core	__attribute__((preserve_access_index))
#define OO_SHIFT	16	/* mm/slub.c: a kmem_cache_order_objects is order << 16 | objects */

struct rq___names {
	raw_spinlock_t __lock;
	int cpu;
} __core;

struct cfs_rq___names {
	struct rq___names *rq;
} __core;

struct task_group___names {
	struct cfs_rq___names **cfs_rq;
} __core;

struct fdtable___names {
	struct file___names **fd;
} __core;

struct files_struct___names {
	struct fdtable___names *fdt;
	spinlock_t file_lock;
} __core;

struct mutex___names {
	long owner;
} __core;

struct signal_struct___names {
	struct mutex___names cred_guard_mutex;
} __core;

struct lockref___names {
	spinlock_t lock;
} __core;

struct dentry___names {
	struct lockref___names d_lockref;
} __core;

struct inode___names {
	spinlock_t i_lock;
} __core;

struct path___names {
	struct dentry___names *dentry;
} __core;

struct file___names {
	struct mutex___names f_pos_lock;
	struct path___names f_path;
	struct inode___names *f_inode;
} __core;

struct task_struct___names {
	struct task_group___names *sched_task_group;
	raw_spinlock_t pi_lock;
	struct files_struct___names *files;
	struct mm_struct *mm;
	struct sighand_struct *sighand;
	struct signal_struct___names *signal;
} __core;

struct pglist_data___names;

struct zone___names {
	spinlock_t lock;
	struct pglist_data___names *zone_pgdat;
	const char *name;
} __core;

struct pglist_data___names {
	struct zone___names node_zones[1];
} __core;

/* Local: vmlinux.h has neither; CO-RE takes the running kernel's value. */
enum cgroup_subsys_id___names {
	memory_cgrp_id = 4,
};

struct cgroup_subsys_state___names {
	long refcnt;
} __core;

struct css_set___names {
	struct cgroup_subsys_state___names *subsys[1];
} __core;

struct lruvec___names {
	struct pglist_data___names *pgdat;
} __core;

struct mem_cgroup_per_node___names {
	struct lruvec___names lruvec;
} __core;

struct mem_cgroup___names {
	struct cgroup_subsys_state___names css;
	struct mem_cgroup_per_node___names *nodeinfo[1];
} __core;

struct task_struct___cgroups {
	struct css_set___names *cgroups;
} __core;

struct kmem_cache_order_objects___names {
	unsigned int x;
} __core;

struct kmem_cache___names {
	unsigned int size;
	unsigned int object_size;
	struct kmem_cache_order_objects___names oo;
	struct kmem_cache_order_objects___names min;
	unsigned int red_left_pad;
	int refcount;
	const char *name;
} __core;

/* Linux 6.13+; the programs that call it are only loaded where it exists. */
extern struct kmem_cache___names *bpf_get_kmem_cache(__u64 addr) __ksym __weak;

const volatile __u32 nr_cpus;

/* find_rq_locks: out */
__u64 rq_addrs[LS_MAX_CPUS];
__u32 rq_how;			/* 0: no task group in this kernel's BTF, 1: found */

/* find_zones: out, 0 where the kernel has no memory cgroups */
__u64 zone_locks[2];

/* check_zones: in addrs/naddrs, out is_zone */
__u64 addrs[LS_NAMES_BATCH];
__u32 naddrs;
__u8 is_zone[LS_NAMES_BATCH];

/* read_caches: in caches[].cache and ncaches, out the rest of caches[] */
struct ls_cache caches[LS_NAMES_BATCH];
__u32 ncaches;

/* self_check: in self_fd, out self_addrs and self_caches */
__s32 self_fd;
__u64 self_addrs[LS_SELF__COUNT];
__u64 self_caches[LS_SELF__COUNT];

static struct task_struct___names *current_task(void)
{
	return (struct task_struct___names *)bpf_get_current_task();
}

/*
 * Every task group has one cfs_rq per possible CPU, and each cfs_rq points
 * at its CPU's run queue: the root group's are embedded in the rq itself.
 */
SEC("raw_tp/bpf_test_finish")
int find_rq_locks(void *ctx)
{
	struct task_struct___names *task = current_task();
	struct cfs_rq___names **per_cpu, *cfs;
	struct rq___names *rq;
	__u32 i;

	if (!bpf_core_field_exists(task->sched_task_group) ||
	    !bpf_core_field_exists(struct cfs_rq___names, rq))
		return 0;
	per_cpu = BPF_CORE_READ(task, sched_task_group, cfs_rq);
	if (!per_cpu)
		return 0;
	rq_how = 1;
	for (i = 0; i < LS_MAX_CPUS && i < nr_cpus; i++) {
		cfs = NULL;
		if (bpf_probe_read_kernel(&cfs, sizeof(cfs), per_cpu + i))
			continue;
		rq = BPF_CORE_READ(cfs, rq);
		if (!rq)
			continue;
		/* A wrong turn would land on some other memory: its cpu says so. */
		if (bpf_core_field_exists(rq->cpu) && BPF_CORE_READ(rq, cpu) != (int)i)
			continue;
		rq_addrs[i] = (__u64)rq;
	}
	return 0;
}

/*
 * Global functions, this one and read_cache(): the verifier checks each
 * once, not once for each of the LS_NAMES_BATCH turns of its caller's
 * loop (10 ms of record's start-up).
 */
__noinline int is_zone_lock(__u64 addr)
{
	__u64 zone = addr - bpf_core_field_offset(struct zone___names, lock);
	__u64 size = bpf_core_type_size(struct zone___names);
	__u64 nr = bpf_core_field_size(struct pglist_data___names, node_zones) / size;
	struct pglist_data___names *pgdat;
	__u64 first;

	pgdat = BPF_CORE_READ((struct zone___names *)zone, zone_pgdat);
	if (!pgdat)
		return false;
	first = (__u64)pgdat + bpf_core_field_offset(struct pglist_data___names, node_zones);
	if (zone < first || (zone - first) % size || (zone - first) / size >= nr)
		return false;
	return BPF_CORE_READ((struct zone___names *)zone, name) != NULL;
}

SEC("raw_tp/bpf_test_finish")
int check_zones(void *ctx)
{
	__u32 i;

	for (i = 0; i < LS_NAMES_BATCH && i < naddrs; i++)
		is_zone[i] = is_zone_lock(addrs[i]);
	return 0;
}

/* The node of the current task's memory cgroup: its per-node lruvec knows it. */
static struct pglist_data___names *current_node(void)
{
	struct task_struct___cgroups *task = (struct task_struct___cgroups *)bpf_get_current_task();
	__u64 id = bpf_core_enum_value(enum cgroup_subsys_id___names, memory_cgrp_id);
	struct css_set___names *cset = BPF_CORE_READ(task, cgroups);
	struct cgroup_subsys_state___names *css = NULL;
	struct mem_cgroup_per_node___names *pn = NULL;
	__u64 memcg;

	if (!bpf_core_enum_value_exists(enum cgroup_subsys_id___names, memory_cgrp_id) || !cset ||
	    bpf_probe_read_kernel(&css, sizeof(css), (void *)cset +
				  bpf_core_field_offset(struct css_set___names, subsys) + id * sizeof(css)) ||
	    !css)
		return NULL;
	memcg = (__u64)css - bpf_core_field_offset(struct mem_cgroup___names, css);
	if (bpf_probe_read_kernel(&pn, sizeof(pn),
				  (void *)memcg + bpf_core_field_offset(struct mem_cgroup___names, nodeinfo)))
		return NULL;
	return BPF_CORE_READ(pn, lruvec.pgdat);
}

SEC("raw_tp/bpf_test_finish")
int find_zones(void *ctx)
{
	struct pglist_data___names *pgdat = current_node();
	__u64 size = bpf_core_type_size(struct zone___names);
	__u64 nr = bpf_core_field_size(struct pglist_data___names, node_zones) / size;
	__u64 first;

	if (!pgdat || !nr)
		return 0;
	first = (__u64)pgdat + bpf_core_field_offset(struct pglist_data___names, node_zones) +
		bpf_core_field_offset(struct zone___names, lock);
	zone_locks[0] = first;
	zone_locks[1] = first + (nr - 1) * size;
	return 0;
}

__noinline int read_cache(__u32 i)
{
	struct ls_cache *c;
	struct kmem_cache___names *s;

	if (i >= LS_NAMES_BATCH)
		return 0;
	c = &caches[i];
	s = (struct kmem_cache___names *)c->cache;

	c->size = BPF_CORE_READ(s, size);
	c->object_size = BPF_CORE_READ(s, object_size);
	c->order = BPF_CORE_READ(s, oo.x) >> OO_SHIFT;
	c->min_order = BPF_CORE_READ(s, min.x) >> OO_SHIFT;
	c->red_left_pad = BPF_CORE_READ(s, red_left_pad);
	c->refcount = BPF_CORE_READ(s, refcount);
	if (bpf_probe_read_kernel_str(c->name, sizeof(c->name), BPF_CORE_READ(s, name)) < 0)
		c->name[0] = '\0';
	return 0;
}

SEC("raw_tp/bpf_test_finish")
int read_caches(void *ctx)
{
	__u32 i;

	for (i = 0; i < LS_NAMES_BATCH && i < ncaches; i++)
		read_cache(i);
	return 0;
}

static struct file___names *self_file(struct files_struct___names *files)
{
	struct file___names **fds = BPF_CORE_READ(files, fdt, fd);
	struct file___names *file = NULL;

	if (self_fd < 0 || !fds || bpf_probe_read_kernel(&file, sizeof(file), fds + self_fd))
		return NULL;
	return file;
}

SEC("raw_tp/bpf_test_finish")
int self_check(void *ctx)
{
	struct task_struct___names *task = current_task();
	struct files_struct___names *files = BPF_CORE_READ(task, files);
	struct file___names *file = self_file(files);
	__u32 i;

	self_addrs[LS_SELF_FILE_LOCK] = (__u64)&files->file_lock;
	self_addrs[LS_SELF_MMAP_LOCK] = (__u64)&BPF_CORE_READ(task, mm)->mmap_lock;
	self_addrs[LS_SELF_SIGLOCK] = (__u64)&BPF_CORE_READ(task, sighand)->siglock;
	self_addrs[LS_SELF_PI_LOCK] = (__u64)&task->pi_lock;
	self_addrs[LS_SELF_CRED_GUARD] = (__u64)&BPF_CORE_READ(task, signal)->cred_guard_mutex;
	if (file) {
		self_addrs[LS_SELF_F_POS_LOCK] = (__u64)&file->f_pos_lock;
		self_addrs[LS_SELF_D_LOCK] = (__u64)&BPF_CORE_READ(file, f_path.dentry)->d_lockref.lock;
		self_addrs[LS_SELF_I_LOCK] = (__u64)&BPF_CORE_READ(file, f_inode)->i_lock;
	}
	for (i = 0; i < LS_SELF__COUNT; i++)
		self_caches[i] = (__u64)bpf_get_kmem_cache(self_addrs[i]);
	return 0;
}
