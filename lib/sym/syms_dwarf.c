// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DWARF side of the symbolizer: sorted indexes instead of libdw's
 * per-address dwarf_addrdie/dwarf_getscopes (two orders of magnitude
 * slower on a 20,000-address batch), built one cluster of CUs at a time:
 *  - the CU index, read once per file: every CU's address ranges, chained
 *    into clusters where they overlap (a few of glibc's CUs claim the
 *    same code). Reading it costs libdw only the CU headers;
 *  - per cluster, on the first lookup inside it: the line table of its
 *    CUs, each clipped to its CU's ranges, one row per address (the row
 *    libdw picks there), gaps where no sequence covers code; and the
 *    inline index: every subprogram and inlined subroutine with its
 *    parent, flattened into disjoint spans that each name the deepest
 *    entry covering them, so a lookup is one binary search plus a walk up
 *    the parent links.
 * A process touches a few of a library's CUs: indexing all of libc's 2,000
 * made libdw hold every line program (45 MiB of heap, most of lockstat
 * record's peak), where a cluster costs only what its CUs hold.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#define __LOCKSTAT_SYMS_PRIVATE
#include "sym/syms.h"

#define NAME_HOPS	16	/* abstract_origin/specification links followed */

/* --- source file names ---------------------------------------------------- */

static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	return h;
}

static uint32_t *file_slot(uint32_t *slots, size_t nslots, char **files, const char *name)
{
	size_t i = str_hash(name) & (nslots - 1);

	while (slots[i] && strcmp(files[slots[i] - 1], name))
		i = (i + 1) & (nslots - 1);
	return &slots[i];
}

static int files_rehash(struct syms_file *f)
{
	size_t n = f->files_nslots ? f->files_nslots * 2 : 256, i;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < f->nfiles; i++)
		*file_slot(slots, n, f->files, f->files[i]) = i + 1;
	free(f->files_slots);
	f->files_slots = slots;
	f->files_nslots = n;
	return 0;
}

static int intern_file(struct syms_file *f, const char *name, uint32_t *idx)
{
	uint32_t *slot;

	if ((f->nfiles + 1) * 2 > f->files_nslots && files_rehash(f))
		return -ENOMEM;
	slot = file_slot(f->files_slots, f->files_nslots, f->files, name);
	if (!*slot) {
		if (syms_grow((void **)&f->files, &f->files_cap, f->nfiles + 1, sizeof(*f->files)))
			return -ENOMEM;
		f->files[f->nfiles] = strdup(name);
		if (!f->files[f->nfiles])
			return -ENOMEM;
		*slot = ++f->nfiles;
	}
	*idx = *slot - 1;
	return 0;
}

/* The CU's file table as indexes into f->files, in map[0..n). */
struct cu_files {
	Dwarf_Files *files;
	uint32_t *map;
	size_t n, cap;
};

static int cu_files_load(struct syms_file *f, Dwarf_Die *cudie, struct cu_files *c)
{
	const char *dir, *name;
	char buf[2 * PATH_MAX];
	Dwarf_Attribute a;
	size_t i;
	int err;

	if (dwarf_getsrcfiles(cudie, &c->files, &c->n)) {
		c->files = NULL;
		c->n = 0;
		return 0;
	}
	if (syms_grow((void **)&c->map, &c->cap, c->n, sizeof(*c->map)))
		return -ENOMEM;
	dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
	for (i = 0; i < c->n; i++) {
		name = dwarf_filesrc(c->files, i, NULL, NULL);
		if (!name)
			name = "??";
		if (name[0] != '/' && dir && *dir) {
			snprintf(buf, sizeof(buf), "%s/%s", dir, name);
			name = buf;
		}
		err = intern_file(f, name, &c->map[i]);
		if (err)
			return err;
	}
	return 0;
}

/* --- line table ---------------------------------------------------------- */

struct line_build {
	struct syms_file *f;
	struct syms_line *rows;	/* the cluster's CU ranges, in order, each contiguous */
	size_t nrows, rows_cap;
	size_t nseqs;		/* CU ranges added */
	struct syms_line *cu_rows;	/* the current CU's table, libdw's order */
	size_t cu_nrows, cu_cap;
	struct cu_files cu;
};

