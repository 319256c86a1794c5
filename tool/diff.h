/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_DIFF_CMD_H
#define __LOCKSTAT_DIFF_CMD_H

/*
 * lockstat diff: the options and the runs (cmd-diff.c), handed to the
 * printers: text, JSON and CSV of the diff model (diff-table.c), or a
 * differential flame graph (diff-svg.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include "out/output.h"
#include "view/diff.h"

struct diff_cmd {
	struct diff_opts o;
	enum out_format format;
	bool svg;
	bool color;		/* dim the rows within noise */
	bool stats_set;		/* --alpha, --test or --adjust given */
	bool value_set;
	unsigned long top_n;
	const char **files[2];	/* base, patched */
	size_t nfiles[2];
	struct diff_run *runs;
	size_t nruns;
};

void print_diff(const struct diff_cmd *c, const struct diff *d);
int print_diff_svg(const struct diff_cmd *c, const struct diff_family_runs *fam);

#endif
