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
#include "buf.h"
#include "collector_int.h"
#include "log.h"
#include "pagecache.h"
#include "pagecache.skel.h"

#define PC_VALUE_COLS							\
	{ "added", TCOL_SUM }, { "evicted", TCOL_SUM }, { "removed", TCOL_SUM },	\
	{ "lookups", TCOL_SUM }, { "faults", TCOL_SUM }, { "map_pages", TCOL_SUM },	\
	{ "readahead", TCOL_SUM }

enum { FC_DEV, FC_INO, FC_PATH, FC_LOCK, FC_VALS, FC__COUNT = FC_VALS + PC__COUNT };
enum { PR_PID, PR_COMM, PR_VALS, PR__COUNT = PR_VALS + PC__COUNT };

static const struct tcol file_cols[FC__COUNT] = {
	{ "dev", TCOL_KEY }, { "ino", TCOL_KEY }, { "path", TCOL_KEY_STR },
	{ "i_pages_lock", TCOL_KEY }, PC_VALUE_COLS,
};

static const struct tcol proc_cols[PR__COUNT] = {
	{ "pid", TCOL_KEY }, { "comm", TCOL_KEY_STR }, PC_VALUE_COLS,
};

static const struct tcol lost_cols[] = {
	{ "files_full", TCOL_SUM }, { "procs_full", TCOL_SUM }, { "info_full", TCOL_SUM },
};

/* The same schema as every family that names locks: the locks view reads it. */
static const struct tcol lock_name_cols[] = {
	{ "lock", TCOL_KEY }, { "name", TCOL_KEY_STR },
};

static const struct tschema file_schema = { "pagecache.files", FC__COUNT, file_cols };
static const struct tschema proc_schema = { "pagecache.procs", PR__COUNT, proc_cols };
static const struct tschema lost_schema = { "pagecache.lost", 3, lost_cols };
static const struct tschema lock_name_schema = { "lock_names", 2, lock_name_cols };

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
	int ncpus;
	struct pc_val *percpu;
	uint8_t kinds[PC__COUNT];
	struct htab last_files;	/* pc_file_key -> uint64_t[PC__COUNT] */
	struct htab last_procs;	/* pc_proc_key -> uint64_t[PC__COUNT] */
	struct htab last_lost;	/* uint32 0 -> uint64_t[3] */
	struct htab names;	/* pc_file_key -> struct fname */
	struct htab comms;	/* char[16] -> char *, stable for the rows */
	struct htab found;	/* pc_file_key -> char *: this drain's /proc search */
	bool searched;
	struct mount *mounts;
	size_t nmounts;
	size_t mounts_cap;
	struct trows_buf files;
	struct trows_buf procs;
	struct trows_buf lost;
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
	row[0] = lock;
	row[1] = tptr(name);
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

/* One row of a per-CPU map summed over the CPUs. */
static int read_sum(struct pagecache *pc, struct bpf_map *m, const void *k, size_t ksz, uint64_t *sum)
{
	int cpu, i;

	if (bpf_map__lookup_elem(m, k, ksz, pc->percpu, pc->ncpus * sizeof(*pc->percpu), 0))
		return -errno;
	memset(sum, 0, PC__COUNT * sizeof(*sum));
	for (cpu = 0; cpu < pc->ncpus; cpu++)
		for (i = 0; i < PC__COUNT; i++)
			sum[i] += pc->percpu[cpu].v[i];
	return 0;
}

