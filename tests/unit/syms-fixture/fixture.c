// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fixture program for test_syms: built by the test at run time. The test
 * finds the lines it checks by the MARK comments, not by number.
 * -DVARIANT=n changes the code (and so the build id) without moving lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef VARIANT
#define VARIANT 0
#endif

int cpp_entry(int x);

volatile int sink;

static inline __attribute__((always_inline)) int helper(int x)
{
	sink += x * (VARIANT + 3);	/* MARK helper_body */
	return sink ^ x;
}

__attribute__((noinline)) int leaf(int x)
{
	sink += x;			/* MARK leaf_body */
	return sink * 5;
}

__attribute__((noinline)) int twice(int x)
{
	int a = helper(x);		/* MARK call1 */
	int b = helper(a + 1);		/* MARK call2 */

	return a + b + leaf(b);
}

/* An inline chain deeper than SYMS_MAX_INLINE: deep <- deep0 <- ... <- deep20. */
static inline __attribute__((always_inline)) int deep20(int x)
{
	sink += x;			/* MARK deep_body */
	return x;
}
#define DEEP(n, next)							\
	static inline __attribute__((always_inline)) int deep##n(int x)	\
	{ return next(x + n) * 3; }
DEEP(19, deep20)
DEEP(18, deep19)
DEEP(17, deep18)
DEEP(16, deep17)
DEEP(15, deep16)
DEEP(14, deep15)
DEEP(13, deep14)
DEEP(12, deep13)
DEEP(11, deep12)
DEEP(10, deep11)
DEEP(9, deep10)
DEEP(8, deep9)
DEEP(7, deep8)
DEEP(6, deep7)
DEEP(5, deep6)
DEEP(4, deep5)
DEEP(3, deep4)
DEEP(2, deep3)
DEEP(1, deep2)
DEEP(0, deep1)

__attribute__((noinline)) int deep(int x)
{
	return deep0(x);
}

/* A local function with a global alias at the same address. */
static __attribute__((noinline, used)) int alias_impl(int x)
{
	return x * 11 + sink;
}
extern int alias_pub(int x) __attribute__((alias("alias_impl")));

/* A function symbol without .size: covers up to the next symbol. */
__asm__(".text\n"
	".globl asm_nosize\n"
	".type asm_nosize, @function\n"
	"asm_nosize:\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n"
	"\tret\n"
	".globl asm_after\n"
	".type asm_after, @function\n"
	"asm_after:\n"
	"\tret\n"
	".size asm_after, 1\n");

/* pc - start + pgoff of fn, as a profiler computes it from /proc/self/maps. */
static int print_offset(const char *name, const void *fn)
{
	uintptr_t pc = (uintptr_t)fn, start, end;
	unsigned long long pgoff;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %llx", &start, &end, &pgoff) != 3)
			continue;
		if (pc >= start && pc < end) {
			printf("%s %llx\n", name, (unsigned long long)(pc - start + pgoff));
			break;
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "offsets")) {
		print_offset("leaf", (const void *)leaf);
		print_offset("twice", (const void *)twice);
		return 0;
	}
	return twice(argc) + cpp_entry(argc) + alias_pub(argc) + deep(argc);
}
