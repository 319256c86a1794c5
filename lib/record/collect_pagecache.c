// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The pagecache family (bpf/pagecache.bpf.c): pages added, evicted,
 * looked up, faulted and read ahead, per file ("pagecache.files") and
 * per process ("pagecache.procs"), its losses ("pagecache.lost"), and the
 * names of the files' xarray locks ("lock_names", for the locks view).
 *
 * Files are named while recording, since a workload may delete its files
 * before the end: the probes walk a dentry chain on a file's first event,
 * and the mount point comes from /proc/self/mountinfo. Where the probes
 * cannot (classic tracepoints), the open files and mappings of the
 * processes seen are searched at the next drain.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/buf.h"
#include "record/collector_int.h"
#include "base/log.h"
#include "pagecache.h"
#include "pagecache.skel.h"

_Static_assert(PC_FILES__NCOLS == PC_FILES__ADDED + PC__COUNT, "one pagecache.files column per pc_val");
_Static_assert(PC_PROCS__NCOLS == PC_PROCS__ADDED + PC__COUNT, "one pagecache.procs column per pc_val");
_Static_assert(sizeof(struct pc_file_key) == 16, "pc_file_key is shared with BPF");
_Static_assert(sizeof(struct pc_proc_key) == 24, "pc_proc_key is shared with BPF");
_Static_assert(sizeof(struct pc_val) == PC__COUNT * 8, "pc_val is shared with BPF");
_Static_assert(sizeof(struct pc_info) == 24 + LS_PC_DEPTH * LS_PC_NAME_LEN, "pc_info is shared with BPF");
_Static_assert(sizeof(struct pc_lost) == 24, "pc_lost is shared with BPF");

/* The events, in the order of progs_of(); nargs is the tp_btf prototype ours expects. */
static const struct pc_event {
	const char *name;
	const char *group;
	const char *mode;	/* its word in the family's mode */
	int nargs;
} events[] = {
	{ "mm_filemap_add_to_page_cache", "filemap", "add", 1 },
	{ "mm_filemap_delete_from_page_cache", "filemap", "delete", 1 },
	{ "mm_filemap_get_pages", "filemap", "lookup", 3 },
	{ "mm_filemap_fault", "filemap", "fault", 2 },
	{ "mm_filemap_map_pages", "filemap", "map", 3 },
	{ "page_cache_ra_unbounded", "readahead", "ra", 4 },
	{ "page_cache_ra_order", "readahead", "ra", 3 },
};

#define NEVENTS	(sizeof(events) / sizeof(events[0]))

struct mount {
	uint32_t dev;		/* kernel encoding */
	char *root;		/* of the filesystem, mounted here */
	char *dir;
};

/* What we know of a file: its name for the rows, and its lock. */
struct fname {
	char *path;		/* NULL: not known yet */
	uint64_t lock;
	uint32_t tries;		/* /proc searches that did not find it */
};

#define MAX_TRIES	3

struct pagecache {
	struct pagecache_bpf *skel;
	struct tsource files;
	struct tsource procs;
	struct tsource lost;
	struct htab names;	/* pc_file_key -> struct fname */
	struct htab comms;	/* char[16] -> char *, stable for the rows */
	struct htab found;	/* pc_file_key -> char *: this drain's /proc search */
	bool searched;
	struct mount *mounts;
	size_t nmounts;
	size_t mounts_cap;
	struct trows_buf lock_names;
};

/* --- mount points ---------------------------------------------------------- */

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static int add_mount(struct pagecache *pc, unsigned int maj, unsigned int min, char *root, char *dir)
{
	struct mount *m;

	if (grow_array((void **)&pc->mounts, &pc->mounts_cap, pc->nmounts + 1, sizeof(*m)))
		return -ENOMEM;
	unescape(root);
	unescape(dir);
	m = &pc->mounts[pc->nmounts];
	m->dev = maj << 20 | min;
	m->root = strdup(root);
	m->dir = strdup(dir);
	if (!m->root || !m->dir) {
		free(m->root);
		free(m->dir);
		return -ENOMEM;
	}
	pc->nmounts++;
	return 0;
}

static int read_mounts(struct pagecache *pc)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], root[1024], dir[1024];
	unsigned int maj, min;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*u %u:%u %1023s %1023s", &maj, &min, root, dir) == 4)
			err = add_mount(pc, maj, min, root, dir);
	fclose(f);
	return err;
}

