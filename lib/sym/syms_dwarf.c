// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DWARF side of the symbolizer: two sorted indexes built by walking every
 * CU once, instead of libdw's per-address dwarf_addrdie/dwarf_getscopes
 * (two orders of magnitude slower on a 20,000-address batch):
 *  - the line table of all CUs, each clipped to its CU's address ranges,
 *    one row per address (the row libdw picks there), gaps where no
 *    sequence covers code;
 *  - the inline index: every subprogram and inlined subroutine with its
 *    parent, flattened into disjoint spans that each name the deepest
 *    entry covering them, so a lookup is one binary search plus a walk up
 *    the parent links.
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

struct seq {			/* rows [first, first + n) of one CU range [lo, hi) */
	size_t first;
	size_t n;
	uint64_t lo, hi;
};

struct line_build {
	struct syms_file *f;
	struct syms_line *rows;	/* CU order, each CU range contiguous */
	size_t nrows, rows_cap;
	struct seq *seqs;
	size_t nseqs, seqs_cap;
	struct syms_line *cu_rows;	/* the current CU's table, libdw's order */
	size_t cu_nrows, cu_cap;
	struct cu_files cu;
	bool linked;		/* code never starts at address 0 */
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
	size_t i = cu_row_at(b, lo), first = b->nrows;
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
	if (err || syms_grow((void **)&b->seqs, &b->seqs_cap, b->nseqs + 1, sizeof(*b->seqs)))
		return -ENOMEM;
	b->seqs[b->nseqs++] = (struct seq){ .first = first, .n = b->nrows - first, .lo = lo, .hi = hi };
	return 0;
}

/* A CU without address ranges: all its rows. */
static int cu_all(struct line_build *b)
{
	if (!b->cu_nrows)
		return 0;
	return cu_range(b, b->cu_rows[0].addr, b->cu_rows[b->cu_nrows - 1].addr);
}

static int cu_lines(struct line_build *b, Dwarf_Die *cudie)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	Dwarf_Lines *lines;
	size_t n, nranges = 0;
	int err;

	if (dwarf_getsrclines(cudie, &lines, &n))
		return 0;
	err = cu_files_load(b->f, cudie, &b->cu);
	if (!err)
		err = cu_rows_load(b, lines, n);
	while (!err && (off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		nranges++;
		/* At 0 in a linked file: code the linker discarded. */
		if (lo < hi && !(b->linked && !lo))
			err = cu_range(b, lo, hi);
	}
	return err || nranges ? err : cu_all(b);
}

