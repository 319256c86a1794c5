// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report --view hits: kernprof's hit list (function [address]
 * module: samples %), and the --callers / --callees call-graph views.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "base/log.h"
#include "report.h"

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * part / total : 0;
}

static size_t shown(const struct report *r, size_t n)
{
	return r->o.top_n && r->o.top_n < n ? r->o.top_n : n;
}

/* What the text adds to the header: the samples, the unnamed user functions by cause. */
static void print_hits_header(const struct report *r, const struct hits_view *v)
{
	uint32_t i;
	bool any = false;

	printf("# samples: %" PRIu64 " (kernel %.1f %%, user %.1f %%) at %s Hz per CPU\n", v->total,
	       pct(v->kernel, v->total), pct(v->total - v->kernel, v->total),
	       profile__meta_or(r->p, "sample_freq", "?"));
	printf("# unknown user functions:");
	for (i = 1; i < USYM__COUNT; i++) {
		if (!v->unknown[i])
			continue;
		printf("%s %s %" PRIu64, any ? "," : "", usym_why_str(i), v->unknown[i]);
		any = true;
	}
	if (v->truncated)
		printf("%s user stack truncated %" PRIu64, any ? "," : "", v->truncated);
	printf("%s\n#\n", any || v->truncated ? "" : " none");
}

enum {
	H_SAMPLES, H_PCT, H_SPACE, H_SYMBOL, H_ADDR, H_SOURCE, H_MODULE, H_KERNEL, H_ADDR_LINES,
	H_FILE, H_LINE, H__COUNT,
};

/*
 * One description for both hit lists: per function (no H_SOURCE, H_FILE,
 * H_LINE, H_ADDR_LINES) and per line (no H_ADDR: the address moves out
 * of the text, where file:line takes its place).
 */
static const struct out_col hit_cols[H__COUNT] = {
	[H_SAMPLES] = { "samples", "samples", COL_U64, 9, false },
	[H_PCT] = { "percent", "%", COL_PCT, 6, false },
	[H_SPACE] = { "space", "", COL_STR, 1, false },
	[H_SYMBOL] = { "symbol", "function", COL_STR, 28, true },
	[H_ADDR] = { "address", "[address]", COL_HEX, 18, false },
	[H_SOURCE] = { "source", "file:line", COL_STR, 30, true, OUT_NO_JSON },
	[H_MODULE] = { "module", "module", COL_STR, 0, true },
	[H_KERNEL] = { "kernel", NULL, COL_BOOL, 0, false },
	[H_ADDR_LINES] = { "address", NULL, COL_HEX, 0, false },
	[H_FILE] = { "file", NULL, COL_STR, 0, false },
	[H_LINE] = { "line", NULL, COL_U64, 0, false },
};

static bool in_mode(int c, bool lines)
{
	if (c == H_ADDR)
		return !lines;
	return lines || (c != H_SOURCE && c != H_ADDR_LINES && c != H_FILE && c != H_LINE);
}

static int hit_cols_of(bool lines, struct out_col *cols)
{
	int c, n = 0;

	for (c = 0; c < H__COUNT; c++)
		if (in_mode(c, lines))
			cols[n++] = hit_cols[c];
	return n;
}

static void put_hit(struct out_table *t, const struct hits_view *v, const struct hit *h, bool lines)
{
	char src[512];

	out_table__row_begin(t, 0);
	out_table__u64(t, h->samples);
	out_table__pct(t, pct(h->samples, v->total));
	out_table__str(t, h->kernel ? "k" : "u");
	out_table__str(t, h->function);
	if (lines)
		snprintf(src, sizeof(src), "%s:%u", h->file && *h->file ? h->file : "??", h->line);
	if (lines)
		out_table__str(t, src);
	else if (h->addr)
		out_table__hex(t, h->addr);
	else
		out_table__none(t);	/* not known: no name to start from */
	out_table__str(t, h->module);
	out_table__bool(t, h->kernel);
	if (lines) {
		if (h->addr)
			out_table__hex(t, h->addr);
		else
			out_table__none(t);
		out_table__str(t, h->file);
		if (h->file)
			out_table__u64(t, h->line);
	}
	out_table__row_end(t);
}

