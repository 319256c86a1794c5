/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_EXP_H
#define __LOCKSTAT_EXP_H

/*
 * What lockstat ab and lockstat sweep share: the results directory, one
 * recording of a command (lockstat record run as a child, its output in
 * a log beside the profile), the runs loaded back for lib/view/diff.c,
 * and a file written whole or not at all.
 */
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "base/outfile.h"
#include "view/diff.h"

/* The options both commands take. */
struct exp_opts {
	unsigned long runs;	/* -r */
	const char *dir;	/* -o */
	const char *metric;	/* --metric, passed to record */
};

/*
 * Create dir, or take an empty one: a directory that holds anything is
 * refused, so that old results are never mixed with new ones. 0 or -errno
 * (said).
 */
int exp_dir_make(const char *dir);

/*
 * Record argv (NULL-terminated) into dir/name.data with record's defaults
 * and --metric, the workload's output and record's messages in
 * dir/name.log; with pin, lockstat record and the workload run on those
 * CPUs only. what names the run in the one-line error ("base run 2").
 * 0, or -EIO when the run failed (said, with the log to read).
 */
int exp_record(const struct exp_opts *o, const char *name, char *const *argv, const cpu_set_t *pin,
	       const char *what);

/* The profiles dir/NAME.data named by names[0..n), loaded as diff runs. */
int exp_load(const char *dir, char **names, size_t n, struct diff_run *runs);
void exp_unload(struct diff_run *runs, size_t n);

/* Mean, and the half-width of its 95 % t interval (NAN with one value). */
void exp_interval(const double *v, size_t n, double *mean, double *half);

/* A file of dir written whole: open it, fill f, then commit (said on error). */
struct exp_file {
	struct outfile out;
	FILE *f;
};

int exp_file_open(struct exp_file *x, const char *dir, const char *name);
int exp_file_commit(struct exp_file *x);

/* --metric: checked as record checks it, before any run. 0 or -EINVAL (said). */
int exp_metric_parse(struct exp_opts *o, const char *spec);

/* A figure for people: 1234567, 12.3, 0.123 (never 1.23457e+06). */
void exp_figure(char *buf, size_t len, double v);

/* "a b 'c d'": a command line as a shell would read it back, for messages. */
void exp_argv_text(char *buf, size_t len, char *const *argv);

#endif