/* How much of rel a mount of its filesystem covers: its root's length, or -1. */
static int mount_match(const struct mount *m, const char *rel)
{
	size_t n = strlen(m->root);

	if (!strcmp(m->root, "/"))
		return 0;
	if (strncmp(rel, m->root, n) || (rel[n] && rel[n] != '/'))
		return -1;
	return (int)n;
}

/* A path within dev's filesystem as the mount table shows it; malloc'd. */
static char *mounted_path(const struct pagecache *pc, uint32_t dev, const char *rel)
{
	const struct mount *best = NULL;
	int best_n = -1, n;
	char *out;
	size_t i;

	for (i = 0; i < pc->nmounts; i++) {
		if (pc->mounts[i].dev != dev || (n = mount_match(&pc->mounts[i], rel)) < 0)
			continue;
		/* The whole filesystem (root "/") wins; then the deepest root. */
		if (!best || (n == 0 && best_n != 0) || (best_n != 0 && n > best_n)) {
			best = &pc->mounts[i];
			best_n = n;
		}
	}
	if (!best)
		return strdup(rel);
	rel += best_n;
	if (asprintf(&out, "%s%s", strcmp(best->dir, "/") || !*rel ? best->dir : "", rel) < 0)
		return NULL;
	return out;
}

/* --- file names --------------------------------------------------------------- */

/* The dentry chain of a pc_info as a path, innermost component last. */
static char *info_path(const struct pagecache *pc, const struct pc_file_key *k, const struct pc_info *in)
{
	char rel[LS_PC_DEPTH * (LS_PC_NAME_LEN + 1) + 8];
	size_t used = 0;
	int i;

	if (!in->depth)
		return NULL;
	rel[0] = '\0';
	for (i = (int)in->depth - 1; i >= 0; i--)
		used += snprintf(rel + used, sizeof(rel) - used, "/%.*s", LS_PC_NAME_LEN,
				 in->names[i]);
	if (in->truncated) {
		char *out;

		return asprintf(&out, "...%s", rel) < 0 ? NULL : out;
	}
	return mounted_path(pc, k->dev, rel);
}

/* One row naming a lock for the locks view. */
static int name_lock(struct pagecache *pc, uint64_t lock, const char *name)
{
	uint64_t *row;

	if (!lock)
		return 0;
	row = trows_add(&pc->lock_names);
	if (!row)
		return -ENOMEM;
	row[LOCK_NAMES__LOCK] = lock;
	row[LOCK_NAMES__NAME] = tptr(name);
	return 0;
}

static int note_found(struct pagecache *pc, uint32_t dev, uint64_t ino, const char *path)
{
	struct pc_file_key k = { .ino = ino, .dev = dev };
	int inserted;
	char **p;

	p = htab_get(&pc->found, &k, &inserted);
	if (!p)
		return -ENOMEM;
	if (inserted)
		*p = strdup(path);
	return 0;
}

static void search_fds(struct pagecache *pc, uint32_t tgid)
{
	char dir[64], link[320], path[4096];
	struct dirent *de;
	struct stat st;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%u/fd", tgid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || stat(link, &st) || !S_ISREG(st.st_mode))
			continue;
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		note_found(pc, major(st.st_dev) << 20 | minor(st.st_dev), st.st_ino, path);
	}
	closedir(d);
}

static void search_maps(struct pagecache *pc, uint32_t tgid)
{
	char file[64], line[4352], path[4096];
	unsigned int maj, min;
	unsigned long ino;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%u/maps", tgid);
	f = fopen(file, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %x:%x %lu %4095s", &maj, &min, &ino, path) == 4 &&
		    ino && path[0] == '/')
			note_found(pc, maj << 20 | min, ino, path);
	fclose(f);
}

