// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Names of dynamic kernel locks, found while recording (see lockname.h).
 *
 * Each address is named once, at the drain that first sees it, in
 * batches: the slab cache bpf/lockname.bpf.h noted when the lock's first
 * row was made (the map entry is then deleted, which keeps the map
 * small), else one run of check_zones for the addresses left. The slab
 * path is used only once it has named lockstat's own objects right (the
 * self-check): a wrong field name is worse than none.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/clock.h"
#include "base/htab.h"
#include "base/log.h"
#include "format/lock_naming.h"
#include "format/locktype.h"
#include "record/kfeatures.h"
#include "record/lockname.h"
#include "sym/btfname.h"
#include "sym/kpages.h"
#include "sym/slabname.h"
#include "names.h"
#include "names.skel.h"

#define SLAB_SYSFS	"/sys/kernel/slab"
#define NAME_LEN	128

struct name_entry {
	char name[NAME_LEN];	/* "" once looked at and left unnamed */
};

struct lockname {
	struct names_bpf *skel;
	const struct btf *btf;
	int ncpus;
	uint64_t page_size;
	int caches_fd;		/* contention's lock_caches, or -1 */
	bool slab;		/* slab programs loaded, self-check passed */
	uint64_t *rq;		/* every CPU's struct rq */
	size_t nrq;
	int rq_type;		/* BTF id of struct rq */
	uint32_t rq_size;
	bool zones;		/* check_zones loaded, and right on real zones */
	struct kpages pages;	/* page-table locks: ptdesc.ptl */
	struct htab caches;	/* uint64 kmem_cache -> struct slab_cache */
	struct htab names;	/* uint64 lock address -> struct name_entry */
	uint64_t zone_batch[LS_NAMES_BATCH];
	size_t nzone;
	struct lockname_check checks[LS_SELF__COUNT];
	size_t nchecks;
	uint64_t class_agree, class_disagree;
	/* Merged slab caches met, and their locks named by type or as a set of caches. */
	uint64_t merged, merged_field, merged_set;
	char rq_status[128];
	char zone_status[128];
	char slab_status[256];
	char merged_status[128];
	char status[960];
};

static int run(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	return bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
}

static int load_names(struct lockname *ln, bool with_slab)
{
	struct names_bpf *s = names_bpf__open();
	int err;

	if (!s)
		return -errno;
	s->rodata->nr_cpus = ln->ncpus;
	bpf_program__set_autoload(s->progs.read_caches, with_slab);
	bpf_program__set_autoload(s->progs.self_check, with_slab);
	err = names_bpf__load(s);
	if (err) {
		names_bpf__destroy(s);
		return err;
	}
	ln->skel = s;
	return 0;
}

/* Every CPU's struct rq: one run, at start. */
static void find_rq(struct lockname *ln)
{
	int i, err = run(ln->skel->progs.find_rq_locks);

	if (!err && !ln->skel->bss->rq_how) {
		snprintf(ln->rq_status, sizeof(ln->rq_status),
			 "no rq.__lock: this kernel has no task groups (CONFIG_CGROUP_SCHED)");
		return;
	}
	ln->rq_type = btfname_find_struct(ln->btf, "rq", &ln->rq_size);
	ln->rq = err ? NULL : calloc(ln->ncpus, sizeof(*ln->rq));
	for (i = 0; ln->rq && i < ln->ncpus && i < LS_MAX_CPUS; i++)
		if (ln->skel->bss->rq_addrs[i])
			ln->rq[ln->nrq++] = ln->skel->bss->rq_addrs[i];
	if (!ln->rq)
		snprintf(ln->rq_status, sizeof(ln->rq_status), "no rq.__lock: %s",
			 strerror(err ? -err : ENOMEM));
	else
		snprintf(ln->rq_status, sizeof(ln->rq_status),
			 "rq.__lock (%zu of %d CPUs, from the task group's cfs_rq[cpu]->rq)", ln->nrq, ln->ncpus);
}

