// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Calls clock_gettime() for ARGV[1] seconds (default 1): nearly all its
 * time is in the vDSO's __vdso_clock_gettime, which is in no file.
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