/* One CU's table: end_sequence rows become gaps. */
static int cu_rows_load(struct line_build *b, Dwarf_Lines *lines, size_t n)
{
	Dwarf_Line *line;
	Dwarf_Files *lf;
	Dwarf_Addr addr;
	struct syms_line *row;
	size_t i, idx;
	int lineno;
	bool end;

	if (syms_grow((void **)&b->cu_rows, &b->cu_cap, n, sizeof(*b->cu_rows)))
		return -ENOMEM;
	b->cu_nrows = 0;
	for (i = 0; i < n; i++) {
		line = dwarf_onesrcline(lines, i);
		if (!line || dwarf_lineaddr(line, &addr) || dwarf_lineendsequence(line, &end))
			continue;
		row = &b->cu_rows[b->cu_nrows++];
		*row = (struct syms_line){ .addr = addr, .file = SYMS_LINE_GAP };
		if (end || dwarf_line_file(line, &lf, &idx) || lf != b->cu.files || idx >= b->cu.n)
			continue;
		lineno = 0;
		dwarf_lineno(line, &lineno);
		row->file = b->cu.map[idx];
		row->line = lineno > 0 ? lineno : 0;
	}
	return 0;
}

static int push_row(struct line_build *b, struct syms_line row)
{
	if (syms_grow((void **)&b->rows, &b->rows_cap, b->nrows + 1, sizeof(*b->rows)))
		return -ENOMEM;
	b->rows[b->nrows++] = row;
	return 0;
}

/* First row of the CU's table at or above addr. */
static size_t cu_row_at(const struct line_build *b, uint64_t addr)
{
	size_t lo = 0, hi = b->cu_nrows, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->cu_rows[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The CU's rows inside one of its ranges [lo, hi), what libdw answers
 * there (the CU being chosen by address first): the row in force at lo,
 * those inside, and a gap at hi. Rows outside the CU's ranges are never
 * returned by libdw and can shadow other CUs' code: a zero-length row at
 * the end of a sequence sorts after that sequence's end_sequence row.
 */
static int cu_range(struct line_build *b, uint64_t lo, uint64_t hi)
{
	size_t i = cu_row_at(b, lo);
	struct syms_line row;
	int err = 0;

	if ((i == b->cu_nrows || b->cu_rows[i].addr > lo) && i > 0 &&
	    b->cu_rows[i - 1].file != SYMS_LINE_GAP) {
		row = b->cu_rows[i - 1];
		row.addr = lo;
		err = push_row(b, row);
	}
	for (; i < b->cu_nrows && b->cu_rows[i].addr < hi && !err; i++)
		err = push_row(b, b->cu_rows[i]);
	if (!err)
		err = push_row(b, (struct syms_line){ .addr = hi, .file = SYMS_LINE_GAP });
	if (err)
		return err;
	b->nseqs++;
	return 0;
}

struct row_ord {
	struct syms_line row;
	size_t order;
};

/* libdw's order: address, then end_sequence rows first, then input order. */
static int row_cmp(const void *a, const void *b)
{
	const struct row_ord *x = a, *y = b;
	bool xe = x->row.file == SYMS_LINE_GAP, ye = y->row.file == SYMS_LINE_GAP;

	if (x->row.addr != y->row.addr)
		return x->row.addr < y->row.addr ? -1 : 1;
	if (xe != ye)
		return xe ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Overlapping sequences (broken DWARF): sort the rows themselves. */
static int sort_rows(struct syms_line *rows, size_t n)
{
	struct row_ord *t = malloc((n ? n : 1) * sizeof(*t));
	size_t i;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t[i] = (struct row_ord){ .row = rows[i], .order = i };
	if (n > 1)
		qsort(t, n, sizeof(*t), row_cmp);
	for (i = 0; i < n; i++)
		rows[i] = t[i].row;
	free(t);
	return 0;
}

/* Keep the last row of each address: the one a lookup there returns. */
static size_t dedup_rows(struct syms_line *rows, size_t n)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++) {
		if (out && rows[out - 1].addr == rows[i].addr)
			out--;
		rows[out++] = rows[i];
	}
	return out;
}

/* --- inline index ---------------------------------------------------------- */

struct rng {
	uint64_t lo, hi;
	uint32_t inl;
	uint32_t depth;
};

struct inl_build {
	struct syms_file *f;
	struct syms_cluster *c;	/* entries with no code in it are left out */
	struct cu_files cu;	/* for DW_AT_call_file */
	struct rng *rngs;
	size_t nrngs, rngs_cap;
	size_t spans_cap;
	bool linked;
};

/*
 * What eu-addr2line and addr2line show: the linkage name anywhere along the
 * abstract_origin/specification chain, else the first DW_AT_name.
 */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Die cur = *die, next;
	const char *name = NULL, *s;
	Dwarf_Attribute a;
	int hops;

	for (hops = 0; hops < NAME_HOPS; hops++) {
		if ((dwarf_attr(&cur, DW_AT_linkage_name, &a) ||
		     dwarf_attr(&cur, DW_AT_MIPS_linkage_name, &a)) && (s = dwarf_formstring(&a)))
			return s;
		if (!name && dwarf_attr(&cur, DW_AT_name, &a))
			name = dwarf_formstring(&a);
		if (!dwarf_attr(&cur, DW_AT_abstract_origin, &a) &&
		    !dwarf_attr(&cur, DW_AT_specification, &a))
			break;
		if (!dwarf_formref_die(&a, &next))
			break;
		cur = next;
	}
	return name;
}

