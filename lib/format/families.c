// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The probe families and their counter tables, from lib/format/families.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "format/families.h"

static const struct {
	const char *name;
	unsigned int flags;
	const char *what;
} families[FAMILY_COUNT] = {
#define FAMILY_ENTRY(NAME, name, fl, help)	[FAMILY_I_##NAME] = { #name, fl, help },
	LOCKSTAT_FAMILIES(FAMILY_ENTRY)
#undef FAMILY_ENTRY
};

static int index_of(enum family f)
{
	return f && __builtin_ctz(f) < FAMILY_COUNT ? __builtin_ctz(f) : -1;
}

unsigned int family_mask(unsigned int flags)
{
	unsigned int mask = 0;
	int i;

	for (i = 0; i < FAMILY_COUNT; i++)
		if ((families[i].flags & flags) == flags)
			mask |= 1U << i;
	return mask;
}

unsigned int family_flags(enum family f)
{
	return index_of(f) < 0 ? 0 : families[index_of(f)].flags;
}

const char *family_name(enum family f)
{
	return index_of(f) < 0 ? "?" : families[index_of(f)].name;
}

const char *family_what(enum family f)
{
	return index_of(f) < 0 ? "?" : families[index_of(f)].what;
}

const char *family_legacy_name(const char *family)
{
	/* The contention probes had their META key before families had names. */
	return strcmp(family, family_name(FAMILY_LOCKS)) ? family : "contention";
}

const char *family_names_list(void)
{
	static char list[128];
	size_t used = 0;
	int i;

	for (i = 0; i < FAMILY_COUNT && used < sizeof(list); i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", families[i].name);
	return list;
}

int family_parse(const char *list, unsigned int *mask, const char **bad)
{
	static char word[64];
	const char *p = list;
	int i;

	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ",");

		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		for (i = 0; i < FAMILY_COUNT; i++)
			if (!strcmp(word, families[i].name))
				break;
		if (i == FAMILY_COUNT) {
			*bad = word;
			return -EINVAL;
		}
		*mask |= 1U << i;
		p += n + (p[n] == ',');
	}
	*bad = "";
	return *mask ? 0 : -EINVAL;
}

const char *family_names_or(unsigned int flags, char *buf, size_t len)
{
	unsigned int mask = family_mask(flags);
	size_t used = 0;
	int i, left = __builtin_popcount(mask);

	buf[0] = '\0';
	for (i = 0; i < FAMILY_COUNT && used < len; i++) {
		if (!(mask & 1U << i))
			continue;
		left--;
		used += snprintf(buf + used, len - used, "%s%s", families[i].name,
				 !left ? "" : left == 1 ? " or " : ", ");
	}
	return buf;
}

struct wrap {
	char *buf;
	size_t len, used;
	int col, indent, width;
	bool fresh;		/* at the start of a line: no space before the word */
};

/* One word, on this line if it ends by column width, else on the next. */
static void put_word(struct wrap *w, const char *word, int n)
{
	if (!w->fresh && w->col + 1 + n > w->width) {
		w->used += snprintf(w->buf + w->used, w->len - w->used, "\n%*s", w->indent, "");
		w->col = w->indent;
		w->fresh = true;
	}
	if (w->used < w->len && !w->fresh) {
		w->used += snprintf(w->buf + w->used, w->len - w->used, " ");
		w->col++;
	}
	if (w->used < w->len)
		w->used += snprintf(w->buf + w->used, w->len - w->used, "%.*s", n, word);
	w->col += n;
	w->fresh = false;
}

static void put_words(struct wrap *w, const char *text)
{
	while (*text && w->used < w->len) {
		int n = strcspn(text, " ");

		put_word(w, text, n);
		text += n + strspn(text + n, " ");
	}
}

const char *family_default_names(void)
{
	static char list[128];
	size_t n = 0;
	int i;

	list[0] = '\0';
	for (i = 0; i < FAMILY_COUNT && n < sizeof(list); i++)
		if ((families[i].flags & (FAM_DEFAULT | FAM_WITH_LOCKS)) == FAM_DEFAULT)
			n += snprintf(list + n, sizeof(list) - n, "%s%s", n ? "," : "", families[i].name);
	return list;
}

/*
 * "probe families: locks, sample, ... (default locks,sample; mmap_lock
 * comes with locks); -NAME takes one out (alone: out of the default)".
 */
const char *family_events_help(int indent, int width)
{
	static char help[1024];
	char text[512];
	struct wrap w = { help, sizeof(help), 0, indent, indent, width, true };
	size_t n;
	int i;

	n = snprintf(text, sizeof(text), "probe families: %s (default %s", family_names_list(),
		     family_default_names());
	for (i = 0; i < FAMILY_COUNT && n < sizeof(text); i++)
		if (families[i].flags & FAM_WITH_LOCKS)
			n += snprintf(text + n, sizeof(text) - n, "; %s comes with %s", families[i].name,
				      family_name(FAMILY_LOCKS));
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n, "); -NAME takes one out (alone: out of the default)");
	put_words(&w, text);
	return help;
}

/* The tables' columns, then their schemas, by TBL_ id. */
#define COL_INIT(T, COL, name, kind, ...)	{ #name, TCOL_##kind, __VA_ARGS__ },
#define TABLE_COLS(ID, name, COLS)	static const struct tcol ID##_cols[] = { COLS(COL_INIT, ID) };
LOCKSTAT_TABLES(TABLE_COLS)
#undef TABLE_COLS

static const struct tschema schemas[TBL__COUNT] = {
#define TABLE_SCHEMA(ID, name, COLS)	[TBL_##ID] = { name, ID##__NCOLS, ID##_cols },
	LOCKSTAT_TABLES(TABLE_SCHEMA)
#undef TABLE_SCHEMA
};

_Static_assert(ULOCKS__HIST_0 + LS_HIST_SLOTS == ULOCKS__NCOLS, "one ulocks column per hist slot");
_Static_assert((int)ULOCKS__COMM == ULOCKS_WAKERS__COMM && (int)ULOCKS__COMM == ULOCKS_HOLDS__COMM,
	       "the ulocks row tables share their key columns");

const struct tschema *ls_schema(enum ls_table id)
{
	return &schemas[id];
}

const char *ls_col_name(enum ls_table id, unsigned int col)
{
	return schemas[id].cols[col].name;
}

int ls_table_of(const char *name)
{
	int i;

	for (i = 0; i < TBL__COUNT; i++)
		if (!strcmp(schemas[i].name, name))
			return i;
	return -1;
}

bool ls_table_is_lost(const struct tschema *s)
{
	size_t n = strlen(s->name);

	return n >= 5 && !strcmp(s->name + n - 5, ".lost");
}
