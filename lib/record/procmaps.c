// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/procmaps.h"
#include "sym/syms.h"

void maps_cache__init(struct maps_cache *mc, size_t max_fds)
{
	memset(mc, 0, sizeof(*mc));
	htab_init(&mc->seen, sizeof(uint32_t), sizeof(uint8_t));
	mc->max_fds = max_fds;
}

void maps_cache__free(struct maps_cache *mc)
{
	size_t i;

	for (i = 0; i < mc->n; i++) {
		free(mc->maps[i].path);
		if (mc->maps[i].fd >= 0)
			close(mc->maps[i].fd);
	}
	free(mc->maps);
	htab_free(&mc->seen);
	memset(mc, 0, sizeof(*mc));
}

int maps_cache__has(const struct maps_cache *mc, uint32_t tgid)
{
	return htab_find(&mc->seen, &tgid) != NULL;
}

/* "start-end perms offset dev inode   path": keep executable ones. */
int procmaps_parse_line(const char *line, struct proc_map *m)
{
	char perms[8], path[4096] = "";
	uint64_t start, end, off, inode;
	int n;

	n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %" SCNu64 " %4095[^\n]",
		   &start, &end, perms, &off, &inode, path);
	if (n < 5)
		return -EINVAL;
	if (perms[2] != 'x')
		return -ENOENT;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->fd = -1;
	m->path = strdup(path + strspn(path, " "));
	return m->path ? 0 : -ENOMEM;
}

/* Hold the file open while the process lives; read its build id. */
static void hold_file(struct maps_cache *mc, struct proc_map *m)
{
	char p[96];
	size_t len = sizeof(m->build_id);

	if (m->path[0] != '/' || mc->open_fds >= mc->max_fds)
		return;
	snprintf(p, sizeof(p), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, m->tgid, m->start, m->end);
	m->fd = open(p, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0)
		return;
	mc->open_fds++;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", m->fd);
	if (!syms_build_id(p, m->build_id, &len))
		m->build_id_len = len;
}

static int add_map(struct maps_cache *mc, struct proc_map *m)
{
	if (mc->n == mc->cap) {
		size_t cap = mc->cap ? mc->cap * 2 : 64;
		struct proc_map *grown = realloc(mc->maps, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		mc->maps = grown;
		mc->cap = cap;
	}
	mc->maps[mc->n++] = *m;
	return 0;
}

int maps_cache__capture(struct maps_cache *mc, uint32_t tgid)
{
	char path[64], line[4096 + 128];
	size_t first = mc->n;
	struct proc_map m;
	uint8_t *seen;
	FILE *f;
	int err = 0;

	seen = htab_get(&mc->seen, &tgid, NULL);
	if (!seen)
		return -ENOMEM;
	*seen = 1;
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		if (procmaps_parse_line(line, &m))
			continue;
		m.tgid = tgid;
		hold_file(mc, &m);
		err = add_map(mc, &m);
		if (err)
			free(m.path);
	}
	fclose(f);
	return err ? err : (int)first;
}

const struct proc_map *maps_cache__find(const struct maps_cache *mc, uint32_t tgid, uint64_t addr)
{
	size_t i;

	for (i = 0; i < mc->n; i++)
		if (mc->maps[i].tgid == tgid && addr >= mc->maps[i].start && addr < mc->maps[i].end)
			return &mc->maps[i];
	return NULL;
}