static uint32_t die_udata(Dwarf_Die *die, unsigned int at, uint32_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr(die, at, &a) || dwarf_formudata(&a, &v))
		return dflt;
	return (uint32_t)v;
}

/*
 * The DIE's ranges with code in the cluster; 1 if any. The others cannot
 * change what the cluster's own addresses resolve to: one that ends
 * before the cluster is off the flattening stack before its first
 * address, one that starts past it comes after its last.
 */
static int add_ranges(struct inl_build *b, Dwarf_Die *die, uint32_t inl, uint32_t depth)
{
	Dwarf_Addr base, lo, hi;
	size_t before = b->nrngs;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi || (b->linked && !lo) || hi <= b->c->lo || lo >= b->c->hi)
			continue;
		if (syms_grow((void **)&b->rngs, &b->rngs_cap, b->nrngs + 1, sizeof(*b->rngs)))
			return -ENOMEM;
		b->rngs[b->nrngs++] = (struct rng){ .lo = lo, .hi = hi, .inl = inl, .depth = depth };
	}
	return b->nrngs > before;
}

/* *idx: the new entry, or -1 when the DIE covers no code in the cluster. */
static int add_entry(struct inl_build *b, Dwarf_Die *die, bool inlined, int32_t parent,
		     uint32_t depth, int32_t *idx)
{
	struct syms_file *f = b->f;
	struct syms_inl *e;
	uint32_t file;
	int got;

	*idx = -1;
	got = add_ranges(b, die, f->ninls, depth);
	if (got <= 0)
		return got;
	if (syms_grow((void **)&f->inls, &f->inls_cap, f->ninls + 1, sizeof(*f->inls)))
		return -ENOMEM;
	e = &f->inls[f->ninls];
	*e = (struct syms_inl){ .name = die_name(die), .parent = parent, .inlined = inlined };
	if (inlined) {
		file = die_udata(die, DW_AT_call_file, UINT32_MAX);
		if (file < b->cu.n)
			e->call_file = f->files[b->cu.map[file]];
		e->call_line = die_udata(die, DW_AT_call_line, 0);
	}
	*idx = f->ninls++;
	return 0;
}

static int walk(struct inl_build *b, Dwarf_Die *die, int32_t parent, uint32_t depth);

static int visit(struct inl_build *b, Dwarf_Die *die, int32_t parent, uint32_t depth)
{
	int32_t me;
	int err;

	switch (dwarf_tag(die)) {
	case DW_TAG_subprogram:
		/* Declarations and abstract instances have no code below. */
		err = add_entry(b, die, false, -1, depth, &me);
		return err || me < 0 ? err : walk(b, die, me, depth + 1);
	case DW_TAG_inlined_subroutine:
		err = add_entry(b, die, true, parent, depth, &me);
		if (err)
			return err;
		return me < 0 ? walk(b, die, parent, depth) : walk(b, die, me, depth + 1);
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		return walk(b, die, parent, depth);
	default:
		/* Types, variables, parameters, call sites: no code inside. */
		return 0;
	}
}

