/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SAMPLER_BPF_H
#define __LOCKSTAT_SAMPLER_BPF_H

/*
 * The kernel stack sampler, for the programs that take a kernel stack
 * per lock event: contention_begin (a wait) and mmap_lock's
 * acquire_returned (an acquisition). The collector points every object's
 * "sampler" at one map (bpf_map__reuse_fd), as it does "guard", so that
 * --stack-rate is one budget per CPU for all their stacks, and sets the
 * same three constants in each.
 *
 * sampler_draw() sets s->last_ns to the event's clock before the draw.
 */
#include "sampler.h"
#include "format/consts.h"

const volatile __u32 stack_rate;	/* stacks a second per CPU; 0: one for every event */
const volatile __u64 window_ns;		/* the sampler's window */
const volatile __u32 window_cap;	/* stacks over the budget before the probability halves */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct stack_sampler);
	__uint(max_entries, 1);
} sampler SEC(".maps");

static struct stack_sampler *this_sampler(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sampler, &zero);
}

/*
 * The stack sampler. A kernel stack costs 0.5 to 2 us, several times a
 * typical spinlock wait, so each CPU takes about stack_rate a second at
 * most: a bucket of tokens, one second's worth at most, refilled at that
 * rate. Each wait carries a stack with probability p = 2^-shift, drawn
 * independently and recorded with the wait, so that every sampled wait
 * stands for 1/p waits; p depends on nothing but the past and the wait's
 * own lock, which keeps those weights unbiased.
 *
 * Locks are hashed into LS_SAMPLER_SLOTS strata. In each 10 ms window a
 * slot's waits all have the same p, the one that the slot's rate in the
 * previous window and its part of the tokens call for: a rare lock's
 * waits all carry their stack while tokens last, a busy lock's are
 * sampled at a steady p, so that no few waits stand for thousands. A slot
 * that was quiet is counted as an average one of the window (at least one
 * wait): when processes take turns on a CPU, each lock's slot is quiet
 * before its turn, and a storm must not start at p = 1 at every turn.
 * A window that runs out of tokens halves every p for each window_cap
 * stacks more (for each one while stacks are owed): a burst is sampled
 * at ever lower, recorded, probabilities, never cut off. Stacks taken
 * without a token are owed: they shrink the next windows' shares. (Lower
 * p for the debt, or p halved within a window as a slot's count grew,
 * gave a few waits weights of 2^20, and callers' estimates no longer
 * added up to their lock's count: doc/design.md.)
 *
 * A lock's first wait on a CPU carries its stack whatever else happens
 * (stack_sampler.sampled), so that a rare lock has its caller even in
 * another lock's storm. Only its first: a free stack for every quiet
 * slot's first wait took far more than the rate where many locks are
 * each waited on now and then (hackbench's sockets). The clock is the
 * latest begin's on this CPU: no clock read of its own.
 */
#define TOKEN		1024ULL	/* tokens count in 1/1024 of a stack */
#define NSEC_PER_SEC	1000000000ULL

static __u32 slot_of(__u64 addr)
{
	return (__u32)((addr * 0x9e3779b97f4a7c15ULL) >> 56) & (LS_SAMPLER_SLOTS - 1);
}

/*
 * A global function: the verifier checks its branches once, not again in
 * every pass it makes over next_slot(), the bpf_loop callback (that took
 * most of the rest of contention_begin's verification).
 */
__noinline __u32 shift_of(__u64 q)
{
	__u32 shift = q > 1 ? log2_slot(q - 1, 64) + 1 : 0;

	return shift < LS_MAX_SHIFT ? shift : LS_MAX_SHIFT;
}

struct window_ctx {
	struct stack_sampler *s;
	__u64 want;		/* stacks the tokens allow this window */
	__u64 elapsed;		/* the length of the previous window */
	__u64 quiet;		/* the waits a quiet slot is counted as */
};

/* A slot for the next window: its target from its rate, its count from 0. */
static long next_slot(__u32 i, void *data)
{
	struct window_ctx *c = data;
	struct sampler_slot *sl;
	__u64 q;

	if (i >= LS_SAMPLER_SLOTS)
		return 1;
	sl = &c->s->slot[i];
	q = ((sl->count ? sl->count : c->quiet) * c->s->active * window_ns + c->want * c->elapsed - 1) /
	    (c->want * c->elapsed);
	sl->target = shift_of(q);
	sl->count = 0;
	return 0;
}

/*
 * Refill: at most a second of tokens, shared equally among the slots that
 * had waits; stacks taken without one are owed. bpf_loop: the verifier
 * checks the slots' loop body once.
 */