/* Once per drain at most: the open files and mappings of every process seen. */
static void search_procs(struct pagecache *pc)
{
	struct pc_proc_key key, next, *prev = NULL;
	struct bpf_map *m = pc->skel->maps.pc_procs;

	pc->searched = true;
	while (!bpf_map__get_next_key(m, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		search_fds(pc, key.tgid);
		search_maps(pc, key.tgid);
	}
}

static void forget_found(struct pagecache *pc)
{
	size_t it = 0;
	char **p;

	while ((p = htab_next(&pc->found, &it, NULL)))
		free(*p);
	htab_free(&pc->found);
	htab_init(&pc->found, sizeof(struct pc_file_key), sizeof(char *));
	pc->searched = false;
}

static int from_probes(struct pagecache *pc, const struct pc_file_key *k, struct fname *fn)
{
	struct pc_info in;

	if (bpf_map__lookup_elem(pc->skel->maps.pc_info, k, sizeof(*k), &in, sizeof(in), 0))
		return 0;
	fn->lock = in.i_pages_lock;
	fn->path = info_path(pc, k, &in);
	if (name_lock(pc, fn->lock, "address_space.i_pages"))
		return -ENOMEM;
	return name_lock(pc, in.i_lock, "inode.i_lock");
}

/* The name of a file, found the first time it is asked for when possible. */
static int name_of(struct pagecache *pc, const struct pc_file_key *k, struct fname **out)
{
	struct fname *fn = htab_get(&pc->names, k, NULL);
	int err = 0;
	char **p;

	if (!fn)
		return -ENOMEM;
	*out = fn;
	if (!fn->path && !fn->lock && fn->tries < MAX_TRIES)
		err = from_probes(pc, k, fn);
	if (err || fn->path || fn->tries >= MAX_TRIES)
		return err;
	if (!pc->searched)
		search_procs(pc);
	p = htab_find(&pc->found, k);
	if (p && *p)
		fn->path = strdup(*p);
	else
		fn->tries++;
	return 0;
}

/* --- drain ----------------------------------------------------------------------- */

static int file_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	struct pagecache *pc = ctx;
	const struct pc_file_key *k = key;
	struct fname *fn;
	int err = name_of(pc, k, &fn);

	(void)stack;
	if (err)
		return err;
	row[PC_FILES__DEV] = k->dev;
	row[PC_FILES__INO] = k->ino;
	row[PC_FILES__PATH] = tptr(fn->path);
	row[PC_FILES__I_PAGES_LOCK] = fn->lock;
	return 0;
}

static const char *comm_of(struct pagecache *pc, const char *comm)
{
	char key[LS_PC_COMM_LEN] = { 0 };
	int inserted;
	char **p;

	memcpy(key, comm, sizeof(key) - 1);
	p = htab_get(&pc->comms, key, &inserted);
	if (p && inserted)
		*p = strdup(key);
	return p ? *p : NULL;
}

static int proc_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	struct pagecache *pc = ctx;
	const struct pc_proc_key *k = key;
	const char *comm = comm_of(pc, k->comm);

	(void)stack;
	if (!comm)
		return -ENOMEM;
	row[PC_PROCS__PID] = k->tgid;
	row[PC_PROCS__COMM] = tptr(comm);
	return 0;
}

static int init_sources(struct pagecache *pc, int ncpus)
{
	struct pagecache_bpf *s = pc->skel;
	int err;

	pc->files = (struct tsource){ .schema = ls_schema(TBL_PC_FILES), .map = s->maps.pc_files, .percpu = true,
		.key_size = sizeof(struct pc_file_key), .val_size = sizeof(struct pc_val),
		.nkeys = PC_FILES__ADDED, .keys = file_keys, .ctx = pc };
	pc->procs = (struct tsource){ .schema = ls_schema(TBL_PC_PROCS), .map = s->maps.pc_procs, .percpu = true,
		.key_size = sizeof(struct pc_proc_key), .val_size = sizeof(struct pc_val),
		.nkeys = PC_PROCS__ADDED, .keys = proc_keys, .ctx = pc };
	pc->lost = (struct tsource){ .schema = ls_schema(TBL_PC_LOST), .map = s->maps.pc_lost, .percpu = true,
		.key_size = sizeof(uint32_t), .val_size = sizeof(struct pc_lost) };
	err = tsource_init(&pc->files, ncpus);
	if (!err)
		err = tsource_init(&pc->procs, ncpus);
	return err ? err : tsource_init(&pc->lost, ncpus);
}

/* Files are named (and their locks) before the procs' search is forgotten. */
static int pagecache_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct pagecache *pc = priv;
	int err;

	(void)s;
	(void)final;
	pc->lock_names.rows.n = 0;
	err = collector_drain_source(c, &pc->files, NULL);
	forget_found(pc);
	if (!err)
		err = collector_drain_source(c, &pc->procs, NULL);
	if (!err)
		err = collector_drain_source(c, &pc->lost, NULL);
	return err ? err : collector_add_table(c, &pc->lock_names.rows);
}

