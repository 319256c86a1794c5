// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nofp: burns CPU for SECS seconds through a known chain of four
 * functions, nofp_one -> nofp_two -> nofp_three -> nofp_four, built
 * -O2 -fomit-frame-pointer as distributions build their packages: a
 * frame-pointer walk cannot find the chain, the CFI (.eh_frame) can.
 * Each call is followed by work of its own, so that none is a tail
 * call, which would take its caller's frame. "nofp SECS sys": the leaf
 * makes system calls instead, so that most samples interrupt the kernel
 * and the user registers are those the task entered it with.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile unsigned long sink;
static int sys;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The leaf: a few million additions, with callee-saved registers in use. */
__attribute__((noinline)) unsigned long nofp_four(unsigned long n)
{
	unsigned long i, a = 0, b = 1;

	if (sys) {
		for (i = 0; i < n / 1000; i++)
			a += syscall(SYS_getppid);
		return a;
	}
	for (i = 0; i < n; i++) {
		a += i ^ b;
		b = b * 3 + a;
		sink += a;
	}
	return a + b;
}

__attribute__((noinline)) unsigned long nofp_three(unsigned long n)
{
	return nofp_four(n) * 7 + sink;
}

__attribute__((noinline)) unsigned long nofp_two(unsigned long n)
{
	return nofp_three(n) * 5 + sink;
}

__attribute__((noinline)) unsigned long nofp_one(unsigned long n)
{
	return nofp_two(n) * 3 + sink;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	unsigned long r = 0;

	sys = argc > 2 && !strcmp(argv[2], "sys");
	while (now() < end)
		r += nofp_one(1000000);
	return r == 42;
}
