// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The symbolizer object: the per-file cache, the result assembly (symbol +
 * inline chain + line) and perf maps. ELF work is in syms_elf.c, DWARF
 * indexes in syms_dwarf.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#define __LOCKSTAT_SYMS_PRIVATE
#include "sym/syms.h"

/* libstdc++; declared here so that C code needs no C++ header. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SYMS_BUCKETS	256
#define CHAIN_MAX	256	/* bound on an inline chain walk */

/*
 * 64 indexes of about 8 KiB of libdw's each (libc's CUs on average) between
 * renewals: a renewal costs libdw reading every CU header again, and
 * renewing after every index tripled the time of PCs spread over libc.
 */
#define SYMS_RENEW_DWARF	64

struct dm_slot {
	const char *raw;
	char *dem;		/* NULL: raw does not demangle */
};

struct pmap_ent {
	uint64_t start;
	uint64_t size;
	char *name;
	size_t order;		/* line number: later lines win ties */
};

struct pmap {
	struct pmap *next;
	int pid;
	off_t size;		/* of the map file when read */
	struct pmap_ent *ents;
	size_t n;
};

struct syms {
	struct syms_opts opts;
	char *debug_root;
	struct syms_file *buckets[SYMS_BUCKETS];
	struct syms_file *last;	/* most recent hit: stacks repeat files */
	size_t nfiles;		/* in the buckets */
	uint64_t tick;		/* lookups so far */
	struct dm_slot *dm;	/* demangle cache keyed by raw pointer */
	size_t dm_cap, dm_count;
	struct pmap *pmaps;
};

const char *syms_why_str(enum syms_why why)
{
	switch (why) {
	case SYMS_OK:			return "ok";
	case SYMS_NO_FILE:		return "file not found";
	case SYMS_BUILD_ID_MISMATCH:	return "build id mismatch";
	case SYMS_NOT_ELF:		return "not an ELF file";
	case SYMS_NO_SYMTAB:		return "no symbol table";
	case SYMS_NO_SYMBOL:		return "no symbol";
	}
	return "unknown";
}

int syms_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

const char *syms_debug_root(const struct syms *s)
{
	return s->debug_root;
}

struct syms *syms__new(const struct syms_opts *opts)
{
	struct syms *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (opts) {
		s->opts = *opts;
	} else {
		s->opts.lines = true;
		s->opts.inlines = true;
	}
	s->debug_root = strdup(s->opts.debug_root ? s->opts.debug_root : "/usr/lib/debug");
	if (!s->debug_root) {
		free(s);
		return NULL;
	}
	s->opts.debug_root = s->debug_root;
	return s;
}

static void pmap_clear(struct pmap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->ents[i].name);
	free(m->ents);
	m->ents = NULL;
	m->n = 0;
}

void syms__free(struct syms *s)
{
	struct syms_file *f, *next;
	struct pmap *m, *mnext;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < SYMS_BUCKETS; i++) {
		for (f = s->buckets[i]; f; f = next) {
			next = f->next;
			syms_file_close(f);
			free(f->path);
			free(f);
		}
	}
	for (i = 0; i < s->dm_cap; i++)
		free(s->dm[i].dem);
	free(s->dm);
	for (m = s->pmaps; m; m = mnext) {
		mnext = m->next;
		pmap_clear(m);
		free(m);
	}
	free(s->debug_root);
	free(s);
}

/* --- demangling ------------------------------------------------------- */

