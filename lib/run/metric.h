/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_METRIC_H
#define __LOCKSTAT_METRIC_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * record --metric REGEX: the workload's own figure of merit, read from
 * its standard output as it goes by (the output is passed on unchanged).
 * The last line that matches wins: a benchmark prints its result last.
 * The value is the regex's first group, or else the first number in the
 * match; the name is NAME from "NAME=REGEX", or else the regex's literal
 * text before its first group ("ops/s=([0-9]+)" -> "ops/s").
 */
#define METRIC_LINE_MAX	4096

struct metric {
	regex_t re;
	char name[64];
	char value[64];
	bool found;
	char line[METRIC_LINE_MAX];
	size_t len;
};

/* 0, or -EINVAL with the reason in why. */
int metric__init(struct metric *m, const char *spec, char *why, size_t len);
/* Output of the workload, in pieces as they come. */
void metric__feed(struct metric *m, const char *buf, size_t n);
/* The workload is done: a last line without its newline still counts. */
void metric__end(struct metric *m);
void metric__free(struct metric *m);

#endif