/* "rq.__lock", or another lock of a CPU's struct rq ("rq.cfs.removed.lock"). */
static int rq_field(const struct lockname *ln, uint64_t addr, char *buf, size_t len)
{
	char field[96];
	size_t i;

	for (i = 0; ln->rq_type > 0 && i < ln->nrq; i++) {
		if (addr < ln->rq[i] || addr - ln->rq[i] >= ln->rq_size)
			continue;
		if (btfname_member(ln->btf, ln->rq_type, addr - ln->rq[i], field, sizeof(field)))
			return -ENOENT;
		snprintf(buf, len, "rq.%s", field);
		return 0;
	}
	return -ENOENT;
}

/* Run check_zones on up to LS_NAMES_BATCH addresses; is_zone[] has the verdicts. */
static int check_zones(struct lockname *ln, const uint64_t *addrs, size_t n)
{
	memcpy(ln->skel->bss->addrs, addrs, n * sizeof(*addrs));
	ln->skel->bss->naddrs = n;
	return run(ln->skel->progs.check_zones);
}

/*
 * check_zones on two real zones (found through the memory cgroup) and on
 * two addresses that are not a zone's lock: any wrong verdict turns
 * zone.lock off.
 */
static void zone_self_check(struct lockname *ln)
{
	const __u64 *z = ln->skel->bss->zone_locks;
	uint64_t probe[4];
	const __u8 *yes = ln->skel->bss->is_zone;
	int err = run(ln->skel->progs.find_zones);

	if (!err && !z[0]) {
		ln->zones = true;
		snprintf(ln->zone_status, sizeof(ln->zone_status),
			 "zone.lock (the zone's node points back at it; unchecked: no memory cgroup)");
		return;
	}
	probe[0] = z[0];
	probe[1] = z[1];
	probe[2] = z[0] + 4;
	probe[3] = ln->nrq ? ln->rq[0] : z[0] - 4;
	if (!err)
		err = check_zones(ln, probe, 4);
	ln->zones = !err && yes[0] && yes[1] && !yes[2] && !yes[3];
	if (ln->zones)
		snprintf(ln->zone_status, sizeof(ln->zone_status),
			 "zone.lock (the zone's node points back at it; self-check: 2 zones told from 2 other addresses)");
	else
		snprintf(ln->zone_status, sizeof(ln->zone_status), "no zone.lock: the self-check failed%s%s",
			 err ? ": " : "", err ? strerror(-err) : "");
}

static void free_cache(struct slab_cache *c)
{
	slabname_free_aliases(c->aliases, c->naliases);
}

/* Read a kmem_cache the first time it is seen: the caches live as long as the kernel. */
static int read_cache(struct lockname *ln, uint64_t cache, struct slab_cache *c)
{
	struct ls_cache *in = &ln->skel->bss->caches[0];
	int err;

	memset(in, 0, sizeof(*in));
	in->cache = cache;
	ln->skel->bss->ncaches = 1;
	err = run(ln->skel->progs.read_caches);
	if (err)
		return err;
	snprintf(c->name, sizeof(c->name), "%s", in->name[0] ? in->name : "?");
	c->size = in->size;
	c->object_size = in->object_size;
	c->order = in->order;
	c->min_order = in->min_order;
	c->red_left_pad = in->red_left_pad;
	c->refcount = in->refcount;
	if (c->refcount > 1 && slabname_aliases(SLAB_SYSFS, c->name, &c->aliases, &c->naliases))
		pr_debug("cannot read the caches merged with %s from %s\n", c->name, SLAB_SYSFS);
	ln->merged += slabname_merged(c);
	return 0;
}

static struct slab_cache *cache_of(struct lockname *ln, uint64_t cache)
{
	struct slab_cache *c;
	int inserted;

	c = htab_get(&ln->caches, &cache, &inserted);
	if (c && inserted && read_cache(ln, cache, c)) {
		snprintf(c->name, sizeof(c->name), "?");
		return NULL;
	}
	return c && strcmp(c->name, "?") ? c : NULL;
}

static void slab_lock_name(struct lockname *ln, uint64_t cache, uint64_t addr, char *buf, size_t len)
{
	struct slab_cache *c = cache_of(ln, cache);
	enum slab_name_kind kind;

	buf[0] = '\0';
	if (!c)
		return;
	kind = slabname_lock(ln->btf, c, addr, ln->page_size, buf, len);
	if (slabname_merged(c)) {
		ln->merged_field += kind == SLAB_NAME_FIELD;
		ln->merged_set += kind == SLAB_NAME_SET;
	}
}