/* The samples counted and the user functions that could not be named, by cause. */
static void json_totals(struct json_writer *jw, const struct hits_view *v)
{
	uint32_t i;

	jw_u64_field(jw, "total_samples", v->total);
	jw_u64_field(jw, "kernel_samples", v->kernel);
	jw_name(jw, "unknown");
	jw_start_object(jw);
	for (i = 1; i < USYM__COUNT; i++)
		jw_u64_field(jw, usym_why_str(i), v->unknown[i]);
	jw_u64_field(jw, "user stack truncated", v->truncated);
	jw_end_object(jw);
}

static int print_list(const struct report *r, const struct hits_view *v)
{
	struct out_doc *d = report__doc(r);
	struct out_col cols[H__COUNT];
	struct out_table *t;
	size_t i;

	if (!d)
		return -ENOMEM;
	if (r->o.format == OUT_TEXT)
		print_hits_header(r, v);
	if (out_doc__jw(d))
		json_totals(out_doc__jw(d), v);
	t = out_doc__table(d, "functions", cols, hit_cols_of(r->o.lines, cols));
	for (i = 0; t && i < shown(r, v->n); i++)
		put_hit(t, v, &v->hits[i], r->o.lines);
	out_table__free(t);
	out_doc__free(d);
	return 0;
}

static const struct out_col edge_cols[] = {
	{ "samples", "samples", COL_U64, 9, false },
	{ "percent", "%", COL_PCT, 6, false },
	{ "space", "", COL_STR, 1, false },
	{ "symbol", "function", COL_STR, 28, true },
	{ "module", "module", COL_STR, 0, true },
};

static void print_graph(const struct report *r, const struct graph_view *g)
{
	struct out_table *t;
	size_t i;

	if (r->o.format == OUT_TEXT) {
		out_head__text(stdout, r->p, r->o.input);
		printf("# %s %s: %" PRIu64 " samples have it on their stack\n#\n",
		       r->o.graph_callers ? "callers of" : "callees of", r->o.graph_func, g->total);
	}
	t = out_table__new(stdout, r->o.format, edge_cols, 5);
	for (i = 0; t && i < shown(r, g->n); i++) {
		out_table__row_begin(t, 0);
		out_table__u64(t, g->edges[i].samples);
		out_table__pct(t, pct(g->edges[i].samples, g->total));
		/* [root] and [self] are neither kernel nor user. */
		out_table__str(t, g->edges[i].function[0] == '[' && !g->edges[i].module[0] ? "" :
			       g->edges[i].kernel ? "k" : "u");
		out_table__str(t, g->edges[i].function);
		out_table__str(t, g->edges[i].module);
		out_table__row_end(t);
	}
	out_table__free(t);
}

static int graph(const struct report *r)
{
	struct graph_view g;
	int err = graph_view__build(&g, r->p, &r->o.hits, r->o.graph_func, r->o.graph_callers);

	if (err) {
		pr_err("building the call graph: %s\n", strerror(-err));
		return err;
	}
	if (!g.total)
		pr_warn("no sampled stack contains '%s'\n", r->o.graph_func);
	print_graph(r, &g);
	graph_view__free(&g);
	return 0;
}

int print_hits(const struct report *r)
{
	struct hits_view v;
	int err;

	if (!r->p->nsample_buckets)
		pr_warn("%s has no samples (recorded without -e sample?)\n", r->o.input);
	if (r->o.graph_func)
		return graph(r);
	err = hits_view__build(&v, r->p, &r->o.hits, r->o.lines);
	if (err) {
		pr_err("building the hit list: %s\n", strerror(-err));
		return err;
	}
	hits_view__sort(&v, r->o.hits_sort);
	err = print_list(r, &v);
	hits_view__free(&v);
	return err;
}
