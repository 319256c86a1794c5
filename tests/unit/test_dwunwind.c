// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The DWARF unwinder of user stacks (lib/record/dwunwind.h) on this
 * very process: its own stack copied as the sampler copies a sample's,
 * unwound whole; then cut mid-frame, filled with garbage, with an ip in
 * no mapping, of a process not known: each stops early and says so,
 * never crashes (ASan/UBSan build).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "record/dwunwind.h"
#include "record/procmaps.h"

#if defined(__x86_64__)
#define COPY_MAX	65536
#define MAX_FRAMES	64

static uint8_t copy[COPY_MAX];
static struct dwunwind_sample own;
static uint64_t stack_end;	/* the end of the mapping our stack is in */
static void *capture_ret;

/* The end of the mapping that holds addr, from /proc/self/maps; 0 if none. */
static uint64_t mapping_end(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long lo, hi;
	char line[512];
	uint64_t end = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi)
			end = hi;
	if (f)
		fclose(f);
	return end;
}

/*
 * Our registers and the stack above them, taken here as the BPF side
 * takes a sample's: callee-saved registers, sp, bp and an ip in this
 * function, then the stack from sp, read without ASan's checks (its
 * redzones are there).
 */
__attribute__((noinline, no_sanitize_address)) static void capture(void)
{
	uint64_t *r = own.regs;
	uint64_t n, i;

	__asm__ volatile("movq %%rbx, 24(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "movq %%r12, 96(%0)\n\t"
			 "movq %%r13, 104(%0)\n\t"
			 "movq %%r14, 112(%0)\n\t"
			 "movq %%r15, 120(%0)\n\t"
			 "leaq 0(%%rip), %%rax\n\t"
			 "movq %%rax, 128(%0)\n\t"
			 : : "r"(r) : "rax", "memory");
	n = stack_end - r[DWUNWIND_SP];
	if (n > COPY_MAX)
		n = COPY_MAX;
	for (i = 0; i < n; i++)
		copy[i] = ((volatile const uint8_t *)r[DWUNWIND_SP])[i];
	own.size = n;
	own.stack = copy;
	capture_ret = __builtin_return_address(0);
}

static int setup(void **state)
{
	struct maps_cache *mc = calloc(1, sizeof(*mc));
	uint64_t here = (uint64_t)__builtin_frame_address(0);

	stack_end = mapping_end(here);
	if (!mc || !stack_end)
		return -1;
	maps_cache__init(mc, 0);
	if (maps_cache__read_proc(mc, getpid()))
		return -1;
	own.tgid = own.tid = getpid();
	capture();
	*state = mc;
	return 0;
}

static int teardown(void **state)
{
	maps_cache__free(*state);
	free(*state);
	return 0;
}

static int unwind(void **state, const struct dwunwind_sample *s, uint64_t *ips, int max,
		  enum dwunwind_end *end)
{
	struct dwunwind *u = dwunwind_new(*state);
	int n;

	assert_non_null(u);
	n = dwunwind_stack(u, s, ips, max, end);
	dwunwind_free(u);
	assert_true(n >= 1 && n <= max);
	return n;
}

/* The whole stack, from capture() through this test to _start. */
static void test_own_stack(void **state)
{
	uint64_t ips[MAX_FRAMES];
	enum dwunwind_end end;
	int n = unwind(state, &own, ips, MAX_FRAMES, &end);

	assert_int_equal(end, DWUNWIND_COMPLETE);
	assert_true(n >= 4);
	assert_int_equal(ips[0], own.regs[DWUNWIND_IP]);
	assert_int_equal(ips[1], (uint64_t)capture_ret);
}

/* Fewer frames than there are: the first ones, said to be cut. */
static void test_depth(void **state)
{
	uint64_t ips[2];
	enum dwunwind_end end;

	assert_int_equal(unwind(state, &own, ips, 2, &end), 2);
	assert_int_equal(end, DWUNWIND_DEPTH);
	assert_int_equal(ips[1], (uint64_t)capture_ret);
}