/*
 * The status line, with how the merged slab caches met so far were
 * named: a lock in one is a field only where one struct can hold it.
 */
static void compose_status(struct lockname *ln)
{
	snprintf(ln->merged_status, sizeof(ln->merged_status),
		 "%" PRIu64 " met, %" PRIu64 " lock(s) in them named by type, %" PRIu64 " as a set of caches",
		 ln->merged, ln->merged_field, ln->merged_set);
	snprintf(ln->status, sizeof(ln->status), "%s, %s; %s%s%s; %s", ln->rq_status, ln->zone_status,
		 ln->slab_status, ln->slab ? "; merged slab caches: " : "", ln->slab ? ln->merged_status : "",
		 ln->pages.status);
}

/* --- self-check ----------------------------------------------------------- */

struct self_lock {
	const char *what;
	const char *expected;	/* NULL: the class's name */
	uint32_t lock_class;
};

static const struct self_lock self_locks[LS_SELF__COUNT] = {
	[LS_SELF_FILE_LOCK] = { "current->files->file_lock", NULL, LOCK_CLASS_FILES_FILE_LOCK },
	[LS_SELF_MMAP_LOCK] = { "current->mm->mmap_lock", NULL, LOCK_CLASS_MM_MMAP_LOCK },
	[LS_SELF_SIGLOCK] = { "current->sighand->siglock", NULL, LOCK_CLASS_SIGHAND_SIGLOCK },
	[LS_SELF_PI_LOCK] = { "current->pi_lock", "task_struct.pi_lock", 0 },
	[LS_SELF_CRED_GUARD] = { "current->signal->cred_guard_mutex", "signal_struct.cred_guard_mutex", 0 },
	[LS_SELF_F_POS_LOCK] = { "file->f_pos_lock", "file.f_pos_lock", 0 },
	[LS_SELF_D_LOCK] = { "file->f_path.dentry->d_lockref.lock", "dentry.d_lockref.lock", 0 },
	[LS_SELF_I_LOCK] = { "file->f_inode->i_lock", ".i_lock", 0 },	/* the struct is the filesystem's */
};

static bool name_matches(const char *found, const char *expected)
{
	size_t n = strlen(found), e = strlen(expected);

	if (expected[0] == '.')
		return found[0] != '&' && n > e && !strcmp(found + n - e, expected);
	return !strcmp(found, expected);
}

static void check_one(struct lockname *ln, int i, uint64_t addr, uint64_t cache)
{
	struct lockname_check *c = &ln->checks[i];

	c->what = self_locks[i].what;
	c->expected = self_locks[i].expected ? self_locks[i].expected :
		      lock_class_name(self_locks[i].lock_class);
	if (!cache)
		snprintf(c->found, sizeof(c->found), "not in a slab (0x%" PRIx64 ")", addr);
	else
		slab_lock_name(ln, cache, addr, c->found, sizeof(c->found));
	c->ok = name_matches(c->found, c->expected);
}

/*
 * Name locks of lockstat's own task and of a file it opened (its own
 * binary) through the slab path. A wrong field name turns the slab path
 * off; a cache whose type is not known (an "&cache+0x.." name) does not.
 */
static void self_check(struct lockname *ln)
{
	size_t i, right = 0, wrong = 0;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int err;

	ln->skel->bss->self_fd = fd;
	err = run(ln->skel->progs.self_check);
	if (fd >= 0)
		close(fd);
	for (i = 0; !err && i < LS_SELF__COUNT; i++) {
		check_one(ln, i, ln->skel->bss->self_addrs[i], ln->skel->bss->self_caches[i]);
		right += ln->checks[i].ok;
		wrong += !ln->checks[i].ok && ln->checks[i].found[0] != '&';
	}
	ln->nchecks = err ? 0 : LS_SELF__COUNT;
	ln->slab = !err && right && !wrong;
	if (err)
		snprintf(ln->slab_status, sizeof(ln->slab_status), "no slab fields: the self-check failed: %s",
			 strerror(-err));
	else if (!ln->slab)
		snprintf(ln->slab_status, sizeof(ln->slab_status),
			 "no slab fields: the self-check named %zu of %zu of lockstat's own locks wrong (lockstat probe)",
			 wrong, i);
	else
		snprintf(ln->slab_status, sizeof(ln->slab_status),
			 "slab fields (bpf_get_kmem_cache; self-check: %zu of %zu named right)", right, i);
}