static int walk(struct inl_build *b, Dwarf_Die *die, int32_t parent, uint32_t depth)
{
	Dwarf_Die child;
	int rc, err;

	rc = dwarf_child(die, &child);
	while (!rc) {
		err = visit(b, &child, parent, depth);
		if (err)
			return err;
		rc = dwarf_siblingof(&child, &child);
	}
	return 0;
}

/* Outer entries first at one address, so that inner ones stack on top. */
static int rng_cmp(const void *a, const void *b)
{
	const struct rng *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;
	/* Identical ranges: the first DIE ends on top, as dwarf_getscopes finds it. */
	return x->inl > y->inl ? -1 : x->inl < y->inl;
}

static int emit(struct inl_build *b, uint64_t lo, uint64_t hi, uint32_t inl)
{
	struct syms_cluster *c = b->c;
	struct syms_span *last = c->nspans ? &c->spans[c->nspans - 1] : NULL;

	if (lo >= hi)
		return 0;
	if (last && last->hi == lo && last->inl == inl) {
		last->hi = hi;
		return 0;
	}
	if (syms_grow((void **)&c->spans, &b->spans_cap, c->nspans + 1, sizeof(*c->spans)))
		return -ENOMEM;
	c->spans[c->nspans++] = (struct syms_span){ .lo = lo, .hi = hi, .inl = inl };
	return 0;
}

/*
 * Nested ranges into disjoint spans: a stack of the ranges open at pos; the
 * top one owns the address space until it closes or a deeper one opens.
 */