/* A copy that ends within capture()'s own frame: its ip only, incomplete. */
static void test_cut_mid_frame(void **state)
{
	struct dwunwind_sample s = own;
	uint64_t ips[MAX_FRAMES], full[MAX_FRAMES];
	enum dwunwind_end end;
	int n, whole = unwind(state, &own, full, MAX_FRAMES, &end);

	s.size = 4;
	n = unwind(state, &s, ips, MAX_FRAMES, &end);
	assert_int_equal(end, DWUNWIND_INCOMPLETE);
	assert_true(n < whole);
	assert_int_equal(ips[0], own.regs[DWUNWIND_IP]);
	/* Cut a few frames up: those frames, then the end, said to be cut. */
	s.size = 200;
	n = unwind(state, &s, ips, MAX_FRAMES, &end);
	assert_int_equal(end, DWUNWIND_INCOMPLETE);
	assert_true(n < whole);
}

/* Random stack and registers: whatever comes out, no crash and at most max frames. */
static void test_garbage(void **state)
{
	static uint8_t junk[COPY_MAX];
	struct dwunwind_sample s = own;
	uint64_t ips[MAX_FRAMES];
	enum dwunwind_end end;
	int round, i;

	srandom(1);
	for (round = 0; round < 50; round++) {
		for (i = 0; i < COPY_MAX; i++)
			junk[i] = random();
		s.stack = junk;
		s.size = random() % COPY_MAX;
		if (round & 1)
			for (i = 0; i < DWUNWIND_NREGS - 1; i++)
				s.regs[i] = ((uint64_t)random() << 32) | random();
		s.regs[DWUNWIND_SP] = own.regs[DWUNWIND_SP];
		unwind(state, &s, ips, MAX_FRAMES, &end);
	}
}

/*
 * An ip in no mapping (JIT code, unmapped): incomplete, whatever libdw's
 * frame-pointer guess finds past it; that ip alone without a frame pointer.
 */
static void test_unmapped_ip(void **state)
{
	struct dwunwind_sample s = own;
	uint64_t ips[MAX_FRAMES];
	enum dwunwind_end end;

	s.regs[DWUNWIND_IP] = 0x10;
	unwind(state, &s, ips, MAX_FRAMES, &end);
	assert_int_equal(ips[0], 0x10);
	assert_int_equal(end, DWUNWIND_INCOMPLETE);
	s.regs[6] = 0;	/* bp */
	assert_int_equal(unwind(state, &s, ips, MAX_FRAMES, &end), 1);
	assert_int_equal(end, DWUNWIND_INCOMPLETE);
}

/* A process whose mappings are not known: its ip alone, incomplete. */
static void test_unknown_process(void **state)
{
	struct dwunwind_sample s = own;
	uint64_t ips[MAX_FRAMES];
	enum dwunwind_end end;

	s.tgid = 0x7ffffff0;
	assert_int_equal(unwind(state, &s, ips, MAX_FRAMES, &end), 1);
	assert_int_equal(end, DWUNWIND_INCOMPLETE);
}

/*
 * More processes than the unwinder keeps modules of (our mappings under
 * 40 other PIDs), twice round: each evicted one is built again, whole.
 */
static void test_many_processes(void **state)
{
	struct maps_cache *mc = *state;
	struct dwunwind *u = dwunwind_new(mc);
	struct dwunwind_sample s = own;
	uint64_t ips[MAX_FRAMES];
	enum dwunwind_end end;
	struct proc_map m;
	char line[1024];
	uint32_t pid;
	FILE *f;
	int round;

	assert_non_null(u);
	for (pid = 1000; pid < 1040; pid++) {
		f = fopen("/proc/self/maps", "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			if (!procmaps_parse_line(line, &m)) {
				m.tgid = pid;
				assert_int_equal(maps_cache__add(mc, &m), 0);
				free(m.path);
			}
		fclose(f);
	}
	for (round = 0; round < 2; round++)
		for (pid = 1000; pid < 1040; pid++) {
			s.tgid = pid;
			assert_true(dwunwind_stack(u, &s, ips, MAX_FRAMES, &end) >= 4);
			assert_int_equal(end, DWUNWIND_COMPLETE);
		}
	assert_int_equal(dwunwind_builds(u), 80);
	dwunwind_forget(u, 1000);
	dwunwind_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_stack),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_cut_mid_frame),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_unmapped_ip),
		cmocka_unit_test(test_unknown_process),
		cmocka_unit_test(test_many_processes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
#else
int main(void)
{
	printf("SKIP: test_dwunwind: PREREQ: x86-64 (the unwinder's registers are x86-64's)\n");
	return 0;
}
#endif