/* --- open ------------------------------------------------------------------ */

static void open_programs(struct lockname *ln)
{
	bool kfunc = ln->btf && kfunc_in_btf("bpf_get_kmem_cache");
	int err = load_names(ln, kfunc);

	if (!kfunc)
		snprintf(ln->slab_status, sizeof(ln->slab_status),
			 "no slab fields: this kernel has no bpf_get_kmem_cache() (Linux 6.13+)");
	if (err && kfunc) {
		snprintf(ln->slab_status, sizeof(ln->slab_status),
			 "no slab fields: loading their BPF programs failed: %s", strerror(-err));
		err = load_names(ln, false);
	}
	if (err) {
		snprintf(ln->rq_status, sizeof(ln->rq_status), "no rq.__lock: %s", strerror(-err));
		snprintf(ln->zone_status, sizeof(ln->zone_status), "no zone.lock: %s", strerror(-err));
		return;
	}
	find_rq(ln);
	zone_self_check(ln);
	if (kfunc && bpf_program__fd(ln->skel->progs.self_check) >= 0)
		self_check(ln);
}

/* kallsyms' _text, near its start (sorted by address): 0 if hidden or absent. */
static uint64_t kallsyms_text(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], name[64], type;
	unsigned long long addr;
	uint64_t text = 0;
	int n;

	for (n = 0; f && n < 1000 && fgets(line, sizeof(line), f); n++)
		if (sscanf(line, "%llx %c %63s", &addr, &type, name) == 3 && !strcmp(name, "_text")) {
			text = addr;
			break;
		}
	if (f)
		fclose(f);
	return text;
}

int lockname__open(struct lockname **out, int ncpus)
{
	struct lockname *ln = calloc(1, sizeof(*ln));
	uint64_t t0;

	*out = NULL;
	if (!ln)
		return -ENOMEM;
	ln->ncpus = ncpus;
	ln->caches_fd = -1;
	ln->page_size = sysconf(_SC_PAGESIZE);
	ln->btf = vmlinux_btf();
	htab_init(&ln->caches, sizeof(uint64_t), sizeof(struct slab_cache));
	htab_init(&ln->names, sizeof(uint64_t), sizeof(struct name_entry));
	t0 = now_ns();
	kpages_init(&ln->pages, ln->btf, "/proc/kcore", kallsyms_text());
	open_programs(ln);
	compose_status(ln);
	pr_info("lock names: %s\n", ln->status);
	pr_debug("lock names: programs loaded and checked in %.1f ms\n", (now_ns() - t0) / 1e6);
	*out = ln;
	return 0;
}

void lockname__free(struct lockname *ln)
{
	struct slab_cache *c;
	size_t it = 0;

	if (!ln)
		return;
	while ((c = htab_next(&ln->caches, &it, NULL)))
		free_cache(c);
	htab_free(&ln->caches);
	htab_free(&ln->names);
	names_bpf__destroy(ln->skel);
	free(ln->rq);
	free(ln);
}

bool lockname__want_slab(const struct lockname *ln)
{
	return ln && ln->slab;
}

void lockname__use_map(struct lockname *ln, int lock_caches_fd)
{
	if (ln)		/* locks on stacks are noted there even without slab fields */
		ln->caches_fd = lock_caches_fd;
}

size_t lockname__sources(const struct lockname *ln, struct lockname_source *out, size_t max)
{
	const struct lockname_source all[] = {
		{ "rq.__lock", ln->nrq > 0, ln->rq_status },
		{ "zone.lock", ln->zones, ln->zone_status },
		{ "slab fields", ln->slab, ln->slab_status },
		{ "merged slab caches", ln->slab, ln->slab ? ln->merged_status : "no slab fields" },
		{ "page-table locks", ln->pages.nranges > 0, ln->pages.status },
	};
	size_t i;

	for (i = 0; i < max && i < sizeof(all) / sizeof(all[0]); i++)
		out[i] = all[i];
	return i;
}

