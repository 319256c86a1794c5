// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report --view tables: every counter table of the profile as
 * recorded (lib/format/ctable.h), whatever family wrote it. The views of the
 * families (fd, pagecache, ...) read the same tables and join them; this
 * one shows the raw counts behind them, and still works for a table this
 * lockstat has no view for.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "report.h"

#define MAX_COLS	64

static enum col_type col_type_of(uint8_t kind, const char *name)
{
	size_t n = strlen(name);

	if (kind == TCOL_KEY_STR || kind == TCOL_KEY_KSTACK)
		return COL_STR;
	if (n > 3 && !strcmp(name + n - 3, "_ns"))
		return COL_NS;
	if (!strcmp(name, "lock") || !strcmp(name, "files") || !strcmp(name, "file_lock"))
		return COL_HEX;
	return COL_U64;
}

static void put_value(struct out_table *t, const struct report *r, const struct ptable *tb,
		      uint32_t c, uint64_t v)
{
	char buf[256];

	switch (tb->kinds[c]) {
	case TCOL_KEY_STR:
		out_table__str(t, profile__str(r->p, v));
		return;
	case TCOL_KEY_KSTACK:
		out_table__str(t, profile__caller(r->p, (int32_t)v, buf, sizeof(buf)));
		return;
	}
	switch (col_type_of(tb->kinds[c], tb->cols[c])) {
	case COL_NS:
		out_table__ns(t, v);
		break;
	case COL_HEX:
		out_table__hex(t, v);
		break;
	default:
		out_table__u64(t, v);
	}
}

static void print_table(const struct report *r, const struct ptable *tb)
{
	struct out_col cols[MAX_COLS];
	struct out_table *t;
	const uint64_t *row;
	size_t it = 0;
	uint32_t c, n = tb->ncols < MAX_COLS ? tb->ncols : MAX_COLS;

	for (c = 0; c < n; c++) {
		/* In a stack column the view shows who took the lock. */
		const char *name = tb->kinds[c] == TCOL_KEY_KSTACK ? "caller" : tb->cols[c];

		enum col_type type = col_type_of(tb->kinds[c], tb->cols[c]);
		int width = type == COL_HEX ? 18 : type == COL_STR ? 28 : 12;

		cols[c] = (struct out_col){ name, name, type, c + 1 < n ? width : 0,
					    type == COL_STR };
	}
	if (r->o.format == OUT_TEXT)
		fprintf_printable(stdout, "# table %s: %zu rows, %" PRIu64 " buckets\n", tb->name, tb->rows.count,
				  tb->nbuckets);
	t = out_table__new(stdout, r->o.format, cols, n);
	while (t && (row = htab_next(&tb->rows, &it, NULL))) {
		out_table__row_begin(t, 0);
		for (c = 0; c < n; c++)
			put_value(t, r, tb, c, row[c]);
		out_table__row_end(t);
	}
	out_table__free(t);
	if (r->o.format == OUT_TEXT)
		printf("\n");
}

int print_tables(const struct report *r)
{
	const struct ptable *one = r->o.table ? profile__table(r->p, r->o.table) : NULL;
	size_t i;

	if (r->o.table && !one) {
		pr_err("%s has no table '%s' (--view tables lists them)\n", r->o.input, r->o.table);
		return -1;
	}
	/* As the fd and pagecache views without their data: an error, never an empty output. */
	if (!r->p->ntables) {
		pr_err("%s has no counter tables (recorded with -e locks,sample only?)\n", r->o.input);
		return -1;
	}
	if (!one && r->o.format != OUT_TEXT && r->p->ntables > 1) {
		pr_err("--format %s shows one table at a time: add --table NAME\n",
		       r->o.format == OUT_JSON ? "json" : "csv");
		return -1;
	}
	if (r->o.format == OUT_TEXT)
		out_head__text(stdout, r->p, r->o.input);
	for (i = 0; i < r->p->ntables; i++)
		if (!one || one == &r->p->tables[i])
			print_table(r, &r->p->tables[i]);
	return 0;
}