/* --- open -------------------------------------------------------------------------- */

static bool classic_exists(const struct pc_event *e)
{
	char path[256];

	if (!tracefs_path())
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_path(), e->group, e->name);
	return access(path, F_OK) == 0;
}

static void progs_of(struct pagecache_bpf *s, struct bpf_program **btf, struct bpf_program **tp)
{
	struct bpf_program *b[NEVENTS] = {
		s->progs.add_btf, s->progs.delete_btf, s->progs.get_pages_btf, s->progs.fault_btf,
		s->progs.map_pages_btf, s->progs.ra_unbounded_btf, s->progs.ra_order_btf,
	};
	struct bpf_program *t[NEVENTS] = {
		s->progs.add_tp, s->progs.delete_tp, s->progs.get_pages_tp, s->progs.fault_tp,
		s->progs.map_pages_tp, s->progs.ra_unbounded_tp, s->progs.ra_order_tp,
	};

	memcpy(btf, b, sizeof(b));
	memcpy(tp, t, sizeof(t));
}

/* Which events this kernel has, for our handlers of one kind; "add" is a must. */
static bool choose_events(bool btf, bool *on)
{
	size_t i;

	for (i = 0; i < NEVENTS; i++)
		on[i] = btf ? tp_btf_nargs(events[i].name) == events[i].nargs : classic_exists(&events[i]);
	return on[0];
}

/* "tp_btf:add,delete,lookup,..." with the events attached. */
static void say_mode(struct family_status *st, bool btf, const bool *on)
{
	size_t i, used = snprintf(st->mode, sizeof(st->mode), "%s:", btf ? "tp_btf" : "tracepoint");
	const char *last = "";

	for (i = 0; i < NEVENTS && used < sizeof(st->mode); i++) {
		if (!on[i] || !strcmp(events[i].mode, last))
			continue;
		used += snprintf(st->mode + used, sizeof(st->mode) - used, "%s%s",
				 last[0] ? "," : "", events[i].mode);
		last = events[i].mode;
	}
}

static int load(struct collector *c, struct pagecache *pc, bool btf, struct family_status *st)
{
	struct bpf_program *bp[NEVENTS], *tp[NEVENTS];
	bool on[NEVENTS];
	size_t i;
	int err;

	pagecache_bpf__destroy(pc->skel);
	pc->skel = NULL;
	if (!choose_events(btf, on)) {
		snprintf(st->why, sizeof(st->why), "no %s mm_filemap_add_to_page_cache in this kernel",
			 btf ? "tp_btf" : "tracepoint");
		return -EOPNOTSUPP;
	}
	pc->skel = pagecache_bpf__open();
	if (!pc->skel)
		return -errno;
	pc->skel->rodata->filter_targets = c->o.filter_targets;
	pc->skel->rodata->page_shift = __builtin_ctzl(sysconf(_SC_PAGESIZE));
	progs_of(pc->skel, bp, tp);
	for (i = 0; i < NEVENTS; i++) {
		bpf_program__set_autoload(bp[i], btf && on[i]);
		bpf_program__set_autoload(tp[i], !btf && on[i]);
	}
	err = collector_prepare_object(c, pc->skel->obj);
	if (!err)
		err = pagecache_bpf__load(pc->skel);
	if (!err)
		err = pagecache_bpf__attach(pc->skel);
	if (err) {
		snprintf(st->why, sizeof(st->why), "loading the pagecache probes (%s) failed: %s",
			 btf ? "tp_btf" : "tracepoint", strerror(-err));
		return err;
	}
	say_mode(st, btf, on);
	return 0;
}

/*
 * tp_btf where BTF has our prototype of the add event, else the classic
 * tracepoints, with the events this kernel has either way.
 */
static int choose(const struct features *f, enum attach_mode want, bool *btf, struct family_status *st)
{
	bool on[NEVENTS];

	*btf = want != ATTACH_TP_CLASSIC && tp_btf_nargs(events[0].name) == events[0].nargs;
	if (!*btf && (want == ATTACH_TP_BTF || !f->r[FEAT_TP_FILEMAP].ok)) {
		snprintf(st->why, sizeof(st->why), "%s", want == ATTACH_TP_BTF ?
			 "needs kernel BTF with the filemap raw tracepoints (tp_btf)" :
			 f->r[FEAT_TP_FILEMAP].detail);
		return -EOPNOTSUPP;
	}
	choose_events(*btf, on);
	say_mode(st, *btf, on);
	return 0;
}

