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
};

/* A usym_resolve_fn for pwriter; ctx is a struct uresolver. */
int uresolve(void *ctx, uint32_t tgid, uint64_t addr, struct usym_info *out);

#endif
