// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <fnmatch.h>
#include <string.h>
#include "view/match.h"

bool name_matches(const char *pattern, const char *name)
{
	if (!pattern || !*pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return !fnmatch(pattern, name, 0);
	return strstr(name, pattern) != NULL;
}
