// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include "base/nsfmt.h"

/* n / d rounded half up, without the overflow of (n + d / 2) / d. */
static unsigned long long div_round(unsigned long long n, unsigned long long d)
{
	return n / d + (n % d >= d - d / 2);
}

void fmt_ns(char *buf, size_t len, unsigned long long ns)
{
	static const struct {
		unsigned long long ns;
		const char *name;
	} units[] = { { 1000ULL, "us" }, { 1000000ULL, "ms" },
		      { 1000000000ULL, "s" } };
	unsigned long long centi;
	size_t i;

	if (ns < 1000) {
		snprintf(buf, len, "%llu ns", ns);
		return;
	}
	/* Integer hundredths: exact, and 999999 ns reads "1.00 ms". */
	for (i = 0;; i++) {
		centi = div_round(ns, units[i].ns / 100);
		if (centi < 100000 || i == sizeof(units) / sizeof(units[0]) - 1)
			break;
	}
	snprintf(buf, len, "%llu.%02llu %s", centi / 100, centi % 100,
		 units[i].name);
}
