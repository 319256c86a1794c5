/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_REPORT_H
#define __LOCKSTAT_REPORT_H

/*
 * lockstat report: the options and the loaded profile (cmd-report.c),
 * handed to the printer of the view asked for, one file each
 * (report-locks.c, report-hits.c, report-tables.c, report-fd.c,
 * report-pagecache.c, report-cost.c for --cost).
 */
#include "base/json.h"
#include "out/head.h"
#include "out/output.h"
#include "format/profile.h"
#include "format/steal.h"
#include "view/view_hits.h"
#include "view/view_locks.h"

/* Each view is one entry of views[] in cmd-report.c. */
enum report_view { VIEW_LOCKS, VIEW_HITS, VIEW_TABLES, VIEW_FD, VIEW_PAGECACHE, VIEW_COST };

struct report_opts {
	const char *input;
	enum out_format format;
	enum report_view view;
	const char *sort_key;
	enum lock_sort sort;
	enum hits_sort hits_sort;
	unsigned long top_n;	/* 0: all */
	bool hist;
	bool stacks;
	bool lines;
	struct lock_filter filter;
	struct hits_filter hits;
	const char *graph_func;	/* --callers / --callees */
	bool graph_callers;
	const char *table;	/* --view tables: only this one */
	bool view_given;	/* --view: --cost is a view of its own */
};

struct report {
	struct report_opts o;
	struct profile *p;
	struct lock_view view;
	double cpu_ns;		/* duration x CPUs: the denominator of %cpu */
	struct steal_summary steal;	/* what explains a long spinning wait */
};

/*
 * The output document of a view: opened in the report's format, with
 * the profile's header (text comments, CSV none, JSON "meta" and "lost")
 * written. NULL when out of memory.
 */
struct out_doc *report__doc(const struct report *r);

int print_locks(const struct report *r);
int print_hits(const struct report *r);
int print_tables(const struct report *r);
int print_fd(const struct report *r);
int print_pagecache(const struct report *r);
int print_cost(const struct report *r);

#endif
