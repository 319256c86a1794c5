// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A recording's steal time in the profile's META (steal.*, see
 * man/lockstat-data.5), and what it says of a long spinning wait.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/locktype.h"
#include "format/steal.h"
#include "format/consts.h"

static void put(struct steal_meta *m, size_t *n, const char *key, uint64_t v)
{
	snprintf(m->vals[*n], sizeof(m->vals[0]), "%" PRIu64, v);
	m->kv[*n] = (struct kv){ (char *)key, m->vals[*n] };
	(*n)++;
}

size_t steal_meta_keys(const struct steal_summary *s, struct steal_meta *out)
{
	size_t n = 0;

	put(out, &n, "steal.tick_ns", s->tick_ns);
	put(out, &n, "steal.total_ns", s->total_ns);
	put(out, &n, "steal.cpu_time_ns", s->cpu_time_ns);
	put(out, &n, "steal.max_interval_ns", s->max_iv_ns);
	/* No CPU lost anything in an interval: the key is left out. */
	if (s->max_iv_cpu >= 0)
		put(out, &n, "steal.max_interval_cpu", s->max_iv_cpu);
	put(out, &n, "steal.interval_ns", s->interval_ns);
	put(out, &n, "steal.cpus", s->ncpus);
	put(out, &n, "steal.boot_ns", s->boot_ns);
	if (s->per_cpu && *s->per_cpu) {
		out->kv[n] = (struct kv){ "steal.per_cpu", (char *)s->per_cpu };
		n++;
	}
	return n;
}

void steal_meta_read(const struct profile *p, struct steal_summary *s)
{
	uint64_t cpu;

	memset(s, 0, sizeof(*s));
	s->max_iv_cpu = -1;
	if (profile__meta_u64(p, "steal.tick_ns", &s->tick_ns) ||
	    profile__meta_u64(p, "steal.total_ns", &s->total_ns) ||
	    profile__meta_u64(p, "steal.cpu_time_ns", &s->cpu_time_ns) ||
	    profile__meta_u64(p, "steal.max_interval_ns", &s->max_iv_ns) ||
	    profile__meta_u64(p, "steal.interval_ns", &s->interval_ns) ||
	    profile__meta_u64(p, "steal.cpus", &s->ncpus) ||
	    profile__meta_u64(p, "steal.boot_ns", &s->boot_ns))
		return;
	if (!profile__meta_u64(p, "steal.max_interval_cpu", &cpu) && cpu < 1U << 20)
		s->max_iv_cpu = cpu;
	s->per_cpu = profile__meta_or(p, "steal.per_cpu", "");
	s->recorded = true;
}

/*
 * The kernel keeps each CPU's steal in ns but /proc/stat shows it in
 * whole ticks, rounded down, and adds it at the CPU's ticks: one CPU's
 * difference of two readings may be short by up to a tick for the
 * rounding, and by another for what its next tick had still to add.
 */
uint64_t steal_bound_ns(const struct steal_summary *s)
{
	return s->total_ns + 2 * s->tick_ns * s->ncpus;
}

static bool is_spinning(uint32_t flags)
{
	return !lock_type_is_user(flags) && (flags & LCB_F_SPIN) &&
	       !(flags & (LCB_F_RT | LCB_F_PERCPU | LCB_F_MUTEX));
}

/*
 * The waiter's CPU or the holder's (or, in the queue, those before it)
 * may have been taken away: the steal of every CPU bounds what can
 * have stretched the wait beyond the limit.
 */
enum steal_verdict steal_verdict_of(const struct steal_summary *s, uint32_t flags, uint64_t max_ns)
{
	if (!is_spinning(flags) || max_ns <= STEAL_SPIN_LIMIT_NS)
		return STEAL_NOT_APPLICABLE;
	if (!s->recorded)
		return STEAL_NOT_RECORDED;
	return max_ns - STEAL_SPIN_LIMIT_NS <= steal_bound_ns(s) ? STEAL_COULD_EXPLAIN : STEAL_TOO_LITTLE;
}

const char *steal_verdict_key(enum steal_verdict v)
{
	switch (v) {
	case STEAL_NOT_RECORDED:
		return "steal_not_recorded";
	case STEAL_COULD_EXPLAIN:
		return "steal_could_explain";
	case STEAL_TOO_LITTLE:
		return "accounting_error";
	default:
		return NULL;
	}
}
