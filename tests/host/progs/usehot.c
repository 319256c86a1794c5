// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * usehot: burn CPU in two shared libraries (see hotlib.c): hot_linked()
 * of liblinked.so, which it links, and hot_loaded() of libloaded.so,
 * which it dlopen()s only after a quarter of its run, so that a sampler
 * has seen the process before that library was mapped. Then rounds of
 * 2 ms in hot_linked() and 1 ms in hot_loaded(). It measures the CPU time
 * each function took (CLOCK_THREAD_CPUTIME_ID) and prints it:
 *   usehot: linked_us=N loaded_us=N
 * Usage: usehot SECS DIR (DIR holds libloaded.so).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void hot_linked(double secs);

static double clock_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run fn for secs of wall time; add the CPU time it took to *cpu. */
static void timed(void (*fn)(double), double secs, double *cpu)
{
	double t = clock_of(CLOCK_THREAD_CPUTIME_ID);

	fn(secs);
	*cpu += clock_of(CLOCK_THREAD_CPUTIME_ID) - t;
}

int main(int argc, char **argv)
{
	double linked = 0, loaded = 0, secs, end;
	void (*hot_loaded)(double secs);
	char path[4096];
	void *lib;

	if (argc != 3) {
		fprintf(stderr, "usage: usehot SECS DIR\n");
		return 2;
	}
	secs = atof(argv[1]);
	end = clock_of(CLOCK_MONOTONIC) + secs;
	timed(hot_linked, secs / 4, &linked);
	snprintf(path, sizeof(path), "%s/libloaded.so", argv[2]);
	lib = dlopen(path, RTLD_NOW);
	hot_loaded = lib ? (void (*)(double))dlsym(lib, "hot_loaded") : NULL;
	if (!hot_loaded) {
		fprintf(stderr, "usehot: %s\n", dlerror());
		return 1;
	}
	while (clock_of(CLOCK_MONOTONIC) < end) {
		timed(hot_linked, 0.002, &linked);
		timed(hot_loaded, 0.001, &loaded);
	}
	printf("usehot: linked_us=%.0f loaded_us=%.0f\n", linked * 1e6, loaded * 1e6);
	return 0;
}
