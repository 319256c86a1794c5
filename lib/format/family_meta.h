/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_FAMILY_META_H
#define __LOCKSTAT_FAMILY_META_H

#include <stddef.h>
#include "format/families.h"
#include "format/profile.h"

/*
 * What happened to one probe family in a recording. The collector fills
 * it, the profile's META keeps it as separate keys (family.NAME.state,
 * .mode, .missing, .why: man/lockstat-data.5), and readers get it back
 * from files of any version, older ones included, where it was one
 * sentence under probe.NAME.
 */
enum family_state {
	FSTATE_NOT_WANTED,	/* not asked for */
	FSTATE_ATTACHED,
	FSTATE_NOT_ATTACHED,	/* asked for; why says why not */
};

struct family_status {
	enum family_state state;
	char mode[256];		/* attached: how ("tp_btf", "cpu-clock@99Hz") */
	char missing[32];	/* attached: the part it does not measure ("fget"), or "" */
	char why[256];		/* not attached: why; attached: why missing is not measured */
};

/* "attached", "not attached", "not wanted": the values of family.NAME.state. */
const char *family_state_name(enum family_state s);
/*
 * The status as one line, as report headers show it: "tp_btf", "not
 * recorded", "not attached: why", "tp_btf; fget not measured: why".
 */
const char *family_status_line(const struct family_status *st, char *buf, size_t len);

#define FAMILY_META_KEYS	5

/* The META keys of one family, ready for pwriter__meta(); kv points into it. */
struct family_meta {
	char keys[FAMILY_META_KEYS][64];
	char line[600];
	struct kv kv[FAMILY_META_KEYS];
	size_t n;
};

void family_meta_keys(const char *family, const struct family_status *st, struct family_meta *out);
/* One family's status as a profile recorded it; never fails. */
void family_meta_read(const struct profile *p, const char *family, struct family_status *st);
/* The families a profile names, in the order recorded: how many, up to max. */
size_t family_meta_names(const struct profile *p, char (*names)[32], size_t max);

#endif
