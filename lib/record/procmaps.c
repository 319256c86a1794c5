// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "base/buf.h"
#include "record/procmaps.h"
#include "sym/syms.h"

/* A file held open, shared by every mapping of it in every process. */
struct file_id {
	uint64_t dev;
	uint64_t ino;
};

struct held_file {
	int fd;
	uint32_t build_id_len;
	uint8_t build_id[20];
};

void maps_cache__init(struct maps_cache *mc, size_t max_fds)
{
	memset(mc, 0, sizeof(*mc));
	htab_init(&mc->procs, sizeof(uint32_t), sizeof(struct proc_maps *));
	htab_init(&mc->files, sizeof(struct file_id), sizeof(struct held_file));
	mc->max_fds = max_fds;
}

static void proc_clear(struct proc_maps *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->maps[i].path);
	free(p->maps);
	memset(p, 0, sizeof(*p));
}

void maps_cache__free(struct maps_cache *mc)
{
	struct proc_maps **p;
	struct held_file *f;
	size_t it = 0;

	while ((p = htab_next(&mc->procs, &it, NULL))) {
		proc_clear(*p);
		free(*p);
	}
	it = 0;
	while ((f = htab_next(&mc->files, &it, NULL)))
		if (f->fd >= 0)
			close(f->fd);
	htab_free(&mc->procs);
	htab_free(&mc->files);
	free(mc->unwritten);
	memset(mc, 0, sizeof(*mc));
}

static struct proc_maps *proc_find(const struct maps_cache *mc, uint32_t tgid)
{
	struct proc_maps **p = htab_find(&mc->procs, &tgid);

	return p ? *p : NULL;
}

static struct proc_maps *proc_get(struct maps_cache *mc, uint32_t tgid)
{
	struct proc_maps **p = htab_get(&mc->procs, &tgid, NULL);

	if (p && !*p)
		*p = calloc(1, sizeof(**p));
	return p ? *p : NULL;
}

bool maps_cache__announced(const struct maps_cache *mc, uint32_t tgid)
{
	const struct proc_maps *p = proc_find(mc, tgid);

	return p && p->announced;
}

/* "start-end perms offset major:minor inode   path": keep executable ones. */
int procmaps_parse_line(const char *line, struct proc_map *m)
{
	char perms[8], path[4096] = "";
	uint64_t start, end, off, inode;
	unsigned int major, minor;
	int n;

	n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %4095[^\n]",
		   &start, &end, perms, &off, &major, &minor, &inode, path);
	if (n < 7)
		return -EINVAL;
	if (perms[2] != 'x')
		return -ENOENT;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->dev = inode ? makedev(major, minor) : 0;
	m->ino = inode;
	m->fd = -1;
	m->path = strdup(path + strspn(path, " "));
	return m->path ? 0 : -ENOMEM;
}

static bool same_file_at(const struct proc_map *a, const struct proc_map *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->dev == b->dev && a->ino == b->ino && !strcmp(a->path, b->path);
}

static struct proc_map *known(struct proc_maps *p, const struct proc_map *m)
{
	size_t i;

	for (i = p->n; i-- > 0;)
		if (same_file_at(&p->maps[i], m))
			return &p->maps[i];
	return NULL;
}

/* Whether fd is the file the mapping names (when the mapping says which). */
static bool is_file(int fd, const struct proc_map *m)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	return !m->ino || (st.st_ino == m->ino && makedev(major(st.st_dev), minor(st.st_dev)) == m->dev);
}

/*
 * The mapped file itself while the process has it mapped, even deleted;
 * else the file by its name, if it is still the same file.
 */
