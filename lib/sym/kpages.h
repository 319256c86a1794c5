/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_KPAGES_H
#define __LOCKSTAT_KPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

/*
 * Locks inside struct page: the split page-table lock (ptdesc.ptl, or
 * page.ptl before Linux 6.6) of a page-table page, in the vmemmap (the
 * array of struct page). The vmemmap's range is the kernel's own, from
 * /proc/kcore's program headers (its vmemmap segments, which lie between
 * the vmalloc segment and the kernel text); without /proc/kcore, x86-64's
 * fixed vmemmap_base, only where the kernel text is at its link address
 * (no KASLR: memory randomization moves the vmemmap with it). A lock is
 * named only where BTF puts a lock at its offset in the struct.
 */
#define KPAGES_RANGES	8

struct kpages {
	uint64_t start[KPAGES_RANGES], end[KPAGES_RANGES];
	size_t nranges;
	uint32_t size;		/* sizeof(struct page), a power of two */
	int type;		/* BTF id of struct ptdesc, else struct page */
	const char *type_name;
	char status[160];	/* how the vmemmap was found, or why not */
};

/*
 * kcore: a /proc/kcore (NULL: the vmemmap is not read from it); text:
 * kallsyms' _text (0: unknown). Never fails: what is missing is in status.
 */
void kpages_init(struct kpages *kp, const struct btf *btf, const char *kcore, uint64_t text);
/* "ptdesc.ptl" for a lock in a struct page: 0, or -ENOENT. */
int kpages_name(const struct kpages *kp, const struct btf *btf, uint64_t addr, char *buf, size_t len);

#endif
