// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A contention row's interval from its cumulative values (record/contval.h). */
#include <stdbool.h>
#include <stdint.h>
#include "record/contval.h"

uint64_t log2_slot_bottom(int i)
{
	return i ? 1ULL << i : 0;
}

uint64_t log2_slot_top(int i, int nslots)
{
	return i == nslots - 1 ? UINT64_MAX : (1ULL << (i + 1)) - 1;
}

/* The interval's total less n waits of at least each: a bound on the rest (0: none). */
static uint64_t total_less(const struct cont_val *d, uint64_t n, uint64_t each)
{
	unsigned __int128 others = (unsigned __int128)n * each;

	return others < d->total_ns ? d->total_ns - (uint64_t)others : 0;
}

/*
 * The interval's extremes. BPF keeps a row's min and max since the row
 * was made, per CPU, while count, total and histogram become the
 * interval's by subtraction; a cumulative max can be no wait of the
 * interval (avg above max, a max outside the histogram's top slot).
 *
 * Resetting them in the map at each drain would lose waits: a per-CPU
 * value is written for every CPU at once, so a wait that BPF adds to its
 * CPU's copy between our read and our write is overwritten, count and
 * all (the trim's deletions lose those waits too, and count them; a
 * reset at every drain would lose them at every drain). Giving BPF an
 * interval of its own changes the map's value. So they are derived:
 *  - a max that grew since the last drain (or a new row's) is the
 *    interval's: the wait that made it ended in the interval; exact;
 *  - else the interval's longest wait lies in the highest non-empty slot
 *    of its histogram: at most that slot's top, the cumulative max, and
 *    the total less the other waits, each at least the min bound.
 * min the same way, mirrored. A bound stays in its slot, so the
 * histogram's ends hold it, and min <= avg <= max <= total holds. It is
 * a bound, not a wait: within a factor 2 where it is not exact; one wait
 * alone is exact (count 1: min = max = total). A longer interval that
 * merges these keeps the exact extreme wherever it grew, and so a whole
 * recording's min and max are its waits'.
 */
static void extremes(struct cont_val *d, const struct cont_val *now, const struct cont_val *before)
{
	bool new_row = !before->count, max_exact = new_row || now->max_ns > before->max_ns,
	     min_exact = new_row || now->min_ns < before->min_ns;
	uint64_t lo = now->min_ns, hi = now->max_ns, b;
	int i, first = -1, last = -1;

	for (i = 0; i < LS_HIST_SLOTS; i++) {
		if (!d->hist[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	if (!min_exact && first >= 0 && log2_slot_bottom(first) > lo)
		lo = log2_slot_bottom(first);
	if (!max_exact && last >= 0 && log2_slot_top(last, LS_HIST_SLOTS) < hi)
		hi = log2_slot_top(last, LS_HIST_SLOTS);
	if (!max_exact && d->count && (b = total_less(d, d->count - 1, lo)) && b < hi && b >= lo)
		hi = b;
	if (!min_exact && d->count && (b = total_less(d, d->count - 1, hi)) > lo && b <= hi)
		lo = b;
	d->min_ns = lo;
	d->max_ns = hi;
}

void cont_val_delta(struct cont_val *d, const struct cont_val *now, const struct cont_val *before)
{
	int i;

	d->count = now->count - before->count;
	d->total_ns = now->total_ns - before->total_ns;
	d->sumsq_lo = now->sumsq_lo - before->sumsq_lo;
	d->sumsq_hi = now->sumsq_hi - before->sumsq_hi - (now->sumsq_lo < before->sumsq_lo);
	for (i = 0; i < LS_HIST_SLOTS; i++)
		d->hist[i] = now->hist[i] - before->hist[i];
	extremes(d, now, before);
}