const char *lockname__status(const struct lockname *ln)
{
	return ln ? ln->status : "";
}

size_t lockname__checks(const struct lockname *ln, const struct lockname_check **out)
{
	*out = ln ? ln->checks : NULL;
	return ln ? ln->nchecks : 0;
}

void lockname__class_checks(const struct lockname *ln, uint64_t *agree, uint64_t *disagree)
{
	*agree = ln ? ln->class_agree : 0;
	*disagree = ln ? ln->class_disagree : 0;
}

/* --- naming at drain time --------------------------------------------------- */

static int page_lock_name(const struct lockname *ln, uint64_t addr, char *buf, size_t len)
{
	return kpages_name(&ln->pages, ln->btf, addr, buf, len);
}

/* The slab cache noted for addr (0: not in a slab); -ENOENT: none noted. */
static int noted_cache(struct lockname *ln, uint64_t addr, uint64_t *cache)
{
	if (ln->caches_fd < 0 || bpf_map_lookup_elem(ln->caches_fd, &addr, cache))
		return -ENOENT;
	bpf_map_delete_elem(ln->caches_fd, &addr);
	return 0;
}

static void flush_zones(struct lockname *ln)
{
	struct name_entry *e;
	size_t i;

	if (ln->nzone && !check_zones(ln, ln->zone_batch, ln->nzone)) {
		for (i = 0; i < ln->nzone; i++) {
			e = ln->skel->bss->is_zone[i] ? htab_find(&ln->names, &ln->zone_batch[i]) : NULL;
			if (e)
				snprintf(e->name, sizeof(e->name), "zone.lock");
		}
	}
	ln->nzone = 0;
}

/* A class lock named through the slab too: do the two agree? */
static void check_class(struct lockname *ln, uint32_t lock_class, const char *slab_name)
{
	const char *cls = lock_class_name(lock_class);

	if (!cls || !slab_name[0] || slab_name[0] == '&')
		return;
	if (!strcmp(cls, slab_name)) {
		ln->class_agree++;
		return;
	}
	ln->class_disagree++;
	pr_warn("lock names: the slab path names a %s \"%s\"\n", cls, slab_name);
}

static void name_new(struct lockname *ln, const struct cont_row_key *k, struct name_entry *e)
{
	uint64_t addr = k->lock_addr, cache;

	bool noted = !noted_cache(ln, addr, &cache);	/* read once, and deleted: the map stays small */

	if (!rq_field(ln, addr, e->name, sizeof(e->name))) {
		return;
	} else if (noted && cache == LS_CACHE_ON_STACK) {
		snprintf(e->name, sizeof(e->name), LOCK_NAME_STACK);
	} else if (!page_lock_name(ln, addr, e->name, sizeof(e->name))) {
		return;
	} else if (noted && cache) {
		slab_lock_name(ln, cache, addr, e->name, sizeof(e->name));
		check_class(ln, k->lock_class, e->name);
	} else if (ln->zones && !k->lock_class) {
		ln->zone_batch[ln->nzone++] = addr;
		if (ln->nzone == LS_NAMES_BATCH)
			flush_zones(ln);
	}
}

/* What was found at addr, NULL: nothing (the rule names it otherwise). */
static const char *found_at(const struct lockname *ln, uint64_t addr)
{
	const struct name_entry *e = ln ? htab_find(&ln->names, &addr) : NULL;

	return e && e->name[0] ? e->name : NULL;
}

int lockname__prepare(struct lockname *ln, struct cont_row *rows, size_t n)
{
	struct name_entry *e;
	size_t i;
	int inserted;

	for (i = 0; ln && i < n; i++) {
		e = htab_get(&ln->names, &rows[i].key.lock_addr, &inserted);
		if (!e)
			return -ENOMEM;
		if (inserted)
			name_new(ln, &rows[i].key, e);
	}
	if (ln) {
		flush_zones(ln);
		compose_status(ln);
	}
	/* After every insertion: the entries stay where they are until the next call. */
	for (i = 0; i < n; i++)
		rows[i].found = found_at(ln, rows[i].key.lock_addr);
	return 0;
}
