// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* record --metric: the workload's own figure, from its output. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "run/metric.h"

/* "ops/s=([0-9]+)" -> "ops/s": the literal text a reader recognises. */
static void name_from_regex(const char *re, char *name, size_t len)
{
	size_t n = 0;

	for (; *re && *re != '(' && n + 1 < len; re++) {
		if (*re == '\\' && re[1]) {
			re++;
		} else if (strchr("^$.[]*+?{}|", *re)) {
			continue;
		}
		name[n++] = *re;
	}
	while (n && (isspace((unsigned char)name[n - 1]) || strchr("=:", name[n - 1])))
		n--;
	name[n] = '\0';
	if (!n)
		snprintf(name, len, "metric");
}

int metric__init(struct metric *m, const char *spec, char *why, size_t len)
{
	const char *eq = strchr(spec, '=');
	const char *re = spec;
	int err;

	memset(m, 0, sizeof(*m));
	/* "NAME=REGEX" when NAME is a plain word: "ops/s=..." is a regex. */
	if (eq && eq > spec && strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == (size_t)(eq - spec)) {
		snprintf(m->name, sizeof(m->name), "%.*s", (int)(eq - spec), spec);
		re = eq + 1;
	}
	err = regcomp(&m->re, re, REG_EXTENDED);
	if (err) {
		char msg[128];

		regerror(err, &m->re, msg, sizeof(msg));
		snprintf(why, len, "'%s': %s", re, msg);
		regfree(&m->re);
		return -EINVAL;
	}
	if (!m->name[0])
		name_from_regex(re, m->name, sizeof(m->name));
	return 0;
}

/* The first number in s[0..n): digits with an optional sign, point and exponent. */
static bool first_number(const char *s, size_t n, char *out, size_t len)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			continue;
		if (i && (s[i - 1] == '-' || s[i - 1] == '+'))
			i--;
		for (j = i + 1; j < n && (isdigit((unsigned char)s[j]) || strchr(".eE", s[j]) ||
					  ((s[j] == '-' || s[j] == '+') && strchr("eE", s[j - 1]))); j++)
			;
		snprintf(out, len, "%.*s", (int)(j - i), s + i);
		return true;
	}
	return false;
}

static void match_line(struct metric *m, const char *line)
{
	regmatch_t g[2];
	char v[64];

	if (regexec(&m->re, line, 2, g, 0))
		return;
	if (g[1].rm_so >= 0 ? first_number(line + g[1].rm_so, g[1].rm_eo - g[1].rm_so, v, sizeof(v)) :
			      first_number(line + g[0].rm_so, g[0].rm_eo - g[0].rm_so, v, sizeof(v))) {
		snprintf(m->value, sizeof(m->value), "%s", v);
		m->found = true;
	}
}

void metric__feed(struct metric *m, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			m->line[m->len] = '\0';
			match_line(m, m->line);
			m->len = 0;
		} else if (m->len + 1 < sizeof(m->line)) {	/* a longer line is cut */
			m->line[m->len++] = buf[i];
		}
	}
}

void metric__end(struct metric *m)
{
	if (!m->len)
		return;
	m->line[m->len] = '\0';
	match_line(m, m->line);
	m->len = 0;
}

void metric__free(struct metric *m)
{
	regfree(&m->re);
}