static void next_window(struct stack_sampler *s)
{
	__u64 elapsed = s->last_ns - s->window_start_ns;
	__s64 full = stack_rate * TOKEN;
	__s64 tokens = s->tokens + stack_rate * TOKEN * (elapsed < NSEC_PER_SEC ? elapsed : NSEC_PER_SEC) / NSEC_PER_SEC;
	struct window_ctx c = { .s = s };

	s->tokens = tokens < full ? tokens : full;
	c.want = s->tokens >= (__s32)TOKEN ? s->tokens / TOKEN : 1;
	c.elapsed = elapsed > window_ns ? elapsed : window_ns;
	c.quiet = s->active && s->waits > s->active ? s->waits / s->active : 1;
	if (c.quiet > 0xffff)	/* as a slot's count saturates */
		c.quiet = 0xffff;
	bpf_loop(LS_SAMPLER_SLOTS, next_slot, &c, 0);
	s->window_start_ns = s->last_ns;
	s->active = 0;
	s->waits = 0;
	s->over = 0;
	s->extra = 0;
}

/* Take a token for a stack, or owe it (a second's at most): false when none was left. */
static bool take_token(struct stack_sampler *s)
{
	bool had = s->tokens >= (__s32)TOKEN;

	if (s->tokens > -(__s32)(stack_rate * TOKEN))
		s->tokens -= TOKEN;
	return had;
}

/*
 * Whether addr is in a direct-mapped cache of LS_SAMPLED_LOCKS lock
 * addresses; if not, it is now. A lock is never taken for another, and
 * one that a collision pushed out counts as not seen again.
 */
static __always_inline bool lock_seen_before(__u64 *seen, __u64 addr)
{
	__u32 i = (__u32)((addr * 0x9e3779b97f4a7c15ULL) >> 40) & (LS_SAMPLED_LOCKS - 1);

	if (seen[i] == addr)
		return true;
	seen[i] = addr;
	return false;
}

/* Whether the lock had its free stack already on this CPU; if not, it has it now. */
static bool lock_sampled_before(struct stack_sampler *s, __u64 addr)
{
	return lock_seen_before(s->sampled, addr);
}

/*
 * One more wait of a slot: its shift for this window; 0 for the slot's
 * first wait when the slot was quiet and tokens last, or for the lock's
 * first wait on this CPU.
 */
static __u32 slot_shift(struct stack_sampler *s, struct sampler_slot *sl, __u64 addr)
{
	__u32 shift;

	if (sl->count < 0xffff)
		sl->count++;
	if (s->waits < 0xffffffff)
		s->waits++;
	s->active += sl->count == 1;
	if (sl->count == 1 && !sl->target)
		return 0;
	shift = sl->target + s->extra;
	return !shift || lock_sampled_before(s, addr) ? shift : 0;
}

/*
 * Whether this event takes a stack; *shift: the p = 2^-shift it was
 * drawn with, drawn or not, so that the events without a stack can say
 * what chance they had (the variance of the estimates over all events).
 */
static bool sample_draw(struct stack_sampler *s, __u64 addr, __u32 *shift)
{
	__u32 slot = slot_of(addr);

	*shift = 0;
	if (!stack_rate)
		return true;
	if (s->last_ns - s->window_start_ns >= window_ns)
		next_window(s);
	*shift = slot_shift(s, &s->slot[slot], addr);
	if (*shift > LS_MAX_SHIFT)
		*shift = LS_MAX_SHIFT;
	if (*shift && (bpf_get_prandom_u32() & ((1U << *shift) - 1)))
		return false;
	if (!take_token(s) && ++s->over >= (s->tokens < 0 ? 1 : window_cap)) {
		s->extra++;
		s->over = 0;
	}
	return true;
}

/*
 * A drawn event that took no stack after all (contention.bpf.c thins
 * short waits' stacks): its token back, so that the budget goes to the
 * stacks taken, not to the draws.
 */
static __attribute__((unused)) void return_token(struct stack_sampler *s)
{
	if (s->tokens <= (__s32)(stack_rate * TOKEN) - (__s32)TOKEN)
		s->tokens += TOKEN;
}

#define LS_DRAWN	0x100	/* sampler_draw(): the event takes a stack */

/*
 * The draw for an event of lock addr at now (the sampler's clock):
 * its shift, with LS_DRAWN when it takes a stack; < 0 when the CPU's
 * sampler cannot be had.
 *
 * A global function: the verifier checks it once, on its own, and the
 * caller sees one unknown number back. Inlined, each of the draw's
 * outcomes (its shift's range, the window refilled or not) went on as a
 * state of its own through all the rest of its program: contention_begin
 * and mmap_lock's acquire_returned each took 280 ms of verification,
 * most of record's start-up.
 */
__noinline int sampler_draw(__u64 addr, __u64 now)
{
	struct stack_sampler *s = this_sampler();
	__u32 shift;
	bool drawn;

	if (!s)
		return -1;
	s->last_ns = now;
	drawn = sample_draw(s, addr, &shift);
	return shift | (drawn ? LS_DRAWN : 0);
}

#endif
