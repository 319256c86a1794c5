/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_GUARD_BPF_H
#define __LOCKSTAT_GUARD_BPF_H

/*
 * Per CPU, the programs of ours in progress there, by task: so that no
 * program of ours runs inside another. The kernel's recursion check is
 * per program: without this, hold's fexit runs inside the contention
 * programs' map updates (which take spinlocks) and the contention
 * programs inside the slow path of hold's map locks, each holding an
 * IRQ-off bucket lock the other may want: an ABBA deadlock across CPUs.
 * The collector points every object's "guard" at one map
 * (bpf_map__reuse_fd), as it does "targets".
 *
 * One program inside another on a CPU runs in the same task: called from
 * it, in an interrupt (whose current task is the one interrupted), or in
 * the scheduler switching that task out. A program of another task found
 * in progress there was preempted: hold's fentry/fexit programs on the
 * sleeping locks' functions run with only migration disabled, and a
 * preemptible kernel (preempt=full, PREEMPT_RT) switches tasks inside
 * them. That program is not below this one, and refusing every event of
 * the CPU until it runs again (a time slice, and the ends of waits begun
 * before) would be a loss with no reason: the event is taken, in a slot
 * of its own. Slots are claimed with cmpxchg, since a program preempted
 * between finding a slot free and taking it may find it taken by then.
 */
#define GUARD_FREE	0
#define GUARD_PROG	1	/* a program of ours runs here */
#define GUARD_OWN_MAP	2	/* ... and is writing one of its maps: its own lock */

/* The one running, and programs preempted on that CPU at once: more are skipped. */
#define GUARD_SLOTS	4

struct guard_slot {
	__u32 mark;		/* GUARD_PROG or GUARD_OWN_MAP while held */
	__u32 pad;
	__u64 task;		/* whose program holds it (bpf_get_current_task); 0: free */
};

struct guard_cpu {
	struct guard_slot slot[GUARD_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct guard_cpu);
	__uint(max_entries, 1);
} guard SEC(".maps");

/*
 * This CPU's guard, with a slot now held by this task; NULL (the event is
 * to be skipped) when a program of ours already runs below this one.
 * *held: the mark found (GUARD_OWN_MAP: the event is our own map's lock,
 * not the workload's); GUARD_PROG too when every slot is taken.
 *
 * The pointer is the CPU's, never the slot's: guard_leave() and
 * guard_mark() find the slot again by task. Returned per slot, it made
 * the verifier go through the rest of every program once per slot (four
 * offsets of one map value are four states): record's start took 1.3 s
 * more.
 */
static __always_inline __u32 *guard_enter(__u32 *held)
{
	__u32 zero = 0;
	struct guard_cpu *c = bpf_map_lookup_elem(&guard, &zero);
	__u64 task = bpf_get_current_task();
	int i;

	*held = GUARD_FREE;
	if (!c)
		return NULL;
	for (i = 0; i < GUARD_SLOTS; i++) {
		if (c->slot[i].task == task) {
			*held = c->slot[i].mark;
			return NULL;
		}
	}
	for (i = 0; i < GUARD_SLOTS; i++) {
		struct guard_slot *s = &c->slot[i];

		if (!s->task && !__sync_val_compare_and_swap(&s->task, 0, task)) {
			s->mark = GUARD_PROG;
			return (__u32 *)c;
		}
	}
	*held = GUARD_PROG;
	return NULL;
}

/* This task's slot in the CPU's guard g: set its mark, or free it (mark GUARD_FREE). */
static __always_inline void guard_slot_set(__u32 *g, __u32 mark)
{
	struct guard_cpu *c = (struct guard_cpu *)g;
	__u64 task = bpf_get_current_task();
	int i;

	for (i = 0; i < GUARD_SLOTS; i++) {
		struct guard_slot *s = &c->slot[i];

		if (s->task != task)
			continue;
		if (mark != GUARD_FREE) {
			s->mark = mark;
			return;
		}
		/* What an interrupt finds in a slot its task has just claimed. */
		s->mark = GUARD_PROG;
		barrier();
		s->task = 0;
		return;
	}
}

static __always_inline void guard_leave(__u32 *g)
{
	guard_slot_set(g, GUARD_FREE);
}

/* A program about to write one of its own maps (mark GUARD_OWN_MAP), and done. */
static __always_inline void guard_mark(__u32 *g, __u32 mark)
{
	guard_slot_set(g, mark);
}

#endif