static int open_mapped(const struct proc_map *m)
{
	char p[96];
	int fd;

	snprintf(p, sizeof(p), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, m->tgid, m->start, m->end);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !is_file(fd, m)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Hold the mapping's file open, once per file; read its build id. */
static void hold_file(struct maps_cache *mc, struct proc_map *m)
{
	struct file_id id = { .dev = m->dev, .ino = m->ino };
	struct held_file *f;
	char p[32];
	size_t len = sizeof(f->build_id);
	int fd, inserted;

	if (m->path[0] != '/' || m->fd >= 0)
		return;
	f = htab_find(&mc->files, &id);
	if (!f && mc->open_fds < mc->max_fds && (fd = open_mapped(m)) >= 0) {
		f = htab_get(&mc->files, &id, &inserted);
		if (!f) {
			close(fd);
			return;
		}
		f->fd = fd;
		mc->open_fds++;
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		if (!syms_build_id(p, f->build_id, &len))
			f->build_id_len = len;
	}
	if (!f)
		return;
	m->fd = f->fd;
	m->build_id_len = f->build_id_len;
	memcpy(m->build_id, f->build_id, sizeof(m->build_id));
}

/* p has mappings to write: remember it for maps_cache__write_new. */
static int queue_unwritten(struct maps_cache *mc, struct proc_maps *p, uint32_t tgid)
{
	if (p->queued || p->nwritten == p->n)
		return 0;
	if (grow_array((void **)&mc->unwritten, &mc->unwritten_cap, mc->nunwritten + 1,
		       sizeof(*mc->unwritten)))
		return -ENOMEM;
	mc->unwritten[mc->nunwritten++] = tgid;
	p->queued = true;
	return 0;
}

static int append(struct maps_cache *mc, struct proc_maps *p, const struct proc_map *m)
{
	struct proc_map *grown;
	size_t cap;

	if (p->n == p->cap) {
		cap = p->cap ? p->cap * 2 : 8;	/* most processes map a few files */
		grown = realloc(p->maps, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		p->maps = grown;
		p->cap = cap;
	}
	p->maps[p->n] = *m;
	p->maps[p->n].fd = -1;
	p->maps[p->n].path = strdup(m->path ? m->path : "");
	if (!p->maps[p->n].path)
		return -ENOMEM;
	if (p->announced)
		hold_file(mc, &p->maps[p->n]);
	p->n++;
	return p->announced ? queue_unwritten(mc, p, m->tgid) : 0;
}

int maps_cache__add(struct maps_cache *mc, const struct proc_map *m)
{
	struct proc_maps *p = proc_get(mc, m->tgid);
	struct proc_map *old;

	if (!p)
		return -ENOMEM;
	/* A mapping made after the exit: the PID is another process's now. */
	if (p->exited_ns && m->mapped_ns > p->exited_ns)
		p->exited_ns = 0;
	old = known(p, m);
	/* Read from /proc before its record came: now we know when it was made. */
	if (old && !old->mapped_ns)
		old->mapped_ns = m->mapped_ns;
	return old ? 0 : append(mc, p, m);
}

/* The executable mappings a maps file lists, not known already, as tgid's. */
static int read_maps_file(struct maps_cache *mc, struct proc_maps *p, FILE *f, uint32_t tgid)
{
	char line[4096 + 128];
	struct proc_map m;
	int err = 0;

	while (!err && fgets(line, sizeof(line), f)) {
		if (procmaps_parse_line(line, &m))
			continue;
		m.tgid = tgid;
		if (!known(p, &m))
			err = append(mc, p, &m);
		free(m.path);
	}
	return err;
}

int maps_cache__read_proc(struct maps_cache *mc, uint32_t tgid)
{
	struct proc_maps *p = proc_get(mc, tgid);
	char path[64];
	FILE *f;
	int err;

	if (!p)
		return -ENOMEM;
	if (p->proc_read)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	p->proc_read = true;
	err = read_maps_file(mc, p, f, tgid);
	fclose(f);
	return err;
}

int maps_cache__adopt_own(struct maps_cache *mc, uint32_t child)
{
	struct proc_maps *p = proc_get(mc, child);
	FILE *f;
	int err;

	if (!p)
		return -ENOMEM;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	err = read_maps_file(mc, p, f, child);
	fclose(f);
	return err;
}

void maps_cache__read_all(struct maps_cache *mc)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char *end;
	unsigned long pid;

	while (d && (e = readdir(d))) {
		pid = strtoul(e->d_name, &end, 10);
		if (!*end && pid > 0 && pid <= UINT32_MAX)
			maps_cache__read_proc(mc, pid);	/* gone since: nothing to read */
	}
	if (d)
		closedir(d);
}

int maps_cache__announce(struct maps_cache *mc, uint32_t tgid)
{
	struct proc_maps *p = proc_get(mc, tgid);
	size_t i;

	if (!p)
		return -ENOMEM;
	if (p->announced)
		return 0;
	p->announced = true;
	for (i = 0; i < p->n; i++)
		hold_file(mc, &p->maps[i]);
	return queue_unwritten(mc, p, tgid);
}

void maps_cache__exited(struct maps_cache *mc, uint32_t tgid, uint64_t when)
{
	struct proc_maps *p = proc_find(mc, tgid);

	if (p)
		p->exited_ns = when;
}

void maps_cache__set_comm(struct maps_cache *mc, uint32_t tgid, const char *comm)
{
	struct proc_maps *p = proc_get(mc, tgid);

	if (p)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
}

const char *maps_cache__comm(const struct maps_cache *mc, uint32_t tgid)
{
	const struct proc_maps *p = proc_find(mc, tgid);

	return p ? p->comm : "";
}

/* Whether a, made at ta, is a better answer than b for a PC seen at seen. */
static bool better(uint64_t ta, uint64_t tb, uint64_t seen)
{
	bool a_ok = !seen || ta <= seen, b_ok = !seen || tb <= seen;

	if (a_ok != b_ok)
		return a_ok;
	return a_ok ? ta >= tb : ta < tb;	/* the last one made by then, else the first one after */
}

const struct proc_map *maps_cache__find(const struct maps_cache *mc, uint32_t tgid, uint64_t addr,
					uint64_t seen_ns)
{
	const struct proc_maps *p = proc_find(mc, tgid);
	const struct proc_map *best = NULL, *m;
	size_t i;

	for (i = 0; p && i < p->n; i++) {
		m = &p->maps[i];
		if (addr < m->start || addr >= m->end)
			continue;
		if (!best || better(m->mapped_ns, best->mapped_ns, seen_ns))
			best = m;
	}
	return best;
}

const struct proc_map *maps_cache__data_map(const struct maps_cache *mc, uint32_t tgid, uint64_t addr)
{
	const struct proc_maps *p = proc_find(mc, tgid);
	const struct proc_map *best = NULL, *m;
	size_t i;

	for (i = 0; p && i < p->n; i++) {
		m = &p->maps[i];
		if (m->path[0] != '/' || m->start > addr)
			continue;
		if (!best || m->start > best->start ||
		    (m->start == best->start && m->mapped_ns >= best->mapped_ns))
			best = m;
	}
	return best;
}

static bool gone_before(const struct proc_maps *p, uint64_t before)
{
	return p->exited_ns && p->exited_ns < before;
}

void maps_cache__purge(struct maps_cache *mc, uint64_t before)
{
	struct proc_maps **p;
	size_t it = 0;

	while ((p = htab_next(&mc->procs, &it, NULL)))
		if (!(*p)->announced && gone_before(*p, before))
			proc_clear(*p);
}

size_t maps_cache__exited_held(const struct maps_cache *mc, uint64_t before)
{
	struct proc_maps **p;
	size_t it = 0, n = 0;

	while ((p = htab_next(&mc->procs, &it, NULL)))
		n += (*p)->n && gone_before(*p, before);
	return n;
}

size_t maps_cache__forget_exited(struct maps_cache *mc, uint64_t before,
				 void (*forgot)(void *ctx, uint32_t tgid), void *ctx)
{
	const uint32_t *tgid;
	struct proc_maps **p;
	size_t it = 0, n = 0;

	while ((p = htab_next(&mc->procs, &it, (const void **)&tgid)))
		if ((*p)->n && gone_before(*p, before)) {
			proc_clear(*p);
			if (forgot)
				forgot(ctx, *tgid);
			n++;
		}
	return n;
}

bool maps_cache__known(const struct maps_cache *mc, uint32_t tgid)
{
	const struct proc_maps *p = proc_find(mc, tgid);

	return p && p->n;
}

int maps_cache__write_new(struct maps_cache *mc, maps_write_fn fn, void *ctx)
{
	struct proc_maps *p;
	size_t i;
	int err = 0;

	for (i = 0; i < mc->nunwritten && !err; i++) {
		/* Gone since (purged, forgotten): nothing of it to write. */
		p = proc_find(mc, mc->unwritten[i]);
		if (!p || !p->queued)
			continue;
		p->queued = false;
		if (!p->announced || p->nwritten == p->n)
			continue;
		err = fn(ctx, p->maps + p->nwritten, p->n - p->nwritten);
		if (!err)
			p->nwritten = p->n;
	}
	/* What a write error left is not written: the profile stops there. */
	mc->nunwritten = 0;
	return err;
}
