// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format/ctable.h"
#include "view/view_locks.h"
#include "view/view_tables.h"

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n > m && !strcmp(s + n - m, end);
}

/* The families name their address keys lock, files and ..._lock. */
static bool addr_key(const char *name)
{
	return !strcmp(name, "lock") || !strcmp(name, "files") || ends_with(name, "_lock");
}

void table_view__col(const struct ptable *t, uint32_t c, struct tshown *out)
{
	uint8_t kind = t->kinds[c];
	bool stack = kind == TCOL_KEY_KSTACK || kind == TCOL_KEY_USTACK;

	out->kind = kind;
	/* In a stack column the view shows who took the lock. */
	out->name = stack ? "caller" : t->cols[c];
	if (stack || kind == TCOL_KEY_STR)
		out->show = TSHOW_TEXT;
	else if (tcol_is_key(kind))
		out->show = addr_key(t->cols[c]) ? TSHOW_ADDR : TSHOW_NUM;
	else
		out->show = ends_with(t->cols[c], "_ns") ? TSHOW_NS : TSHOW_NUM;
}

/* The process of a user stack: the row's pid column (the ulocks tables'). */
static uint32_t row_tgid(const struct ptable *t, const uint64_t *row)
{
	int pc = ptable__col(t, ls_col_name(TBL_ULOCKS, ULOCKS__PID));

	return pc >= 0 ? (uint32_t)row[pc] : 0;
}

const char *table_view__key(const struct profile *p, const struct ptable *t, const uint64_t *row,
			    uint32_t c, char *buf, size_t len)
{
	struct tshown sh;

	switch (t->kinds[c]) {
	case TCOL_KEY_STR:
		snprintf(buf, len, "%s", profile__str(p, row[c]));
		return buf;
	case TCOL_KEY_KSTACK:
		return profile__caller(p, (int32_t)row[c], buf, len);
	case TCOL_KEY_USTACK:
		return user_stack_caller(p, row_tgid(t, row), (int32_t)row[c], buf, len);
	}
	table_view__col(t, c, &sh);
	snprintf(buf, len, sh.show == TSHOW_ADDR ? "0x%" PRIx64 : "%" PRIu64, row[c]);
	return buf;
}
