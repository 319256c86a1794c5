/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_VIEW_TABLES_H
#define __LOCKSTAT_VIEW_TABLES_H

#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"

/*
 * The counter tables as recorded (lib/format/ctable.h), whatever family
 * wrote them: how each column is shown, and each key as text. report's
 * tables view and top's tables section both show them through here, so
 * a table reads the same in both.
 */
enum tshow {
	TSHOW_TEXT,	/* a string key, or a stack key shown as its caller */
	TSHOW_ADDR,	/* a kernel or user address: hexadecimal */
	TSHOW_NUM,	/* any other key, a count */
	TSHOW_NS,	/* a value in nanoseconds (its name ends in _ns) */
};

struct tshown {
	const char *name;	/* "caller" for a stack column, else the column's */
	enum tshow show;
	uint8_t kind;		/* enum tcol_kind */
};

/* How column c of t is shown. */
void table_view__col(const struct ptable *t, uint32_t c, struct tshown *out);
/*
 * Key column c of a row of t as text: a string, the caller of a kernel
 * stack, the caller of a user stack (the first frame outside the C
 * library's locking code, of the process in the row's pid column), an
 * address as 0x..., or a number. Returns buf.
 */
const char *table_view__key(const struct profile *p, const struct ptable *t, const uint64_t *row,
			    uint32_t c, char *buf, size_t len);

#endif