static size_t ptr_hash(const void *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static struct dm_slot *dm_slot(struct dm_slot *tab, size_t cap, const char *raw)
{
	size_t i = ptr_hash(raw, cap);

	while (tab[i].raw && tab[i].raw != raw)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int dm_rehash(struct syms *s)
{
	size_t cap = s->dm_cap ? s->dm_cap * 2 : 1024, i;
	struct dm_slot *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < s->dm_cap; i++)
		if (s->dm[i].raw)
			*dm_slot(tab, cap, s->dm[i].raw) = s->dm[i];
	free(s->dm);
	s->dm = tab;
	s->dm_cap = cap;
	return 0;
}

/*
 * Names are demangled on first use, not when the tables are built: a C++
 * binary has far more symbols than a profile has distinct frames. Keyed by
 * the raw pointer, which is unique while the file stays mapped.
 */
const char *syms_demangle(struct syms *s, const char *raw)
{
	struct dm_slot *slot;
	int status = -1;

	if (!raw || raw[0] != '_' || raw[1] != 'Z')
		return raw;
	if ((s->dm_count + 1) * 2 > s->dm_cap && dm_rehash(s))
		return raw;
	slot = dm_slot(s->dm, s->dm_cap, raw);
	if (!slot->raw) {
		slot->raw = raw;
		slot->dem = __cxa_demangle(raw, NULL, NULL, &status);
		if (status) {
			free(slot->dem);
			slot->dem = NULL;
		}
		s->dm_count++;
	}
	return slot->dem ? slot->dem : raw;
}

/* --- file cache -------------------------------------------------------- */

/* Demangled names are keyed by pointers into files: a closed file's go too. */
static void dm_clear(struct syms *s)
{
	size_t i;

	for (i = 0; i < s->dm_cap; i++)
		free(s->dm[i].dem);
	memset(s->dm, 0, s->dm_cap * sizeof(*s->dm));
	s->dm_count = 0;
}

static struct syms_file **oldest_file(struct syms *s)
{
	struct syms_file **best = NULL, **pf;
	size_t i;

	for (i = 0; i < SYMS_BUCKETS; i++)
		for (pf = &s->buckets[i]; *pf; pf = &(*pf)->next)
			if (!best || (*pf)->used < (*best)->used)
				best = pf;
	return best;
}

/* Past max_files, the least recently used file is closed and forgotten. */
static void evict_file(struct syms *s)
{
	struct syms_file **pf = oldest_file(s), *f;

	if (!pf)
		return;
	f = *pf;
	*pf = f->next;
	if (s->last == f)
		s->last = NULL;
	syms_file_close(f);
	free(f->path);
	free(f);
	s->nfiles--;
	dm_clear(s);
}

/* BPF pads build ids to 20 bytes with zeros; compare without the padding. */
static size_t bid_trim(const uint8_t *id, size_t len)
{
	if (!id)
		return 0;
	if (len > SYMS_BUILD_ID_MAX)
		len = SYMS_BUILD_ID_MAX;
	while (len && !id[len - 1])
		len--;
	return len;
}

static size_t file_hash(const char *path, const uint8_t *id, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *path; path++)
		h = (h ^ (uint8_t)*path) * 0x100000001b3ULL;
	while (len--)
		h = (h ^ *id++) * 0x100000001b3ULL;
	return (size_t)(h ^ (h >> 29)) % SYMS_BUCKETS;
}

static bool file_is(const struct syms_file *f, const char *path, const uint8_t *id, size_t len)
{
	return f->bid_len == len && (!len || !memcmp(f->bid, id, len)) && !strcmp(f->path, path);
}

static struct syms_file *file_new(struct syms *s, const char *path, const uint8_t *id, size_t len)
{
	struct syms_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->path = strdup(path);
	if (!f->path) {
		free(f);
		return NULL;
	}
	if (len)
		memcpy(f->bid, id, len);
	f->bid_len = len;
	f->renew_dwarf = s->opts.renew_dwarf ? s->opts.renew_dwarf : SYMS_RENEW_DWARF;
	if (syms_file_open(s, f) == -ENOMEM) {
		syms_file_close(f);
		free(f->path);
		free(f);
		return NULL;
	}
	return f;
}

static struct syms_file *file_get(struct syms *s, const char *path, const uint8_t *id, size_t len)
{
	struct syms_file *f;
	size_t b;

	len = bid_trim(id, len);
	s->tick++;
	if (s->last && file_is(s->last, path, id, len)) {
		s->last->used = s->tick;
		return s->last;
	}
	b = file_hash(path, id, len);
	for (f = s->buckets[b]; f; f = f->next)
		if (file_is(f, path, id, len))
			break;
	if (!f) {
		if (s->opts.max_files && s->nfiles >= s->opts.max_files)
			evict_file(s);
		f = file_new(s, path, id, len);
		if (!f)
			return NULL;
		f->next = s->buckets[b];
		s->buckets[b] = f;
		s->nfiles++;
	}
	f->used = s->tick;
	return s->last = f;
}

/* --- results ----------------------------------------------------------- */

