/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_GUARD_BPF_H
#define __LOCKSTAT_GUARD_BPF_H

/*
 * One mark per CPU for every object that probes the kernel's locks: set
 * while one of their programs runs on this CPU, so that no program of
 * ours runs inside another. The kernel's recursion check is per program:
 * without this, hold's fexit runs inside the contention programs' map
 * updates (which take spinlocks) and the contention programs inside the
 * slow path of hold's map locks, each holding an IRQ-off bucket lock the
 * other may want: an ABBA deadlock across CPUs. The collector points every
 * object's "guard" at one map (bpf_map__reuse_fd), as it does "targets".
 *
 * Strictly LIFO per CPU (an interrupt returns before what it interrupted
 * resumes), so a plain load and store suffice. On a preemptible kernel an
 * fentry program may be preempted (it only keeps its CPU): until it runs
 * again, the events of that CPU are skipped and counted, none mixed up.
 */
#define GUARD_FREE	0
#define GUARD_PROG	1	/* a program of ours runs here */
#define GUARD_OWN_MAP	2	/* ... and is writing one of its maps: its own lock */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} guard SEC(".maps");

/*
 * This CPU's mark, now set; NULL (the event is to be skipped) when one of
 * ours already runs here. *held: the mark found (GUARD_OWN_MAP: the event
 * is our own map's lock, not the workload's).
 */
static __always_inline __u32 *guard_enter(__u32 *held)
{
	__u32 zero = 0, *g = bpf_map_lookup_elem(&guard, &zero);

	*held = GUARD_FREE;
	if (!g)
		return NULL;
	*held = *g;
	if (*g != GUARD_FREE)
		return NULL;
	*g = GUARD_PROG;
	return g;
}

static __always_inline void guard_leave(__u32 *g)
{
	*g = GUARD_FREE;
}

/* A program about to write one of its own maps (mark GUARD_OWN_MAP), and done. */
static __always_inline void guard_mark(__u32 mark)
{
	__u32 zero = 0, *g = bpf_map_lookup_elem(&guard, &zero);

	if (g)
		*g = mark;
}

#endif