static int flatten(struct inl_build *b)
{
	size_t i, sp = 0;
	struct rng **stack;
	uint64_t pos = 0;
	int err = 0;

	if (b->nrngs > 1)
		qsort(b->rngs, b->nrngs, sizeof(*b->rngs), rng_cmp);
	stack = malloc((b->nrngs ? b->nrngs : 1) * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	for (i = 0; i <= b->nrngs && !err; i++) {
		uint64_t next = i < b->nrngs ? b->rngs[i].lo : UINT64_MAX;

		while (sp && stack[sp - 1]->hi <= next && !err) {
			err = emit(b, pos, stack[sp - 1]->hi, stack[sp - 1]->inl);
			if (stack[sp - 1]->hi > pos)
				pos = stack[sp - 1]->hi;
			sp--;
		}
		if (i == b->nrngs || err)
			break;
		if (sp)
			err = emit(b, pos, next, stack[sp - 1]->inl);
		if (next > pos)
			pos = next;
		stack[sp++] = &b->rngs[i];
	}
	free(stack);
	return err;
}

/* --- the CU index ----------------------------------------------------------- */

struct cu_index {
	struct syms_file *f;
	size_t cap;
	uint32_t ord;
	bool linked;
};

static int add_cu_range(struct cu_index *x, uint64_t lo, uint64_t hi, uint64_t cu)
{
	struct syms_file *f = x->f;

	if (syms_grow((void **)&f->ranges, &x->cap, f->nranges + 1, sizeof(*f->ranges)))
		return -ENOMEM;
	f->ranges[f->nranges++] = (struct syms_cu_range){ .lo = lo, .hi = hi, .cu = cu,
							  .ord = x->ord++ };
	return 0;
}

/*
 * A CU without address ranges stands for the extent of its line table
 * (libdw's rows are sorted by address); one with neither has no code.
 */
static int cu_extent(struct cu_index *x, Dwarf_Die *cudie, uint64_t cu)
{
	Dwarf_Addr lo = 0, hi = 0;
	Dwarf_Lines *lines;
	Dwarf_Line *line;
	size_t n, i;

	if (dwarf_getsrclines(cudie, &lines, &n) || !n)
		return 0;
	for (i = 0; i < n; i++) {
		line = dwarf_onesrcline(lines, i);
		if (line && !dwarf_lineaddr(line, &lo))
			break;
	}
	for (; n > i; n--) {
		line = dwarf_onesrcline(lines, n - 1);
		if (line && !dwarf_lineaddr(line, &hi))
			break;
	}
	if (i == n || lo >= hi)
		return 0;
	return add_cu_range(x, lo, hi, cu);
}

static int cu_ranges(struct cu_index *x, Dwarf_Die *cudie)
{
	uint64_t cu = dwarf_dieoffset(cudie);
	Dwarf_Addr base, lo, hi;
	size_t nranges = 0;
	ptrdiff_t off = 0;
	int err = 0;

	while (!err && (off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		nranges++;
		/* At 0 in a linked file: code the linker discarded. */
		if (lo < hi && !(x->linked && !lo))
			err = add_cu_range(x, lo, hi, cu);
	}
	return err || nranges ? err : cu_extent(x, cudie, cu);
}

static int range_cmp(const void *a, const void *b)
{
	const struct syms_cu_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Sorted ranges chained while the next one starts below the highest end. */
static int make_clusters(struct syms_file *f)
{
	size_t i, j, cap = 0;
	uint64_t hi;

	for (i = 0; i < f->nranges; i = j) {
		hi = f->ranges[i].hi;
		for (j = i + 1; j < f->nranges && f->ranges[j].lo < hi; j++)
			if (f->ranges[j].hi > hi)
				hi = f->ranges[j].hi;
		if (syms_grow((void **)&f->clusters, &cap, f->nclusters + 1, sizeof(*f->clusters)))
			return -ENOMEM;
		f->clusters[f->nclusters++] = (struct syms_cluster){
			.lo = f->ranges[i].lo, .hi = hi, .first = i, .n = j - i };
	}
	return 0;
}

static int index_cus(struct syms_file *f)
{
	struct cu_index x = { .f = f, .linked = f->nsegs > 0 };
	Dwarf_CU *cu = NULL;
	uint8_t unit_type;
	Dwarf_Half version;
	Dwarf_Die cudie;
	int err = 0;

	while (!err && !dwarf_get_units(f->dwarf, cu, &cu, &version, &unit_type, &cudie, NULL))
		if (unit_type == DW_UT_compile || unit_type == DW_UT_partial)
			err = cu_ranges(&x, &cudie);
	if (!err && f->nranges > 1)
		qsort(f->ranges, f->nranges, sizeof(*f->ranges), range_cmp);
	return err ? err : make_clusters(f);
}

/* --- one cluster's indexes ------------------------------------------------- */

/* The CU's rows and files into b; false if it has no line table. */
static int load_cu_lines(struct line_build *b, uint64_t cu, bool *have)
{
	Dwarf_Lines *lines;
	Dwarf_Die cudie;
	size_t n;
	int err;

	*have = false;
	if (!dwarf_offdie(b->f->dwarf, cu, &cudie) || dwarf_getsrclines(&cudie, &lines, &n))
		return 0;
	err = cu_files_load(b->f, &cudie, &b->cu);
	if (!err)
		err = cu_rows_load(b, lines, n);
	*have = !err;
	return err;
}

/*
 * The cluster's CU ranges in order (address, then discovery), each the rows
 * libdw answers there; where they overlap, the rows themselves sorted as
 * libdw would, and the last row of each address kept.
 */
static int build_lines(struct syms_file *f, struct syms_cluster *c)
{
	struct line_build b = { .f = f };
	const struct syms_cu_range *r;
	uint64_t cu = UINT64_MAX;
	bool have = false;
	uint32_t i;
	int err = 0;

	for (i = 0; i < c->n && !err; i++) {
		r = &f->ranges[c->first + i];
		if (r->cu != cu) {
			cu = r->cu;
			err = load_cu_lines(&b, cu, &have);
		}
		if (!err && have)
			err = cu_range(&b, r->lo, r->hi);
	}
	if (!err && b.nseqs > 1)
		err = sort_rows(b.rows, b.nrows);
	if (!err) {
		c->lines = b.rows;
		c->nlines = dedup_rows(b.rows, b.nrows);
		b.rows = NULL;
	}
	free(b.rows);
	free(b.cu_rows);
	free(b.cu.map);
	return err;
}

static int cu_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The cluster's CUs, each once, in the order they are stored. */
static uint64_t *cluster_cus(const struct syms_file *f, const struct syms_cluster *c, size_t *n)
{
	uint64_t *cus = malloc(c->n * sizeof(*cus));
	size_t i, out = 0;

	if (!cus)
		return NULL;
	for (i = 0; i < c->n; i++)
		cus[i] = f->ranges[c->first + i].cu;
	qsort(cus, c->n, sizeof(*cus), cu_cmp);
	for (i = 0; i < c->n; i++)
		if (!out || cus[out - 1] != cus[i])
			cus[out++] = cus[i];
	*n = out;
	return cus;
}

static int build_inlines(struct syms_file *f, struct syms_cluster *c)
{
	struct inl_build b = { .f = f, .c = c, .linked = f->nsegs > 0 };
	Dwarf_Die cudie;
	uint64_t *cus;
	size_t i, n;
	int err = 0;

	cus = cluster_cus(f, c, &n);
	if (!cus)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		if (!dwarf_offdie(f->dwarf, cus[i], &cudie))
			continue;
		err = cu_files_load(f, &cudie, &b.cu);
		if (!err)
			err = walk(&b, &cudie, -1, 0);
	}
	if (!err)
		err = flatten(&b);
	free(cus);
	free(b.rngs);
	free(b.cu.map);
	return err;
}

/* --- lookups ---------------------------------------------------------------- */

/*
 * How many of n sorted elements of size bytes start at or below addr, the
 * start being the uint64_t at offset off in each: one past the element
 * that covers addr, if any.
 */
static size_t count_at_or_below(const void *base, size_t n, size_t size, size_t off,
				uint64_t addr)
{
	size_t lo = 0, hi = n, mid;
	uint64_t start;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		memcpy(&start, (const char *)base + mid * size + off, sizeof(start));
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The cluster holding addr, or NULL; the CU index is read on the first call. */
static struct syms_cluster *cluster_of(struct syms_file *f, uint64_t addr, int *err)
{
	size_t i;

	*err = 0;
	if (!f->cus_done) {
		f->cus_done = true;
		if (f->dwarf)
			*err = index_cus(f);
		if (*err)
			return NULL;
	}
	i = count_at_or_below(f->clusters, f->nclusters, sizeof(*f->clusters),
			      offsetof(struct syms_cluster, lo), addr);
	if (!i || addr >= f->clusters[i - 1].hi)
		return NULL;
	return &f->clusters[i - 1];
}

/*
 * The cluster holding addr with its lines (or inlines) built, or NULL. A
 * build that ran out of memory is not tried again: that cluster answers
 * nothing.
 */
static struct syms_cluster *built_cluster(struct syms_file *f, uint64_t addr, bool lines,
					  int *err)
{
	struct syms_cluster *c = cluster_of(f, addr, err);
	bool *done;

	if (!c)
		return NULL;
	done = lines ? &c->lines_done : &c->inls_done;
	if (*done)
		return c;
	*done = true;
	*err = lines ? build_lines(f, c) : build_inlines(f, c);
	if (*err)
		return NULL;
	if (++f->built >= f->renew_dwarf)
		syms_file_renew_dwarf(f);
	return c;
}

int syms_dwarf_line(struct syms_file *f, uint64_t addr, const struct syms_line **row)
{
	struct syms_cluster *c;
	int err;
	size_t i;

	*row = NULL;
	c = built_cluster(f, addr, true, &err);
	if (!c)
		return err;
	i = count_at_or_below(c->lines, c->nlines, sizeof(*c->lines),
			      offsetof(struct syms_line, addr), addr);
	if (i && c->lines[i - 1].file != SYMS_LINE_GAP)
		*row = &c->lines[i - 1];
	return 0;
}

int syms_dwarf_inl(struct syms_file *f, uint64_t addr, int32_t *inl)
{
	struct syms_cluster *c;
	int err;
	size_t i;

	*inl = -1;
	c = built_cluster(f, addr, false, &err);
	if (!c)
		return err;
	i = count_at_or_below(c->spans, c->nspans, sizeof(*c->spans),
			      offsetof(struct syms_span, lo), addr);
	if (i && addr < c->spans[i - 1].hi)
		*inl = (int32_t)c->spans[i - 1].inl;
	return 0;
}

void syms_dwarf_free(struct syms_file *f)
{
	size_t i;

	for (i = 0; i < f->nfiles; i++)
		free(f->files[i]);
	for (i = 0; i < f->nclusters; i++) {
		free(f->clusters[i].lines);
		free(f->clusters[i].spans);
	}
	free(f->files);
	free(f->files_slots);
	free(f->ranges);
	free(f->clusters);
	free(f->inls);
	f->files = NULL;
	f->files_slots = NULL;
	f->ranges = NULL;
	f->clusters = NULL;
	f->inls = NULL;
	f->nfiles = f->files_cap = f->files_nslots = 0;
	f->nranges = f->nclusters = 0;
	f->ninls = f->inls_cap = 0;
	f->cus_done = false;
}
