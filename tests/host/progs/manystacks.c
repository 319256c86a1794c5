// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * manystacks: burn CPU under a different user stack nearly every time.
 *
 * Each round descends DEPTH levels, taking left() or right() at random at
 * each level, and spins a few microseconds at the bottom: 2^DEPTH
 * possible stacks, so a sampler sees almost no stack twice: the host
 * tests fill the sampler's maps with it, to check that they are trimmed
 * as they fill and that what a map too small loses is counted.
 * Usage: manystacks SECS
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DEPTH	24

static uint64_t state = 88172645463325252ULL;
static volatile uint64_t sink;

static uint64_t xorshift(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void descend(int depth);

/* Two frames that differ: the return address tells the path taken. */
static __attribute__((noinline)) void left(int depth)
{
	descend(depth - 1);
	sink++;
}

static __attribute__((noinline)) void right(int depth)
{
	descend(depth - 1);
	sink--;
}

static __attribute__((noinline)) void descend(int depth)
{
	int i;

	if (depth == 0) {
		for (i = 0; i < 20000; i++)
			sink += i;
		return;
	}
	if (xorshift() & 1)
		left(depth);
	else
		right(depth);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2, end = now() + secs;
	unsigned long rounds = 0;

	while (now() < end) {
		descend(DEPTH);
		rounds++;
	}
	printf("manystacks: rounds=%lu\n", rounds);
	return 0;
}