static void frame_set(struct syms_frame *fr, const char *function, const char *file,
		      uint32_t line)
{
	fr->function = function;
	fr->file = file;
	fr->line = line;
}

/*
 * Frames innermost first: each inline with the line of the address (the
 * first) or of its callee's call site (the others), then the real function.
 */
static uint32_t chain_frames(struct syms *s, const struct syms_file *f, int32_t inl,
			     const struct syms_sym *sym, struct syms_frame *out, uint32_t max)
{
	const char *file = NULL, *name;
	uint32_t n = 0, line = 0;
	const struct syms_inl *e;

	for (; inl >= 0 && n < max; inl = e->parent) {
		e = &f->inls[inl];
		name = e->name;
		if (!e->inlined && !name && sym)
			name = sym->name;
		frame_set(&out[n++], syms_demangle(s, name), file, line);
		if (!e->inlined)
			return n;
		file = e->call_file;
		line = e->call_line;
	}
	if (n < max)
		frame_set(&out[n++], sym ? syms_demangle(s, sym->name) : NULL, file, line);
	return n;
}

static void result_frames(struct syms *s, struct syms_file *f, uint64_t addr,
			  const struct syms_sym *sym, int32_t inl, struct syms_result *r)
{
	struct syms_frame all[CHAIN_MAX];
	const struct syms_line *row;
	uint32_t n, keep = SYMS_MAX_INLINE - 1;

	n = chain_frames(s, f, inl, sym, all, CHAIN_MAX);
	if (n > SYMS_MAX_INLINE) {
		memcpy(r->frames, all, keep * sizeof(all[0]));
		r->frames[keep] = all[n - 1];
		n = SYMS_MAX_INLINE;
	} else {
		memcpy(r->frames, all, n * sizeof(all[0]));
	}
	r->nframes = n;
	/* Without memory for the line table the frames stay, lineless. */
	if (s->opts.lines && !syms_dwarf_line(f, addr, &row) && row)
		frame_set(&r->frames[0], r->frames[0].function, f->files[row->file], row->line);
}

static int resolve_in(struct syms *s, struct syms_file *f, uint64_t addr, struct syms_result *r)
{
	const struct syms_sym *sym = syms_file_sym(f, addr);
	int32_t inl = -1;
	int err;

	if (s->opts.inlines) {
		err = syms_dwarf_inl(f, addr, &inl);
		if (err)
			return err;
	}
	if (!sym && inl < 0) {
		r->why = f->nfuncs ? SYMS_NO_SYMBOL : SYMS_NO_SYMTAB;
		return 0;
	}
	if (sym) {
		r->func_addr = sym->addr;
		r->func_size = sym->end - sym->addr;
	}
	result_frames(s, f, addr, sym, inl, r);
	return 0;
}

void syms__stats(const struct syms *s, struct syms_stats *st)
{
	const struct syms_file *f;
	size_t b, i;

	memset(st, 0, sizeof(*st));
	for (b = 0; b < SYMS_BUCKETS; b++) {
		for (f = s->buckets[b]; f; f = f->next) {
			st->files++;
			st->clusters += f->nclusters;
			for (i = 0; i < f->nclusters; i++)
				st->clusters_indexed += f->clusters[i].lines_done ||
							f->clusters[i].inls_done;
		}
	}
}

static struct syms_file *lookup_file(struct syms *s, const char *path, const uint8_t *bid,
				     size_t bid_len, struct syms_result *r)
{
	memset(r, 0, sizeof(*r));
	return file_get(s, path, bid, bid_len);
}

int syms__resolve_vaddr(struct syms *s, const char *path, const uint8_t *build_id, size_t bid_len,
			uint64_t vaddr, struct syms_result *r)
{
	struct syms_file *f;

	if (!s || !path || !r)
		return -EINVAL;
	f = lookup_file(s, path, build_id, bid_len, r);
	if (!f)
		return -ENOMEM;
	if (f->why) {
		r->why = f->why;
		return 0;
	}
	return resolve_in(s, f, vaddr, r);
}

