/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_MATCH_H
#define __LOCKSTAT_MATCH_H

#include <stdbool.h>

/*
 * The one rule for every name pattern of the views (report's --lock,
 * --caller, --comm and --module, export's --comm, top's --lock, --caller,
 * --comm, --func and its filter prompt): a pattern with a glob character
 * (*, ? or [) is a shell pattern that must match the whole name
 * (fnmatch(3), no flags); a pattern without one matches anywhere inside
 * the name, as a word typed into top's prompt does. NULL or "" matches
 * every name.
 */
bool name_matches(const char *pattern, const char *name);

#endif
