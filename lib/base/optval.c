// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Option values (lib/base/optval.h): in lib/ so that the recording
 * options' table (lib/run/opts.c) parses with the same rules and
 * messages as every command's own options.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/optval.h"

/* Digits only: strtoul would take " -1" (and "-1") as ULONG_MAX. */
int parse_ulong(const char *opt, const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v = 0;

	errno = 0;
	if (isdigit((unsigned char)s[0]))
		v = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)s[0]) || errno || *end || v < min || v > max) {
		pr_err("%s: '%s' is not a whole number from %lu to %lu\n", opt, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int number_parse(const char *s, double *out)
{
	char *end;

	if (!isdigit((unsigned char)s[0]) && !(s[0] == '.' && isdigit((unsigned char)s[1])))
		return -EINVAL;
	if (strpbrk(s, "xXpP"))		/* strtod's hexadecimal floats */
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	return errno || *end || !isfinite(*out) ? -EINVAL : 0;
}

static int parse_range(const char *opt, const char *s, double min, double max, const char *what, double *out)
{
	double v;

	if (number_parse(s, &v) || v < min || v > max) {
		pr_err("%s: '%s' is not %s from %g to %g\n", opt, s, what, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int parse_double(const char *opt, const char *s, double min, double max, double *out)
{
	return parse_range(opt, s, min, max, "a number", out);
}

int parse_seconds(const char *opt, const char *s, double min, double max, double *out)
{
	return parse_range(opt, s, min, max, "a number of seconds", out);
}

int parse_path(const char *opt, const char *s, const char **out)
{
	if (!*s) {
		pr_err("%s: an empty file name\n", opt);
		return -EINVAL;
	}
	*out = s;
	return 0;
}
