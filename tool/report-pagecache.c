// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report --view pagecache: the page cache traffic of each file
 * and process (the pagecache family's tables), with the contention on
 * each file's xarray lock (address_space.i_pages) joined from the lock
 * rows (lib/view/view_pagecache.h). Text shows two tables, CSV one with
 * a "row" column, JSON two arrays; all from one column list, so they
 * carry the same values.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/family_meta.h"
#include "base/log.h"
#include "view/view_pagecache.h"
#include "report.h"

/* Every column any output has; each output lists the ones it shows. */
enum pc_col {
	C_ROW, C_DEV, C_INO, C_PATH, C_PID, C_COMM,
	C_ADDED, C_EVICTED, C_REMOVED, C_LOOKUPS, C_HIT, C_FAULTS, C_MAP_PAGES, C_READAHEAD,
	C_LOCK, C_CONTENDED, C_WAIT,
	C__COUNT,
};

static const struct out_col all_cols[C__COUNT] = {
	[C_ROW] = { "row", "row", COL_STR, 7, true, OUT_NO_JSON },
	[C_DEV] = { "dev", "dev", COL_STR, 7, false },
	[C_INO] = { "ino", "inode", COL_U64, 9, false },
	[C_PATH] = { "path", "file", COL_STR, 0, true },
	[C_PID] = { "pid", "pid", COL_U64, 8, false },
	[C_COMM] = { "comm", "command", COL_STR, 0, true },
	[C_ADDED] = { "added", "added", COL_U64, 9, false },
	[C_EVICTED] = { "evicted", "evicted", COL_U64, 9, false },
	[C_REMOVED] = { "removed", "removed", COL_U64, 9, false },
	[C_LOOKUPS] = { "lookups", "lookups", COL_U64, 10, false },
	[C_HIT] = { "hit_pct", "hit%", COL_PCT, 6, false },
	[C_FAULTS] = { "faults", "faults", COL_U64, 8, false },
	[C_MAP_PAGES] = { "map_pages", "mapped", COL_U64, 8, false },
	[C_READAHEAD] = { "readahead", "readahead", COL_U64, 9, false },
	[C_LOCK] = { "i_pages_lock", "i_pages lock", COL_ADDR, 18, false },
	[C_CONTENDED] = { "i_pages_contended", "i_pages cont", COL_U64, 12, false },
	[C_WAIT] = { "i_pages_wait_ns", "i_pages wait", COL_NS, 12, false },
};

static const int file_cols[] = {
	C_ADDED, C_EVICTED, C_REMOVED, C_LOOKUPS, C_HIT, C_FAULTS, C_MAP_PAGES, C_READAHEAD,
	C_CONTENDED, C_WAIT, C_LOCK, C_DEV, C_INO, C_PATH,
};

static const int proc_cols[] = {
	C_ADDED, C_EVICTED, C_REMOVED, C_LOOKUPS, C_HIT, C_FAULTS, C_MAP_PAGES, C_READAHEAD,
	C_PID, C_COMM,
};

static const int csv_cols[] = {
	C_ROW, C_DEV, C_INO, C_PATH, C_PID, C_COMM,
	C_ADDED, C_EVICTED, C_REMOVED, C_LOOKUPS, C_HIT, C_FAULTS, C_MAP_PAGES, C_READAHEAD,
	C_LOCK, C_CONTENDED, C_WAIT,
};

#define NCOLS(a)	(sizeof(a) / sizeof(a[0]))
static const int val_cols[PC__NVALS] = {
	C_ADDED, C_EVICTED, C_REMOVED, C_LOOKUPS, C_FAULTS, C_MAP_PAGES, C_READAHEAD,
};

/* A value of a cell, set by fill_*() and written by either writer. */
struct cell {
	bool set;
	const char *s;
	uint64_t u;
	double d;
};

struct pc_ctx {
	const struct report *r;
	struct pagecache_view v;
};

/* --- cells -------------------------------------------------------------------- */

static void set_u64(struct cell *c, uint64_t v)
{
	c->set = true;
	c->u = v;
}

static void set_str(struct cell *c, const char *s)
{
	c->set = true;
	c->s = s;
}

static void fill_values(const struct pc_entry *e, struct cell *c)
{
	int i;

	for (i = 0; i < PC__NVALS; i++)
		set_u64(&c[val_cols[i]], e->v[i]);
	c[C_HIT].set = true;
	c[C_HIT].d = e->hit_pct;
}

static void fill_file(const struct pc_entry *e, struct cell *c, char *dev,
		      size_t len)
{
	memset(c, 0, C__COUNT * sizeof(*c));
	snprintf(dev, len, "%" PRIu64 ":%" PRIu64, e->id[0] >> 20, e->id[0] & 0xfffff);
	set_str(&c[C_ROW], "file");
	set_str(&c[C_DEV], dev);
	set_u64(&c[C_INO], e->id[1]);
	set_str(&c[C_PATH], e->name && *e->name ? e->name : NULL);
	fill_values(e, c);
	if (!e->lock)
		return;
	set_u64(&c[C_LOCK], e->lock);
	set_u64(&c[C_CONTENDED], e->contended);
	set_u64(&c[C_WAIT], e->wait_ns);
}

static void fill_proc(const struct pc_entry *e, struct cell *c)
{
	memset(c, 0, C__COUNT * sizeof(*c));
	set_str(&c[C_ROW], "process");
	set_u64(&c[C_PID], e->id[0]);
	set_str(&c[C_COMM], e->name);
	fill_values(e, c);
}

static void put_cell(struct out_table *t, enum col_type type, const struct cell *c)
{
	if (!c->set) {
		out_table__none(t);
		return;
	}
	switch (type) {
	case COL_STR:
		out_table__str(t, c->s);
		break;
	case COL_PCT:
		out_table__pct(t, c->d);
		break;
	case COL_NS:
		out_table__ns(t, c->u);
		break;
	case COL_ADDR:
		out_table__hex(t, c->u);
		break;
	default:
		out_table__u64(t, c->u);
	}
}

static void put_row(struct out_table *t, const int *cols, size_t n, const struct cell *c)
{
	size_t i;

	out_table__row_begin(t, 0);
	for (i = 0; i < n; i++)
		put_cell(t, all_cols[cols[i]].type, &c[cols[i]]);
	out_table__row_end(t);
}

/* --- output -------------------------------------------------------------------- */

static size_t shown(const struct report *r, size_t n)
{
	return r->o.top_n && r->o.top_n < n ? r->o.top_n : n;
}

static void cols_of(const int *ids, size_t n, struct out_col *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = all_cols[ids[i]];
}

/* pagecache.lost as "name=value" pairs, or "none". */
static void print_lost(const struct report *r)
{
	const struct ptable *t = profile__ltable(r->p, TBL_PC_LOST);
	const uint64_t *row;
	size_t it = 0;
	uint32_t c;
	bool any = false;

	printf("# pagecache lost:");
	while (t && (row = htab_next(&t->rows, &it, NULL)))
		for (c = 0; c < t->ncols; c++) {
			if (!row[c])
				continue;
			printf(" %s=%" PRIu64, t->cols[c], row[c]);
			any = true;
		}
	printf("%s\n", any ? " (some events were not counted)" : " none");
}

static void print_pc_header(const struct pc_ctx *x)
{
	char line[600];

	fprintf_printable(stdout, "# pagecache probes: %s; counts in pages; evicted: by reclaim, removed: truncate, unlink, fadvise, drop_caches\n",
			  out_family_line(x->r->p, family_name(FAMILY_PAGECACHE), line, sizeof(line)));
	if (x->v.lookups_counted)
		printf("# hit%% = 1 - added/lookups, an estimate (lockstat-report(1)); \"-\": no read() lookups\n");
	else
		printf("# hit%%: \"-\", not known: this kernel has no mm_filemap_get_pages tracepoint, so lookups are not counted\n");
	print_lost(x->r);
	printf("#\n");
}

/* The files or the processes, as a table of d with their columns. */
static void put_list(struct out_doc *d, const struct pc_ctx *x, bool files)
{
	const struct pc_list *l = files ? &x->v.files : &x->v.procs;
	const int *ids = files ? file_cols : proc_cols;
	size_t n = files ? NCOLS(file_cols) : NCOLS(proc_cols), i;
	struct out_col cols[C__COUNT];
	struct cell c[C__COUNT];
	struct out_table *t;
	char dev[32];

	cols_of(ids, n, cols);
	t = out_doc__table(d, files ? "files" : "processes", cols, n);
	for (i = 0; t && i < shown(x->r, l->n); i++) {
		if (files)
			fill_file(&l->e[i], c, dev, sizeof(dev));
		else
			fill_proc(&l->e[i], c);
		put_row(t, ids, n, c);
	}
	out_table__free(t);
}

static void print_text(struct out_doc *d, const struct pc_ctx *x)
{
	print_pc_header(x);
	printf("FILES (%zu)\n", x->v.files.n);
	put_list(d, x, true);
	printf("\nPROCESSES (%zu)\n", x->v.procs.n);
	put_list(d, x, false);
}

/* One table of all the columns, a row column saying which lines are files and which processes. */
static void print_csv(struct out_doc *d, const struct pc_ctx *x)
{
	struct out_col cols[C__COUNT];
	struct cell c[C__COUNT];
	struct out_table *t;
	char dev[32];
	size_t i;

	cols_of(csv_cols, NCOLS(csv_cols), cols);
	t = out_doc__table(d, NULL, cols, NCOLS(csv_cols));
	for (i = 0; t && i < shown(x->r, x->v.files.n); i++) {
		fill_file(&x->v.files.e[i], c, dev, sizeof(dev));
		put_row(t, csv_cols, NCOLS(csv_cols), c);
	}
	for (i = 0; t && i < shown(x->r, x->v.procs.n); i++) {
		fill_proc(&x->v.procs.e[i], c);
		put_row(t, csv_cols, NCOLS(csv_cols), c);
	}
	out_table__free(t);
}

static void json_lost_pc(struct json_writer *jw, const struct profile *p)
{
	const struct ptable *t = profile__ltable(p, TBL_PC_LOST);
	const uint64_t *row;
	size_t it = 0;
	uint32_t c;

	jw_name(jw, "lost");
	jw_start_object(jw);
	while (t && (row = htab_next(&t->rows, &it, NULL)))
		for (c = 0; c < t->ncols; c++)
			jw_u64_field(jw, t->cols[c], row[c]);
	jw_end_object(jw);
}

static void print_json(struct out_doc *d, const struct pc_ctx *x)
{
	struct json_writer *jw = out_doc__jw(d);
	char line[600];

	jw_name(jw, "pagecache");
	jw_start_object(jw);
	jw_string_field(jw, "probes",
			out_family_line(x->r->p, family_name(FAMILY_PAGECACHE), line, sizeof(line)));
	jw_bool_field(jw, "lookups_counted", x->v.lookups_counted);
	json_lost_pc(jw, x->r->p);
	jw_end_object(jw);
	put_list(d, x, true);
	put_list(d, x, false);
}

static int print_views(const struct pc_ctx *x)
{
	struct out_doc *d = report__doc(x->r);

	if (!d)
		return -ENOMEM;
	if (x->r->o.format == OUT_JSON)
		print_json(d, x);
	else if (x->r->o.format == OUT_CSV)
		print_csv(d, x);
	else
		print_text(d, x);
	out_doc__free(d);
	return 0;
}

int print_pagecache(const struct report *r)
{
	struct pc_ctx x = { .r = r };
	char line[600];
	int err = pagecache_view__build(&x.v, r->p);

	if (err == -ENOENT)
		pr_err("%s has no page cache data (pagecache: %s); record with -e pagecache\n",
		       r->o.input,
		       out_family_line(r->p, family_name(FAMILY_PAGECACHE), line, sizeof(line)));
	else if (err)
		pr_err("reading the pagecache tables: %s\n", strerror(-err));
	else
		err = print_views(&x);
	pagecache_view__free(&x.v);
	return err;
}