static int add_file_row(struct pagecache *pc, const void *key, const uint64_t *delta)
{
	const struct pc_file_key *k = key;
	struct fname *fn;
	uint64_t *row;
	int err = name_of(pc, k, &fn);

	if (err)
		return err;
	row = trows_add(&pc->files);
	if (!row)
		return -ENOMEM;
	row[FC_DEV] = k->dev;
	row[FC_INO] = k->ino;
	row[FC_PATH] = tptr(fn->path);
	row[FC_LOCK] = fn->lock;
	memcpy(&row[FC_VALS], delta, PC__COUNT * sizeof(*delta));
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

static int add_proc_row(struct pagecache *pc, const void *key, const uint64_t *delta)
{
	const struct pc_proc_key *k = key;
	const char *comm = comm_of(pc, k->comm);
	uint64_t *row;

	if (!comm || !(row = trows_add(&pc->procs)))
		return -ENOMEM;
	row[PR_PID] = k->tgid;
	row[PR_COMM] = tptr(comm);
	memcpy(&row[PR_VALS], delta, PC__COUNT * sizeof(*delta));
	return 0;
}

typedef int (*add_row_fn)(struct pagecache *pc, const void *key, const uint64_t *delta);

/* The rows of one per-CPU map that changed since the last drain, as deltas. */
static int drain_map(struct pagecache *pc, struct bpf_map *m, struct htab *last, add_row_fn add)
{
	union {
		struct pc_file_key f;
		struct pc_proc_key p;
	} key, next;
	uint64_t cur[PC__COUNT], delta[PC__COUNT];
	size_t ksz = bpf_map__key_size(m);
	void *prev = NULL;
	bool changed;
	int err = 0;

	if (ksz > sizeof(key))
		return -EINVAL;
	while (!err && !bpf_map__get_next_key(m, prev, &next, ksz)) {
		memcpy(&key, &next, ksz);
		prev = &key;
		err = read_sum(pc, m, &key, ksz, cur);
		if (err == -ENOENT) {	/* deleted under us: not by us, but harmless */
			err = 0;
			continue;
		}
		if (!err)
			err = tdelta(last, &key, cur, delta, pc->kinds, PC__COUNT, &changed);
		if (!err && changed)
			err = add(pc, &key, delta);
	}
	return err;
}

static int drain_lost(struct pagecache *pc)
{
	struct pc_lost *per = calloc(pc->ncpus, sizeof(*per));
	const uint8_t kinds[3] = { TCOL_SUM, TCOL_SUM, TCOL_SUM };
	uint64_t sum[3] = { 0 }, *row;
	uint32_t zero = 0;
	bool changed;
	int cpu, err;

	if (!per)
		return -ENOMEM;
	err = bpf_map__lookup_elem(pc->skel->maps.pc_lost, &zero, sizeof(zero), per,
				   pc->ncpus * sizeof(*per), 0) ? -errno : 0;
	for (cpu = 0; !err && cpu < pc->ncpus; cpu++) {
		sum[0] += per[cpu].files_full;
		sum[1] += per[cpu].procs_full;
		sum[2] += per[cpu].info_full;
	}
	free(per);
	if (!err)
		err = tdelta(&pc->last_lost, &zero, sum, sum, kinds, 3, &changed);
	if (err || !changed)
		return err;
	row = trows_add(&pc->lost);
	if (!row)
		return -ENOMEM;
	memcpy(row, sum, sizeof(sum));
	return 0;
}

static int pagecache_drain(struct collector *c, void *priv, bool final)
{
	struct pagecache *pc = priv;
	int err;

	(void)final;
	pc->files.rows.n = pc->procs.rows.n = pc->lost.rows.n = pc->lock_names.rows.n = 0;
	err = drain_map(pc, pc->skel->maps.pc_files, &pc->last_files, add_file_row);
	forget_found(pc);
	if (!err)
		err = drain_map(pc, pc->skel->maps.pc_procs, &pc->last_procs, add_proc_row);
	if (!err)
		err = drain_lost(pc);
	if (!err)
		err = collector_add_table(c, &pc->files.rows);
	if (!err)
		err = collector_add_table(c, &pc->procs.rows);
	if (!err)
		err = collector_add_table(c, &pc->lost.rows);
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
	err = reuse_target_maps(c, pc->skel->maps.targets, pc->skel->maps.targets_gen);
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

static struct pagecache *pagecache_new(int ncpus)
{
	struct pagecache *pc = calloc(1, sizeof(*pc));
	size_t i;

	if (!pc)
		return NULL;
	pc->ncpus = ncpus;
	htab_init(&pc->last_files, sizeof(struct pc_file_key), PC__COUNT * sizeof(uint64_t));
	htab_init(&pc->last_procs, sizeof(struct pc_proc_key), PC__COUNT * sizeof(uint64_t));
	htab_init(&pc->last_lost, sizeof(uint32_t), 3 * sizeof(uint64_t));
	htab_init(&pc->names, sizeof(struct pc_file_key), sizeof(struct fname));
	htab_init(&pc->comms, LS_PC_COMM_LEN, sizeof(char *));
	htab_init(&pc->found, sizeof(struct pc_file_key), sizeof(char *));
	pc->files.rows.schema = &file_schema;
	pc->procs.rows.schema = &proc_schema;
	pc->lost.rows.schema = &lost_schema;
	pc->lock_names.rows.schema = &lock_name_schema;
	for (i = 0; i < PC__COUNT; i++)
		pc->kinds[i] = TCOL_SUM;
	pc->percpu = calloc(ncpus, sizeof(*pc->percpu));
	return pc;
}

static int pagecache_open(struct collector *c, const struct features *f, void **privp)
{
	struct family_status *st = status_of(c, FAMILY_PAGECACHE);
	bool btf = c->o.mode != ATTACH_TP_CLASSIC && tp_btf_nargs(events[0].name) == events[0].nargs;
	struct pagecache *pc;
	int err;

	if (!btf && (c->o.mode == ATTACH_TP_BTF || !f->r[FEAT_TP_FILEMAP].ok)) {
		snprintf(st->why, sizeof(st->why), "%s", c->o.mode == ATTACH_TP_BTF ?
			 "needs kernel BTF with the filemap raw tracepoints (tp_btf)" :
			 f->r[FEAT_TP_FILEMAP].detail);
		return -EOPNOTSUPP;
	}
	pc = pagecache_new(c->ncpus);
	if (!pc)
		return -ENOMEM;
	*privp = pc;
	if (!pc->percpu)
		return -ENOMEM;
	if (read_mounts(pc))
		pr_warn("pagecache: cannot read /proc/self/mountinfo: paths stay relative to their filesystem\n");
	err = load(c, pc, btf, st);
	if (err && btf && c->o.mode != ATTACH_TP_BTF && f->r[FEAT_TP_FILEMAP].ok) {
		pr_info("pagecache: %s; trying the classic tracepoints\n", st->why);
		st->why[0] = '\0';
		err = load(c, pc, false, st);
	}
	return err;
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
	htab_free(&pc->last_files);
	htab_free(&pc->last_procs);
	htab_free(&pc->last_lost);
	free_strings(&pc->names, offsetof(struct fname, path));
	free_strings(&pc->comms, 0);
	free_strings(&pc->found, 0);
	for (i = 0; i < pc->nmounts; i++) {
		free(pc->mounts[i].root);
		free(pc->mounts[i].dir);
	}
	free(pc->mounts);
	trows_buf_free(&pc->files);
	trows_buf_free(&pc->procs);
	trows_buf_free(&pc->lost);
	trows_buf_free(&pc->lock_names);
	free(pc->percpu);
	free(pc);
}

static struct bpf_object *pagecache_object(void *priv)
{
	struct pagecache *pc = priv;

	return pc->skel ? pc->skel->obj : NULL;
}

const struct table_family pagecache_family = {
	.bit = FAMILY_PAGECACHE,
	.open = pagecache_open,
	.drain = pagecache_drain,
	.detach = pagecache_detach,
	.free = pagecache_free,
	.object = pagecache_object,
};
