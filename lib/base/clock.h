/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CLOCK_H
#define __LOCKSTAT_CLOCK_H

#include <stdint.h>
#include <time.h>

/*
 * CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(), so user-space
 * times and the probes' timestamps compare.
 */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CLOCK_REALTIME in ns: when, on the calendar (segment boundaries, a profile's creation). */
static inline uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif
