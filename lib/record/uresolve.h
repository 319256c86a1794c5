/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_URESOLVE_H
#define __LOCKSTAT_URESOLVE_H

#include "record/procmaps.h"
#include "format/profile.h"

struct syms;

/* Record side: user PCs to symbols, through the captured mappings. */
struct uresolver {
	struct syms *syms;
	const struct maps_cache *maps;
	uint64_t t0_ns;		/* the recording's start (CLOCK_MONOTONIC): seen_ns counts from it */
	char fallback[320];	/* "module+0xOFFSET", valid until the next call */
};

/*
 * A usym_resolve_fn for pwriter; ctx is a struct uresolver. A PC in a
 * file that names no function there (stripped, no debug file, gone) gets
 * one frame, "module+0xOFFSET": the file offset, which is the address
 * addr2line -e takes for the file's debug file in the usual layouts; its
 * why still says what was missing.
 */
int uresolve(void *ctx, uint32_t tgid, uint64_t addr, uint64_t seen_ns, struct usym_info *out);

#endif
