/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_OPTVAL_H
#define __LOCKSTAT_OPTVAL_H

/*
 * Option values, checked whole and against their range (inclusive); 0 or
 * -EINVAL after a one-line error that gives the range.
 */
int parse_ulong(const char *opt, const char *s, unsigned long min, unsigned long max, unsigned long *out);
int parse_double(const char *opt, const char *s, double min, double max, double *out);
int parse_seconds(const char *opt, const char *s, double min, double max, double *out);
int parse_path(const char *opt, const char *s, const char **out);
/* A plain decimal number (no sign, space, hexadecimal, inf or nan): 0 or -EINVAL. */
int number_parse(const char *s, double *out);

#endif