int syms__resolve(struct syms *s, const char *path, const uint8_t *build_id, size_t bid_len,
		  uint64_t file_offset, struct syms_result *r)
{
	struct syms_file *f;
	uint64_t vaddr;

	if (!s || !path || !r)
		return -EINVAL;
	f = lookup_file(s, path, build_id, bid_len, r);
	if (!f)
		return -ENOMEM;
	if (f->why) {
		r->why = f->why;
		return 0;
	}
	if (syms_file_vaddr(f, file_offset, &vaddr)) {
		r->why = SYMS_NO_SYMBOL;
		return 0;
	}
	return resolve_in(s, f, vaddr, r);
}

int syms__resolve_data(struct syms *s, const char *path, const uint8_t *build_id, size_t bid_len,
		       uint64_t map_start, uint64_t map_pgoff, uint64_t addr, const char **name)
{
	struct syms_result r;
	struct syms_file *f;
	uint64_t start_vaddr;
	const char *raw;

	*name = NULL;
	if (!s || !path || addr < map_start)
		return -EINVAL;
	f = lookup_file(s, path, build_id, bid_len, &r);
	if (!f)
		return -ENOMEM;
	if (f->why || syms_file_map_vaddr(f, map_pgoff, &start_vaddr))
		return 0;
	raw = syms_file_data_sym(f, start_vaddr + (addr - map_start));
	if (raw)
		*name = syms_demangle(s, raw);
	return 0;
}

/* --- perf maps ----------------------------------------------------------- */

static int pmap_cmp(const void *a, const void *b)
{
	const struct pmap_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* One "START SIZE name" line; the name is the rest of the line. */
static int pmap_line(struct pmap *m, size_t *cap, char *line, size_t order)
{
	struct pmap_ent *e;
	char *p, *q;

	line[strcspn(line, "\n")] = 0;
	e = &(struct pmap_ent){ .order = order };
	e->start = strtoull(line, &p, 16);
	if (p == line)
		return 0;
	e->size = strtoull(p, &q, 16);
	if (q == p || *q != ' ')
		return 0;
	if (syms_grow((void **)&m->ents, cap, m->n + 1, sizeof(*e)))
		return -ENOMEM;
	e->name = strdup(q + 1);
	if (!e->name)
		return -ENOMEM;
	m->ents[m->n++] = *e;
	return 0;
}

static int pmap_read(struct pmap *m, const char *path)
{
	size_t cap = 0, len = 0, order = 0;
	char *line = NULL;
	struct stat st;
	int err = 0;
	FILE *fp;

	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	pmap_clear(m);
	m->size = fstat(fileno(fp), &st) ? 0 : st.st_size;
	while (!err && getline(&line, &len, fp) > 0)
		err = pmap_line(m, &cap, line, order++);
	free(line);
	fclose(fp);
	if (!err && m->n > 1)
		qsort(m->ents, m->n, sizeof(*m->ents), pmap_cmp);
	return err;
}

static const struct pmap_ent *pmap_find(const struct pmap *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n, mid;
	const struct pmap_ent *e;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &m->ents[lo - 1];
	return addr < e->start + e->size ? e : NULL;
}

static bool pmap_grown(const struct pmap *m, const char *path)
{
	struct stat st;

	return !stat(path, &st) && st.st_size != m->size;
}

static struct pmap *pmap_get(struct syms *s, int pid, const char *path, int *err)
{
	struct pmap *m;

	for (m = s->pmaps; m; m = m->next)
		if (m->pid == pid)
			return m;
	m = calloc(1, sizeof(*m));
	if (!m) {
		*err = -ENOMEM;
		return NULL;
	}
	m->pid = pid;
	*err = pmap_read(m, path);
	if (*err) {
		pmap_clear(m);
		free(m);
		return NULL;
	}
	m->next = s->pmaps;
	s->pmaps = m;
	return m;
}

int syms__resolve_perf_map(struct syms *s, int pid, uint64_t addr, struct syms_result *r)
{
	const struct pmap_ent *e;
	char path[64];
	struct pmap *m;
	int err = 0;

	if (!s || !r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	m = pmap_get(s, pid, path, &err);
	if (!m)
		return err;
	e = pmap_find(m, addr);
	if (!e && pmap_grown(m, path) && !pmap_read(m, path))
		e = pmap_find(m, addr);
	if (!e) {
		r->why = SYMS_NO_SYMBOL;
		return 0;
	}
	r->func_addr = e->start;
	r->func_size = e->size;
	r->nframes = 1;
	r->frames[0].function = syms_demangle(s, e->name);
	return 0;
}
