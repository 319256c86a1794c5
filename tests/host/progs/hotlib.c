// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hotlib: one function that burns CPU, built as two shared libraries for
 * usehot.c (-DHOT_FN=hot_linked into liblinked.so, -DHOT_FN=hot_loaded
 * into libloaded.so): a sampler must name functions inside shared
 * libraries, mapped at any address, linked or dlopen()ed.
 */
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void HOT_FN(double secs)
{
	double end = now() + secs;
	unsigned long i;

	while (now() < end)
		for (i = 0; i < 1000; i++)
			sink += i;	/* HOT LINE */
}
