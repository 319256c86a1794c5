// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report --view pagecache: the page cache traffic of each file
 * and process (the pagecache family's tables), with the contention on
 * each file's xarray lock (address_space.i_pages) joined from the lock
 * rows. Text shows two tables, CSV one with a "row" column, JSON two
 * arrays; all from one column list, so they carry the same values.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "format/family_meta.h"
#include "base/log.h"
#include "report.h"

/* Every column any output has; each output lists the ones it shows. */
enum pc_col {
	C_ROW, C_DEV, C_INO, C_PATH, C_PID, C_COMM,
	C_ADDED, C_EVICTED, C_REMOVED, C_LOOKUPS, C_HIT, C_FAULTS, C_MAP_PAGES, C_READAHEAD,
	C_LOCK, C_CONTENDED, C_WAIT,
	C__COUNT,
};

static const struct out_col all_cols[C__COUNT] = {
	[C_ROW] = { "row", "row", COL_STR, 7, true },
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
	[C_LOCK] = { "i_pages_lock", "i_pages lock", COL_HEX, 18, false },
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
#define NVALS		7	/* added .. readahead, in the tables' order */

static const char *const val_names[NVALS] = {
	"added", "evicted", "removed", "lookups", "faults", "map_pages", "readahead",
};

static const int val_cols[NVALS] = {
	C_ADDED, C_EVICTED, C_REMOVED, C_LOOKUPS, C_FAULTS, C_MAP_PAGES, C_READAHEAD,
};

/* One file (dev, ino) or process (pid, comm), merged over its rows. */
struct pc_entry {
	uint64_t id[2];		/* dev, ino; or pid, comm string id */
	const char *name;	/* path or comm */
	uint64_t lock;
	uint64_t v[NVALS];
	uint64_t contended;
	uint64_t wait_ns;
};

struct pc_list {
	struct pc_entry *e;
	size_t n;
	size_t cap;
	struct htab index;	/* id[2] -> size_t + 1 */
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
	bool lookups_counted;	/* the kernel had mm_filemap_get_pages */
	struct htab locks;	/* lock address -> uint64_t[2]: contended, wait_ns */
	struct pc_list files;
	struct pc_list procs;
};

/* --- the model ----------------------------------------------------------------- */

static struct pc_entry *entry_of(struct pc_list *l, const uint64_t id[2])
{
	int inserted;
	size_t *slot = htab_get(&l->index, id, &inserted);

	if (!slot)
		return NULL;
	if (!inserted)
		return &l->e[*slot - 1];
	if (grow_array((void **)&l->e, &l->cap, l->n + 1, sizeof(*l->e)))
		return NULL;
	memset(&l->e[l->n], 0, sizeof(l->e[0]));
	memcpy(l->e[l->n].id, id, sizeof(l->e[0].id));
	*slot = ++l->n;
	return &l->e[l->n - 1];
}

/* The columns of a table by name; -1 for the missing ones. */
static void find_cols(const struct ptable *t, const char *const *names, int n, int *out)
{
	int i;

	for (i = 0; i < n; i++)
		out[i] = ptable__col(t, names[i]);
}

static void merge_values(struct pc_entry *e, const uint64_t *row, const int *vc)
{
	int i;

	for (i = 0; i < NVALS; i++)
		if (vc[i] >= 0)
			e->v[i] += row[vc[i]];
}

/*
 * Files by (dev, inode): a file whose name came later (the /proc search)
 * has rows with and without it; the name wins.
 */
static int build_files(struct pc_ctx *x, const struct ptable *t)
{
	static const char *const keys[] = { "dev", "ino", "path", "i_pages_lock" };
	int kc[4], vc[NVALS];
	const uint64_t *row;
	struct pc_entry *e;
	size_t it = 0;

	find_cols(t, keys, 4, kc);
	find_cols(t, val_names, NVALS, vc);
	if (kc[0] < 0 || kc[1] < 0)
		return -EINVAL;
	while ((row = htab_next(&t->rows, &it, NULL))) {
		uint64_t id[2] = { row[kc[0]], row[kc[1]] };
		const char *path = kc[2] >= 0 ? profile__str(x->r->p, row[kc[2]]) : "";

		if (!(e = entry_of(&x->files, id)))
			return -ENOMEM;
		if (path && *path && (!e->name || !*e->name))
			e->name = path;
		if (kc[3] >= 0 && row[kc[3]] && !e->lock)
			e->lock = row[kc[3]];
		merge_values(e, row, vc);
	}
	return 0;
}

static int build_procs(struct pc_ctx *x, const struct ptable *t)
{
	static const char *const keys[] = { "pid", "comm" };
	int kc[2], vc[NVALS];
	const uint64_t *row;
	struct pc_entry *e;
	size_t it = 0;

	find_cols(t, keys, 2, kc);
	find_cols(t, val_names, NVALS, vc);
	if (kc[0] < 0 || kc[1] < 0)
		return -EINVAL;
	while ((row = htab_next(&t->rows, &it, NULL))) {
		uint64_t id[2] = { row[kc[0]], row[kc[1]] };

		if (!(e = entry_of(&x->procs, id)))
			return -ENOMEM;
		e->name = profile__str(x->r->p, row[kc[1]]);
		merge_values(e, row, vc);
	}
	return 0;
}

/* Contention per lock address, over every caller and task. */
static int index_locks(struct pc_ctx *x)
{
	const struct lock_row_key *k;
	const struct lock_row_val *v;
	size_t it = 0;
	uint64_t *sum;

	while ((v = htab_next(&x->r->p->rows, &it, (const void **)&k))) {
		if (!(sum = htab_get(&x->locks, &k->lock_addr, NULL)))
			return -ENOMEM;
		sum[0] += v->count;
		sum[1] += v->total_ns;
	}
	return 0;
}

static void join_locks(struct pc_ctx *x)
{
	const uint64_t *sum;
	size_t i;

	for (i = 0; i < x->files.n; i++) {
		struct pc_entry *e = &x->files.e[i];

		if (e->lock && (sum = htab_find(&x->locks, &e->lock))) {
			e->contended = sum[0];
			e->wait_ns = sum[1];
		}
	}
}

/* Most pages added first, then most looked up. */
static int by_traffic(const void *a, const void *b)
{
	const struct pc_entry *x = a, *y = b;

	if (x->v[0] != y->v[0])
		return x->v[0] < y->v[0] ? 1 : -1;
	if (x->v[3] != y->v[3])
		return x->v[3] < y->v[3] ? 1 : -1;
	return x->id[1] < y->id[1] ? -1 : x->id[1] > y->id[1];
}

static void pc_list_free(struct pc_list *l)
{
	free(l->e);
	htab_free(&l->index);
}

/* The mode names the events attached: "tp_btf:add,delete,lookup,...". */
static bool lookups_counted(const struct profile *p)
{
	struct family_status st;
	const char *events;

	family_meta_read(p, "pagecache", &st);
	events = strchr(st.mode, ':');
	return st.state == FSTATE_ATTACHED && events && strstr(events, "lookup");
}

/* The pagecache family's status, as one line. */
static const char *probe_line(const struct profile *p, char *buf, size_t len)
{
	struct family_status st;

	family_meta_read(p, "pagecache", &st);
	return family_status_line(&st, buf, len);
}

static int build(struct pc_ctx *x, const struct ptable *files, const struct ptable *procs)
{
	int err = 0;

	htab_init(&x->files.index, 2 * sizeof(uint64_t), sizeof(size_t));
	htab_init(&x->procs.index, 2 * sizeof(uint64_t), sizeof(size_t));
	htab_init(&x->locks, sizeof(uint64_t), 2 * sizeof(uint64_t));
	x->lookups_counted = lookups_counted(x->r->p);
	if (files)
		err = build_files(x, files);
	if (!err && procs)
		err = build_procs(x, procs);
	if (!err)
		err = index_locks(x);
	if (err)
		return err;
	join_locks(x);
	if (x->files.n)
		qsort(x->files.e, x->files.n, sizeof(x->files.e[0]), by_traffic);
	if (x->procs.n)
		qsort(x->procs.e, x->procs.n, sizeof(x->procs.e[0]), by_traffic);
	return 0;
}

/* --- cells -------------------------------------------------------------------- */

/*
 * 1 - added/lookups: each page read() asks for and does not find is
 * added, so added/lookups estimates the miss ratio (see lockstat-report(1)
 * for what makes it only an estimate). NAN: not known.
 */
static double hit_pct(const struct pc_ctx *x, const struct pc_entry *e)
{
	double miss;

	if (!x->lookups_counted || !e->v[3])
		return NAN;
	miss = (double)e->v[0] / e->v[3];
	return miss >= 1 ? 0 : 100.0 * (1 - miss);
}

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

static void fill_values(const struct pc_ctx *x, const struct pc_entry *e, struct cell *c)
{
	int i;

	for (i = 0; i < NVALS; i++)
		set_u64(&c[val_cols[i]], e->v[i]);
	c[C_HIT].set = true;
	c[C_HIT].d = hit_pct(x, e);
}

static void fill_file(const struct pc_ctx *x, const struct pc_entry *e, struct cell *c, char *dev,
		      size_t len)
{
	memset(c, 0, C__COUNT * sizeof(*c));
	snprintf(dev, len, "%" PRIu64 ":%" PRIu64, e->id[0] >> 20, e->id[0] & 0xfffff);
	set_str(&c[C_ROW], "file");
	set_str(&c[C_DEV], dev);
	set_u64(&c[C_INO], e->id[1]);
	set_str(&c[C_PATH], e->name && *e->name ? e->name : NULL);
	fill_values(x, e, c);
	if (!e->lock)
		return;
	set_u64(&c[C_LOCK], e->lock);
	set_u64(&c[C_CONTENDED], e->contended);
	set_u64(&c[C_WAIT], e->wait_ns);
}

static void fill_proc(const struct pc_ctx *x, const struct pc_entry *e, struct cell *c)
{
	memset(c, 0, C__COUNT * sizeof(*c));
	set_str(&c[C_ROW], "process");
	set_u64(&c[C_PID], e->id[0]);
	set_str(&c[C_COMM], e->name);
	fill_values(x, e, c);
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
	case COL_HEX:
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

/* Addresses as "0x..." strings: JSON readers keep 53 bits of a number. */
static void json_cell(struct json_writer *jw, int col, const struct cell *c)
{
	const struct out_col *oc = &all_cols[col];
	char hex[24];

	if (!c->set || (oc->type == COL_STR && !c->s) || (oc->type == COL_PCT && !isfinite(c->d))) {
		jw_null_field(jw, oc->key);
	} else if (oc->type == COL_HEX) {
		snprintf(hex, sizeof(hex), "0x%" PRIx64, c->u);
		jw_string_field(jw, oc->key, hex);
	} else if (oc->type == COL_STR) {
		jw_string_field(jw, oc->key, c->s);
	} else if (oc->type == COL_PCT) {
		jw_double_field(jw, oc->key, c->d);
	} else {
		jw_u64_field(jw, oc->key, c->u);
	}
}

static void json_row(struct json_writer *jw, const int *cols, size_t n, const struct cell *c)
{
	size_t i;

	jw_start_object(jw);
	for (i = 0; i < n; i++)
		json_cell(jw, cols[i], &c[cols[i]]);
	jw_end_object(jw);
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
	const struct ptable *t = profile__table(r->p, "pagecache.lost");
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

	out_head__text(stdout, x->r->p, x->r->o.input);
	fprintf_printable(stdout, "# pagecache probes: %s; counts in pages; evicted: by reclaim, removed: truncate, unlink, fadvise, drop_caches\n",
			  probe_line(x->r->p, line, sizeof(line)));
	if (x->lookups_counted)
		printf("# hit%% = 1 - added/lookups, an estimate (lockstat-report(1)); \"-\": no read() lookups\n");
	else
		printf("# hit%%: \"-\", not known: this kernel has no mm_filemap_get_pages tracepoint, so lookups are not counted\n");
	print_lost(x->r);
	printf("#\n");
}

static void text_table(const struct pc_ctx *x, bool files)
{
	const struct pc_list *l = files ? &x->files : &x->procs;
	const int *ids = files ? file_cols : proc_cols;
	size_t n = files ? NCOLS(file_cols) : NCOLS(proc_cols), i;
	struct out_col cols[C__COUNT];
	struct cell c[C__COUNT];
	struct out_table *t;
	char dev[32];

	cols_of(ids, n, cols);
	t = out_table__new(stdout, x->r->o.format, cols, n);
	for (i = 0; t && i < shown(x->r, l->n); i++) {
		if (files)
			fill_file(x, &l->e[i], c, dev, sizeof(dev));
		else
			fill_proc(x, &l->e[i], c);
		put_row(t, ids, n, c);
	}
	out_table__free(t);
}

static void print_text(const struct pc_ctx *x)
{
	print_pc_header(x);
	printf("FILES (%zu)\n", x->files.n);
	text_table(x, true);
	printf("\nPROCESSES (%zu)\n", x->procs.n);
	text_table(x, false);
}

static void print_csv(const struct pc_ctx *x)
{
	struct out_col cols[C__COUNT];
	struct cell c[C__COUNT];
	struct out_table *t;
	char dev[32];
	size_t i;

	cols_of(csv_cols, NCOLS(csv_cols), cols);
	t = out_table__new(stdout, OUT_CSV, cols, NCOLS(csv_cols));
	for (i = 0; t && i < shown(x->r, x->files.n); i++) {
		fill_file(x, &x->files.e[i], c, dev, sizeof(dev));
		put_row(t, csv_cols, NCOLS(csv_cols), c);
	}
	for (i = 0; t && i < shown(x->r, x->procs.n); i++) {
		fill_proc(x, &x->procs.e[i], c);
		put_row(t, csv_cols, NCOLS(csv_cols), c);
	}
	out_table__free(t);
}

static void json_lost_pc(struct json_writer *jw, const struct profile *p)
{
	const struct ptable *t = profile__table(p, "pagecache.lost");
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

static void json_list(struct json_writer *jw, const struct pc_ctx *x, bool files)
{
	const struct pc_list *l = files ? &x->files : &x->procs;
	struct cell c[C__COUNT];
	char dev[32];
	size_t i;

	jw_name(jw, files ? "files" : "processes");
	jw_start_array(jw);
	for (i = 0; i < shown(x->r, l->n); i++) {
		if (files)
			fill_file(x, &l->e[i], c, dev, sizeof(dev));
		else
			fill_proc(x, &l->e[i], c);
		if (files)
			json_row(jw, file_cols, NCOLS(file_cols), c);
		else
			json_row(jw, proc_cols, NCOLS(proc_cols), c);
	}
	jw_end_array(jw);
}

static void print_json(const struct pc_ctx *x)
{
	struct json_writer *jw = jw_new(stdout, isatty(STDOUT_FILENO));
	char line[600];

	if (!jw)
		return;
	jw_start_object(jw);
	out_head__json(jw, x->r->p, x->r->o.input);
	out_lost__json(jw, x->r->p);
	jw_name(jw, "pagecache");
	jw_start_object(jw);
	jw_string_field(jw, "probes", probe_line(x->r->p, line, sizeof(line)));
	jw_bool_field(jw, "lookups_counted", x->lookups_counted);
	json_lost_pc(jw, x->r->p);
	jw_end_object(jw);
	json_list(jw, x, true);
	json_list(jw, x, false);
	jw_end_object(jw);
	jw_free(jw);
}

/* Tables are only written when they have rows: no table may still be a recording. */
static bool was_recorded(const struct report *r)
{
	struct family_status st;

	family_meta_read(r->p, "pagecache", &st);
	return st.state == FSTATE_ATTACHED;
}

int print_pagecache(const struct report *r)
{
	const struct ptable *files = profile__table(r->p, "pagecache.files");
	const struct ptable *procs = profile__table(r->p, "pagecache.procs");
	struct pc_ctx x = { .r = r };
	char line[600];
	int err;

	if (!files && !procs && !was_recorded(r)) {
		pr_err("%s has no page cache data (pagecache: %s); record with -e pagecache\n",
		       r->o.input, probe_line(r->p, line, sizeof(line)));
		return -ENOENT;
	}
	err = build(&x, files, procs);
	if (err)
		pr_err("reading the pagecache tables: %s\n", strerror(-err));
	else if (r->o.format == OUT_JSON)
		print_json(&x);
	else if (r->o.format == OUT_CSV)
		print_csv(&x);
	else
		print_text(&x);
	pc_list_free(&x.files);
	pc_list_free(&x.procs);
	htab_free(&x.locks);
	return err;
}
