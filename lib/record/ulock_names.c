// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "sym/syms.h"
#include "record/ulock_names.h"

struct ulock_name_key {
	uint32_t tgid;
	uint32_t __pad;
	uint64_t addr;
};

int ulock_names__init(struct ulock_names *n)
{
	struct syms_opts so = { .lines = false, .inlines = false };

	memset(n, 0, sizeof(*n));
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

int ulock_map_parse(const char *line, struct ulock_map *m)
{
	unsigned long long start, end, pgoff;
	int used = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %*s %llx %*s %*s%n", &start, &end, &pgoff, &used) != 3 || !used)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	line += used;
	line += strspn(line, " \t");
	snprintf(m->path, sizeof(m->path), "%.*s", (int)strcspn(line, "\n"), line);
	return 0;
}

static const struct ulock_map *file_start(const struct ulock_map *maps, size_t n,
					  const struct ulock_map *m)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (maps[i].pgoff == 0 && !strcmp(maps[i].path, m->path))
			return &maps[i];
	return m;
}

int ulock_map_find(const struct ulock_map *maps, size_t n, uint64_t addr, const struct ulock_map **ref)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ulock_map *m = &maps[i];

		if (addr < m->start || addr >= m->end)
			continue;
		if (!m->path[0] && i > 0 && maps[i - 1].end == m->start)
			m = &maps[i - 1];	/* .bss: anonymous, just after its file */
		if (m->path[0] != '/')
			return -ENOENT;
		*ref = file_start(maps, n, m);
		return 0;
	}
	return -ENOENT;
}

/* Every mapping of tgid, in address order as the kernel lists them. */
static int read_maps(uint32_t tgid, struct ulock_map **out, size_t *n)
{
	char path[64], line[512];
	size_t cap = 0;
	FILE *f;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (grow_array((void **)out, &cap, *n + 1, sizeof(**out))) {
			fclose(f);
			return -ENOMEM;
		}
		if (!ulock_map_parse(line, &(*out)[*n]))
			(*n)++;
	}
	fclose(f);
	return 0;
}

static const char *find_name(struct ulock_names *n, uint32_t tgid, uint64_t addr)
{
	const struct ulock_map *ref;
	struct ulock_map *maps;
	const char *name = NULL;
	size_t nmaps;

	if (read_maps(tgid, &maps, &nmaps))
		return NULL;
	if (!ulock_map_find(maps, nmaps, addr, &ref))
		syms__resolve_data(n->syms, ref->path, NULL, 0, ref->start, ref->pgoff, addr, &name);
	free(maps);
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
		*slot = strdup(comm);
	}
	return *slot ? *slot : "";
}
