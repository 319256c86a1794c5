// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sym/syms.h"
#include "record/ulock_names.h"

struct ulock_name_key {
	uint32_t tgid;
	uint32_t __pad;
	uint64_t addr;
};

int ulock_names__init(struct ulock_names *n, struct maps_cache *maps)
{
	struct syms_opts so = { .lines = false, .inlines = false };

	memset(n, 0, sizeof(*n));
	n->maps = maps;
	htab_init(&n->locks, sizeof(struct ulock_name_key), sizeof(char *));
	htab_init(&n->comms, sizeof(uint32_t), sizeof(char *));
	n->syms = syms__new(&so);
	return n->syms ? 0 : -ENOMEM;
}

static void free_strings(struct htab *h)
{
	char **s;
	size_t it = 0;

	while ((s = htab_next(h, &it, NULL)))
		free(*s);
	htab_free(h);
}

void ulock_names__free(struct ulock_names *n)
{
	free_strings(&n->locks);
	free_strings(&n->comms);
	syms__free(n->syms);
	memset(n, 0, sizeof(*n));
}

/* The variable at addr, in the file mapped just below it. */
static const char *find_name(struct ulock_names *n, uint32_t tgid, uint64_t addr)
{
	const struct proc_map *m = maps_cache__data_map(n->maps, tgid, addr);
	const char *name = NULL;
	char fdpath[32];

	if (!m && !maps_cache__read_proc(n->maps, tgid))
		m = maps_cache__data_map(n->maps, tgid, addr);
	if (!m)
		return NULL;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", m->fd);
	syms__resolve_data(n->syms, m->fd >= 0 ? fdpath : m->path, m->build_id, m->build_id_len,
			   m->start, m->pgoff, addr, &name);
	return name;
}

const char *ulock_names__lock(struct ulock_names *n, uint32_t tgid, uint64_t addr)
{
	struct ulock_name_key k = { .tgid = tgid, .addr = addr };
	const char *name;
	int inserted;
	char **slot = htab_get(&n->locks, &k, &inserted);

	if (!slot)
		return "";
	if (inserted) {
		name = find_name(n, tgid, addr);
		*slot = strdup(name ? name : "");
	}
	return *slot ? *slot : "";
}

const char *ulock_names__comm(struct ulock_names *n, uint32_t tgid)
{
	char path[64], comm[32] = "";
	int inserted;
	char **slot = htab_get(&n->comms, &tgid, &inserted);
	FILE *f;

	if (!slot)
		return "";
	if (inserted) {
		snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
		f = fopen(path, "re");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		comm[strcspn(comm, "\n")] = '\0';
		*slot = strdup(comm[0] ? comm : maps_cache__comm(n->maps, tgid));
	}
	return *slot ? *slot : "";
}
