/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_DWUNWIND_H
#define __LOCKSTAT_DWUNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include "record/procmaps.h"

/*
 * User stacks without frame pointers (--user-stack dwarf), unwound the
 * way perf's --call-graph dwarf does: the BPF side copies a sample's
 * user registers and the top of its user stack, and libdw's unwinder
 * walks that copy with the CFI (.eh_frame, .debug_frame) of the files
 * the process had mapped, as the mapping tracker knows them. One Dwfl
 * per process, rebuilt when the process maps more code; the CFI is
 * libdw's, cached per module of it.
 *
 * x86-64 only: the registers are its DWARF registers 0 to 16 (ax dx cx
 * bx si di bp sp r8..r15, then ip, the return address column).
 */
#define DWUNWIND_NREGS	17
#define DWUNWIND_SP	7
#define DWUNWIND_IP	16

struct dwunwind;

/* The user registers and stack copy of one sample. */
struct dwunwind_sample {
	uint32_t tgid;
	uint32_t tid;
	uint64_t regs[DWUNWIND_NREGS];
	const uint8_t *stack;	/* a copy of [regs[DWUNWIND_SP], + size) */
	uint32_t size;
};

/* How far an unwinding went. */
enum dwunwind_end {
	DWUNWIND_COMPLETE,	/* to the outermost frame (its CFI says so) */
	DWUNWIND_DEPTH,		/* max frames taken, more there */
	DWUNWIND_INCOMPLETE,	/* stopped early: stack copy too small, no CFI, garbage */
};

/* mc: where the processes' mappings are (not owned). NULL on ENOMEM. */
struct dwunwind *dwunwind_new(const struct maps_cache *mc);
void dwunwind_free(struct dwunwind *u);
/*
 * Unwind s: its frames into ips (the first one s's ip, then return
 * addresses, as a frame-pointer walk gives them), at most max. The
 * number of frames (at least 1: the ip); *end says how it stopped.
 */
int dwunwind_stack(struct dwunwind *u, const struct dwunwind_sample *s, uint64_t *ips, int max,
		   enum dwunwind_end *end);
/* Why stacks were incomplete, for -v. */
struct dwunwind_why {
	uint64_t no_process;	/* the process's mappings unknown */
	uint64_t short_copy;	/* the walk needed memory beyond the copy */
	uint64_t no_module;	/* a frame in no file mapping (JIT, vDSO, garbage) */
	uint64_t libdw;		/* libdw's own error (no CFI for the pc, bad CFI) */
};

/* How many times a process's modules were (re)reported, for the cost. */
uint64_t dwunwind_builds(const struct dwunwind *u);
const struct dwunwind_why *dwunwind_why(const struct dwunwind *u);
/* tgid is gone: its modules are let go. */
void dwunwind_forget(struct dwunwind *u, uint32_t tgid);

#endif