static int seq_cmp(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
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

/*
 * Sequences of one CU are already sorted by libdw; sorting whole sequences
 * by start orders everything but the clusters of sequences that overlap
 * (CUs claiming the same code, as a few of glibc's do): only those rows
 * are sorted one by one.
 */
static int order_rows(struct line_build *b, struct syms_line **out)
{
	size_t i, j, n = 0, start;
	struct syms_line *rows;
	uint64_t hi;
	int err = 0;

	if (b->nseqs > 1)
		qsort(b->seqs, b->nseqs, sizeof(*b->seqs), seq_cmp);
	rows = malloc((b->nrows ? b->nrows : 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	*out = rows;
	for (i = 0; i < b->nseqs && !err; i = j) {
		start = n;
		hi = b->seqs[i].hi;
		for (j = i; j < b->nseqs && (j == i || b->seqs[j].lo < hi); j++) {
			memcpy(rows + n, b->rows + b->seqs[j].first, b->seqs[j].n * sizeof(*rows));
			n += b->seqs[j].n;
			if (b->seqs[j].hi > hi)
				hi = b->seqs[j].hi;
		}
		if (j - i > 1)
			err = sort_rows(rows + start, n - start);
	}
	return err;
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

static int build_lines(struct syms_file *f)
{
	struct line_build b = { .f = f, .linked = f->nsegs > 0 };
	Dwarf_CU *cu = NULL;
	uint8_t unit_type;
	Dwarf_Half version;
	Dwarf_Die cudie;
	int err = 0;

	while (!err && !dwarf_get_units(f->dwarf, cu, &cu, &version, &unit_type, &cudie, NULL))
		if (unit_type == DW_UT_compile || unit_type == DW_UT_partial)
			err = cu_lines(&b, &cudie);
	if (!err)
		err = order_rows(&b, &f->lines);
	if (!err)
		f->nlines = dedup_rows(f->lines, b.nrows);
	free(b.rows);
	free(b.seqs);
	free(b.cu_rows);
	free(b.cu.map);
	return err;
}

int syms_dwarf_lines(struct syms_file *f)
{
	int err = 0;

	if (f->lines_done)
		return 0;
	f->lines_done = true;
	if (f->dwarf)
		err = build_lines(f);
	return err;
}

const struct syms_line *syms_dwarf_line(const struct syms_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nlines, mid;
	const struct syms_line *row;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	row = &f->lines[lo - 1];
	return row->file == SYMS_LINE_GAP ? NULL : row;
}

/* --- inline index ---------------------------------------------------------- */

struct rng {
	uint64_t lo, hi;
	uint32_t inl;
	uint32_t depth;
};

struct inl_build {
	struct syms_file *f;
	struct cu_files cu;	/* for DW_AT_call_file */
	struct rng *rngs;
	size_t nrngs, rngs_cap;
	size_t inls_cap, spans_cap;
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

static int add_ranges(struct inl_build *b, Dwarf_Die *die, uint32_t inl, uint32_t depth)
{
	Dwarf_Addr base, lo, hi;
	size_t before = b->nrngs;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi || (b->linked && !lo))
			continue;
		if (syms_grow((void **)&b->rngs, &b->rngs_cap, b->nrngs + 1, sizeof(*b->rngs)))
			return -ENOMEM;
		b->rngs[b->nrngs++] = (struct rng){ .lo = lo, .hi = hi, .inl = inl, .depth = depth };
	}
	return b->nrngs > before;
}

/* *idx: the new entry, or -1 when the DIE covers no code. */
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
	if (syms_grow((void **)&f->inls, &b->inls_cap, f->ninls + 1, sizeof(*f->inls)))
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
	struct syms_file *f = b->f;
	struct syms_span *last = f->nspans ? &f->spans[f->nspans - 1] : NULL;

	if (lo >= hi)
		return 0;
	if (last && last->hi == lo && last->inl == inl) {
		last->hi = hi;
		return 0;
	}
	if (syms_grow((void **)&f->spans, &b->spans_cap, f->nspans + 1, sizeof(*f->spans)))
		return -ENOMEM;
	f->spans[f->nspans++] = (struct syms_span){ .lo = lo, .hi = hi, .inl = inl };
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

static int build_inlines(struct syms_file *f)
{
	struct inl_build b = { .f = f, .linked = f->nsegs > 0 };
	Dwarf_CU *cu = NULL;
	uint8_t unit_type;
	Dwarf_Half version;
	Dwarf_Die cudie;
	int err = 0;

	while (!err && !dwarf_get_units(f->dwarf, cu, &cu, &version, &unit_type, &cudie, NULL)) {
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		err = cu_files_load(f, &cudie, &b.cu);
		if (!err)
			err = walk(&b, &cudie, -1, 0);
	}
	if (!err)
		err = flatten(&b);
	free(b.rngs);
	free(b.cu.map);
	return err;
}

int syms_dwarf_inlines(struct syms_file *f)
{
	if (f->inls_done)
		return 0;
	f->inls_done = true;
	return f->dwarf ? build_inlines(f) : 0;
}

int32_t syms_dwarf_inl(const struct syms_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nspans, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->spans[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= f->spans[lo - 1].hi)
		return -1;
	return (int32_t)f->spans[lo - 1].inl;
}

void syms_dwarf_free(struct syms_file *f)
{
	size_t i;

	for (i = 0; i < f->nfiles; i++)
		free(f->files[i]);
	free(f->files);
	free(f->files_slots);
	free(f->lines);
	free(f->inls);
	free(f->spans);
	f->lines = NULL;
	f->files = NULL;
	f->files_slots = NULL;
	f->inls = NULL;
	f->spans = NULL;
	f->nlines = f->nfiles = f->files_cap = f->files_nslots = 0;
	f->ninls = f->nspans = 0;
}
