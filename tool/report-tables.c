// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report --view tables: every counter table of the profile as
 * recorded (lib/view/view_tables.h), whatever family wrote it. The views
 * of the families (fd, pagecache, ...) read the same tables and join
 * them; this one shows the raw counts behind them, and still works for a
 * table this lockstat has no view for.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "view/view_tables.h"
#include "report.h"

#define MAX_COLS	64

static enum col_type col_type_of(enum tshow show)
{
	static const enum col_type types[] = {
		[TSHOW_TEXT] = COL_STR, [TSHOW_ADDR] = COL_HEX, [TSHOW_NUM] = COL_U64, [TSHOW_NS] = COL_NS,
	};

	return types[show];
}

static void put_value(struct out_table *t, const struct report *r, const struct ptable *tb,
		      const uint64_t *row, uint32_t c)
{
	struct tshown sh;
	char buf[256];

	table_view__col(tb, c, &sh);
	switch (sh.show) {
	case TSHOW_TEXT:
		out_table__str(t, table_view__key(r->p, tb, row, c, buf, sizeof(buf)));
		break;
	case TSHOW_NS:
		out_table__ns(t, row[c]);
		break;
	case TSHOW_ADDR:
		out_table__hex(t, row[c]);
		break;
	default:
		out_table__u64(t, row[c]);
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
		struct tshown sh;
		enum col_type type;
		int width;

		table_view__col(tb, c, &sh);
		type = col_type_of(sh.show);
		width = type == COL_HEX ? 18 : type == COL_STR ? 28 : 12;
		cols[c] = (struct out_col){ sh.name, sh.name, type, c + 1 < n ? width : 0, type == COL_STR };
	}
	if (r->o.format == OUT_TEXT)
		fprintf_printable(stdout, "# table %s: %zu rows, %" PRIu64 " buckets\n", tb->name, tb->rows.count,
				  tb->nbuckets);
	t = out_table__new(stdout, r->o.format, cols, n);
	while (t && (row = htab_next(&tb->rows, &it, NULL))) {
		out_table__row_begin(t, 0);
		for (c = 0; c < n; c++)
			put_value(t, r, tb, row, c);
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