static int pagecache_choose_mode(const struct features *f, enum attach_mode want, struct family_status *st)
{
	bool btf;

	return choose(f, want, &btf, st);
}

static struct pagecache *pagecache_new(void)
{
	struct pagecache *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	htab_init(&pc->names, sizeof(struct pc_file_key), sizeof(struct fname));
	htab_init(&pc->comms, LS_PC_COMM_LEN, sizeof(char *));
	htab_init(&pc->found, sizeof(struct pc_file_key), sizeof(char *));
	pc->lock_names.rows.schema = ls_schema(TBL_LOCK_NAMES);
	return pc;
}

static int pagecache_open(struct collector *c, const struct features *f, struct family_status *st,
			  void **privp)
{
	struct pagecache *pc;
	bool btf;
	int err = choose(f, c->o.mode, &btf, st);

	if (err)
		return err;
	pc = pagecache_new();
	if (!pc)
		return -ENOMEM;
	*privp = pc;
	if (read_mounts(pc))
		pr_warn("pagecache: cannot read /proc/self/mountinfo: paths stay relative to their filesystem\n");
	err = load(c, pc, btf, st);
	if (err && btf && c->o.mode != ATTACH_TP_BTF && f->r[FEAT_TP_FILEMAP].ok) {
		pr_info("pagecache: %s; trying the classic tracepoints\n", st->why);
		st->why[0] = '\0';
		err = load(c, pc, false, st);
	}
	return err ? err : init_sources(pc, c->ncpus);
}

static void pagecache_detach(void *priv)
{
	struct pagecache *pc = priv;

	if (pc->skel)
		pagecache_bpf__detach(pc->skel);
}

static void free_strings(struct htab *h, size_t off)
{
	size_t it = 0;
	char *v;

	while ((v = htab_next(h, &it, NULL)))
		free(*(char **)(v + off));
	htab_free(h);
}

static void pagecache_free(void *priv)
{
	struct pagecache *pc = priv;
	size_t i;

	pagecache_bpf__destroy(pc->skel);
	tsource_free(&pc->files);
	tsource_free(&pc->procs);
	tsource_free(&pc->lost);
	free_strings(&pc->names, offsetof(struct fname, path));
	free_strings(&pc->comms, 0);
	free_strings(&pc->found, 0);
	for (i = 0; i < pc->nmounts; i++) {
		free(pc->mounts[i].root);
		free(pc->mounts[i].dir);
	}
	free(pc->mounts);
	trows_buf_free(&pc->lock_names);
	free(pc);
}

static const struct bpf_object *pagecache_object(const void *priv)
{
	const struct pagecache *pc = priv;

	return pc->skel ? pc->skel->obj : NULL;
}

static int pagecache_trim(struct collector *c, void *priv, uint32_t before, uint64_t *late)
{
	struct pagecache *pc = priv;
	int files, procs;

	(void)c;
	files = tsource_trim(&pc->files, before, late);
	if (files < 0)
		return files;
	procs = tsource_trim(&pc->procs, before, late);
	return procs < 0 ? procs : files + procs;
}

/* The fuller of the two tables; the drain that leaves the fuller a quarter full. */
static unsigned pagecache_fill(const void *priv, uint32_t latest, uint32_t *before)
{
	const struct pagecache *pc = priv;
	uint32_t before_files, before_procs;
	unsigned files = tsource_fill(&pc->files, latest, &before_files);
	unsigned procs = tsource_fill(&pc->procs, latest, &before_procs);

	*before = files > procs ? before_files : before_procs;
	return files > procs ? files : procs;
}

const struct family_ops pagecache_family = {
	.choose_mode = pagecache_choose_mode,
	.open = pagecache_open,
	.drain = pagecache_drain,
	.detach = pagecache_detach,
	.free = pagecache_free,
	.object = pagecache_object,
	.trim = pagecache_trim,
	/* Its own losses are a table (pagecache.lost). */
	.trim_lost = "pagecache_trimmed_late",
	.fill = pagecache_fill,
};
