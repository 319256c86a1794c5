/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_KSYMS_H
#define __LOCKSTAT_KSYMS_H

#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * Kernel symbols from /proc/kallsyms (or a saved KSYMS chunk), sorted.
 * 24 bytes each: record holds all of them (122 000 on a distribution
 * kernel, twice that with CONFIG_KALLSYMS_ALL) for the whole recording.
 */
struct ksym {
	uint64_t addr;
	const char *name;
	uint32_t size;		/* up to the next symbol: kallsyms has no sizes */
	uint16_t module;	/* ksyms_module(): 0 is the core kernel */
	char type;		/* kallsyms type letter, lower case */
};

struct ksyms_block;

struct ksyms {
	struct ksym *syms;
	size_t count;
	size_t cap;
	struct ksyms_block *strings;	/* the names and modules, packed; newest first */
	const char **modules;		/* module names; [0] is "", the core kernel */
	size_t nmodules;
	uint64_t lock_text_start;	/* __lock_text_start .. __lock_text_end */
	uint64_t lock_text_end;
	uint64_t sched_text_start;	/* __sched_text_start .. __sched_text_end */
	uint64_t sched_text_end;
	uint64_t text;			/* _text (else _stext): where the image starts */
	uint64_t end;			/* _end (else __bss_stop, __brk_limit): 0 unknown */
	uint64_t first_module;		/* the lowest module symbol: 0 none */
};

void ksyms_init(struct ksyms *ks);
void ksyms_free(struct ksyms *ks);
/* Parse kallsyms text; 0 or -errno. Hidden (all-zero) addresses give -EPERM. */
int ksyms_load_file(struct ksyms *ks, FILE *f);
int ksyms_load(struct ksyms *ks);	/* /proc/kallsyms */
/*
 * Add one symbol (size 0 = unknown, larger than 4 GiB kept as 4 GiB - 1);
 * call ksyms_sort() after the last. -ENOMEM, or -E2BIG past 65 535 modules.
 */
int ksyms_add(struct ksyms *ks, uint64_t addr, uint64_t size, const char *name,
	      const char *module, char type);
void ksyms_sort(struct ksyms *ks);
/* The symbol covering addr, or NULL. */
const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr);
/* The module k is in ("" for the core kernel). */
const char *ksyms_module(const struct ksyms *ks, const struct ksym *k);
/* A data symbol (static lock) covering addr, or NULL. */
const struct ksym *ksyms_find_data(const struct ksyms *ks, uint64_t addr);
/*
 * Is addr inside a locking or scheduling primitive rather than its
 * caller? The kernel's lock and scheduler text, as perf lock contention
 * counts them, and the lock slow paths outside them.
 */
bool ksyms_is_lock_function(const struct ksyms *ks, uint64_t addr);
/*
 * Drop the tracing machinery from the top of a stack taken in a probe
 * (BPF programs, bpf_trace_run*, perf_trace_*); returns the new length.
 */
int ksyms_trim_tracing(const struct ksyms *ks, uint64_t *frames, int n);
/*
 * Is addr inside the kernel image (_text up to _end)? Then its offset
 * from _text, the same on every boot of one build (KASLR moves the whole
 * image), in *off. Where kallsyms lists no _end (no data symbols), the
 * image ends where x86-64's kernel text mapping does, or at the first
 * module, whichever is lower; elsewhere nothing past _text is taken.
 */
bool ksyms_image_offset(const struct ksyms *ks, uint64_t addr, uint64_t *off);
/* Data symbols other than the section bounds (a kallsyms with CONFIG_KALLSYMS_ALL has thousands). */
size_t ksyms_count_data(const struct ksyms *ks);
/*
 * Forget the data symbols other than the section bounds, to name static
 * locks from another source (the System.map path, tested on a kernel whose
 * kallsyms has them). For kallsyms (no sizes): the sizes are measured again.
 */
void ksyms_drop_data(struct ksyms *ks);
/* "name+0xoff" (or "0xaddr") into buf. */
void ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t len);

#endif
