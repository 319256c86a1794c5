// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A probe family's status in the profile's META: written as separate
 * keys, and read back from them or, in files written before they
 * existed, from the one sentence under probe.NAME, which is still
 * written for the readers of those versions.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "format/family_meta.h"

#define NOT_MEASURED	" not measured: "

static const char *const state_names[] = {
	[FSTATE_NOT_WANTED] = "not wanted",
	[FSTATE_ATTACHED] = "attached",
	[FSTATE_NOT_ATTACHED] = "not attached",
};

const char *family_state_name(enum family_state s)
{
	return s <= FSTATE_NOT_ATTACHED ? state_names[s] : "?";
}

static int parse_state(const char *s, enum family_state *out)
{
	size_t i;

	for (i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++) {
		if (!strcmp(s, state_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

const char *family_status_line(const struct family_status *st, char *buf, size_t len)
{
	if (st->state == FSTATE_NOT_WANTED)
		snprintf(buf, len, "not recorded");
	else if (st->state == FSTATE_NOT_ATTACHED)
		snprintf(buf, len, "not attached%s%s", st->why[0] ? ": " : "", st->why);
	else if (st->missing[0])
		snprintf(buf, len, "%s; %s" NOT_MEASURED "%s", st->mode, st->missing, st->why);
	else
		snprintf(buf, len, "%s%s%s", st->mode, st->why[0] ? "; " : "", st->why);
	return buf;
}

static void put_key(struct family_meta *out, const char *family, const char *field, const char *value)
{
	snprintf(out->keys[out->n], sizeof(out->keys[0]), "family.%s.%s", family, field);
	out->kv[out->n] = (struct kv){ out->keys[out->n], (char *)value };
	out->n++;
}

/* The state always, the other fields when they say something. */
void family_meta_keys(const char *family, const struct family_status *st, struct family_meta *out)
{
	out->n = 0;
	put_key(out, family, "state", family_state_name(st->state));
	if (st->state == FSTATE_ATTACHED && st->mode[0])
		put_key(out, family, "mode", st->mode);
	if (st->state == FSTATE_ATTACHED && st->missing[0])
		put_key(out, family, "missing", st->missing);
	if (st->why[0])
		put_key(out, family, "why", st->why);
	snprintf(out->keys[out->n], sizeof(out->keys[0]), "probe.%s", family_legacy_name(family));
	out->kv[out->n] = (struct kv){ out->keys[out->n],
		(char *)family_status_line(st, out->line, sizeof(out->line)) };
	out->n++;
}

static const char *field(const struct profile *p, const char *family, const char *name)
{
	char key[96];
	const char *v;

	snprintf(key, sizeof(key), "family.%s.%s", family, name);
	v = profile__meta(p, key);
	return v ? v : "";
}

/* "A; B not measured: C": what an attached family did without (fd's fget). */
static void parse_attached(const char *s, struct family_status *st)
{
	const char *semi = strstr(s, "; "), *word = semi ? semi + 2 : NULL;
	size_t n = word ? strcspn(word, " ") : 0;

	if (!word || n >= sizeof(st->missing) || strncmp(word + n, NOT_MEASURED, strlen(NOT_MEASURED))) {
		snprintf(st->mode, sizeof(st->mode), "%s", s);
		return;
	}
	snprintf(st->mode, sizeof(st->mode), "%.*s", (int)(semi - s), s);
	snprintf(st->missing, sizeof(st->missing), "%.*s", (int)n, word);
	snprintf(st->why, sizeof(st->why), "%s", word + n + strlen(NOT_MEASURED));
}

/*
 * probe.NAME as lockstat 0.1.0 wrote it. A file with no word on the
 * contention probes at all was shown as "not attached", the other
 * families as "not recorded": the same here.
 */
static void parse_sentence(const struct profile *p, const char *family, struct family_status *st)
{
	char key[96];
	const char *s;

	snprintf(key, sizeof(key), "probe.%s", family_legacy_name(family));
	s = profile__meta(p, key);
	if (!s) {
		st->state = strcmp(family, family_name(FAMILY_LOCKS)) ? FSTATE_NOT_WANTED : FSTATE_NOT_ATTACHED;
	} else if (!strcmp(s, "not recorded")) {
		st->state = FSTATE_NOT_WANTED;
	} else if (!strncmp(s, "not attached", 12)) {
		st->state = FSTATE_NOT_ATTACHED;
		snprintf(st->why, sizeof(st->why), "%s", s[12] == ':' ? s + 12 + 1 + (s[13] == ' ') : "");
	} else {
		st->state = FSTATE_ATTACHED;
		parse_attached(s, st);
	}
}

void family_meta_read(const struct profile *p, const char *family, struct family_status *st)
{
	memset(st, 0, sizeof(*st));
	if (parse_state(field(p, family, "state"), &st->state)) {
		parse_sentence(p, family, st);
		return;
	}
	snprintf(st->mode, sizeof(st->mode), "%s", field(p, family, "mode"));
	snprintf(st->missing, sizeof(st->missing), "%s", field(p, family, "missing"));
	snprintf(st->why, sizeof(st->why), "%s", field(p, family, "why"));
}

/* The name in "family.NAME.state", or in "probe.NAME" when legacy is set. */
static bool name_of_key(const char *key, bool legacy, char *name, size_t len)
{
	const char *prefix = legacy ? "probe." : "family.", *end;
	size_t n = strlen(prefix);

	if (strncmp(key, prefix, n))
		return false;
	key += n;
	end = legacy ? key + strlen(key) : strstr(key, ".state");
	if (!end || end == key || (!legacy && end[6]) || (size_t)(end - key) >= len)
		return false;
	snprintf(name, len, "%.*s", (int)(end - key), key);
	if (legacy && !strcmp(name, family_legacy_name(family_name(FAMILY_LOCKS))))
		snprintf(name, len, "%s", family_name(FAMILY_LOCKS));
	return true;
}

size_t family_meta_names(const struct profile *p, char (*names)[32], size_t max)
{
	size_t i, n = 0;
	int pass;

	/* Files written since the keys exist name every family by its state. */
	for (pass = 0; pass < 2 && !n; pass++)
		for (i = 0; i < p->nmeta && n < max; i++)
			if (name_of_key(p->meta[i].key, pass == 1, names[n], sizeof(names[0])))
				n++;
	return n;
}
