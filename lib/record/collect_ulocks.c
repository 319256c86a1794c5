// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The user-lock family (bpf/ulocks.bpf.c): futex waits per lock word,
 * process, kind and user stack ("ulocks"), the threads whose wakes ended
 * them ("ulocks.wakers"), and with the uprobes family every acquisition
 * and hold ("ulocks.holds") and what the uprobes cost ("ulocks.uprobes").
 * Losses go to "ulocks.lost". Static locks are named here, while their
 * process lives (lib/record/ulock_names.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/buf.h"
#include "record/collector_int.h"
#include "format/consts.h"
#include "base/log.h"
#include "sym/syms.h"
#include "record/ulock_names.h"
#include "ulocks.h"
#include "ulocks.skel.h"

_Static_assert(LS_ULOCK_STACK_DEPTH == TUSTACK_DEPTH, "a ulocks stack fits a table's user stack");
_Static_assert(LS_ULOCK_HIST_SLOTS == LS_HIST_SLOTS, "the wait histogram has the locks view's slots");
_Static_assert(sizeof(struct ulock_key) == 16 + 8 * LS_ULOCK_STACK_DEPTH, "no padding in ulock_key");
_Static_assert(sizeof(struct uwake_key) == 24 + 8 * LS_ULOCK_STACK_DEPTH, "no padding in uwake_key");
_Static_assert(sizeof(struct ulock_wait) == 40 + 4 * LS_ULOCK_HIST_SLOTS, "no padding in ulock_wait");
_Static_assert(sizeof(struct ulock_thread) == 144 + 16 * LS_ULOCK_STACK_DEPTH, "no padding in ulock_thread");

#define DEFAULT_BUDGET	10000	/* uprobe hits per second: 10-20 % of a CPU in a guest */
#define CALIB_CALLS	500	/* lock/unlock pairs timed with and without the probes */
#define MAX_VALS	(6 + LS_ULOCK_HIST_SLOTS)

/* The key columns, shared by the three row tables (lib/format/families.h). */
#define NKEY_COLS	ULOCKS__CONTENDED
_Static_assert((int)ULOCKS_WAKERS__WAKER == NKEY_COLS && (int)ULOCKS_HOLDS__ACQUIRED == NKEY_COLS,
	       "the values follow the same keys");
_Static_assert(ULOCKS__NCOLS == NKEY_COLS + MAX_VALS, "one column per hist slot");

#define NLOST	ULOCKS_LOST__NCOLS
_Static_assert(sizeof(struct ulock_lost) == NLOST * sizeof(__u64), "one column per loss counter");

enum { SRC_WAIT, SRC_WAKE, SRC_HOLD, SRC__COUNT };

#define NUPROBES	10

struct ulocks {
	struct ulocks_bpf *skel;
	int ncpus;
	struct tsource src[SRC__COUNT];
	struct ulock_names names;
	struct maps_cache own_maps;	/* when the collector was given none */
	struct tsource lost;
	struct trows_buf cost;
	/* uprobes */
	struct bpf_link *uprobes[NUPROBES];
	bool uprobes_on;	/* attached and not detached for the budget */
	bool detached;		/* over the budget */
	double hit_ns;		/* measured cost of one hit, 0 when unknown */
	uint32_t budget;
	bool force;
	uint64_t hits;		/* as of the last drain */
	uint64_t hits_t;	/* when */
	uint64_t cost_last[4];
};

static const char *const uprobe_funcs[NUPROBES] = {
	"pthread_mutex_lock", "pthread_mutex_unlock",
	"pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_rwlock_unlock",
	"pthread_spin_lock", "pthread_spin_unlock",
	"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait",
};

static struct bpf_program *uprobe_prog(struct ulocks_bpf *s, int i)
{
	struct bpf_program *progs[NUPROBES] = {
		s->progs.mutex_lock, s->progs.lock_release,
		s->progs.rwlock_rdlock, s->progs.rwlock_wrlock, s->progs.lock_release,
		s->progs.spin_lock, s->progs.lock_release,
		s->progs.cond_wait, s->progs.cond_wait, s->progs.cond_wait,
	};

	return progs[i];
}

/* --- rows ------------------------------------------------------------------ */

static void wait_values(const void *val, uint64_t *out)
{
	const struct ulock_wait *w = val;
	int i;

	out[0] = w->count;
	out[1] = w->total_ns;
	out[2] = w->count ? w->min_ns : 0;	/* 0: none, for a CPU without waits */
	out[3] = w->max_ns;
	out[4] = w->count ? w->waiter_min : 0;
	out[5] = w->waiter_max;
	for (i = 0; i < LS_ULOCK_HIST_SLOTS; i++)
		out[6 + i] = w->hist[i];
}

static void wake_values(const void *val, uint64_t *out)
{
	const struct uwake_val *w = val;

	out[0] = w->wakes;
	out[1] = w->wait_ns;
}

static void hold_values(const void *val, uint64_t *out)
{
	const struct uhold_val *h = val;

	out[0] = h->acquired;
	out[1] = h->held;
	out[2] = h->hold_ns;
	out[3] = h->hold_max_ns;
}

static void stack_of(struct tustack *s, uint32_t tgid, const __u64 *frames)
{
	s->tgid = tgid;
	for (s->n = 0; s->n < TUSTACK_DEPTH && frames[s->n]; s->n++)
		s->frames[s->n] = frames[s->n];
}

/* lock, pid, kind, (stack), name, comm; the stack column is set later. */
static void common_keys(struct ulocks *u, uint64_t lock, uint32_t tgid, uint32_t kind, uint64_t *row)
{
	row[ULOCKS__LOCK] = lock;
	row[ULOCKS__PID] = tgid;
	row[ULOCKS__KIND] = kind;
	row[ULOCKS__NAME] = tptr(ulock_names__lock(&u->names, tgid, lock));
	row[ULOCKS__COMM] = tptr(ulock_names__comm(&u->names, tgid));
}

static int lock_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	const struct ulock_key *k = key;

	common_keys(ctx, k->lock, k->tgid, k->kind, row);
	stack_of(stack, k->tgid, k->frames);
	return 0;
}

static int wake_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	const struct uwake_key *k = key;

	common_keys(ctx, k->lock, k->tgid, k->kind, row);
	row[ULOCKS_WAKERS__WAKER] = k->waker;
	row[ULOCKS_WAKERS__FROM_OWNER] = k->from_owner;
	stack_of(stack, k->tgid, k->frames);
	return 0;
}

/*
 * At the end: contentions still open (threads still waiting, or woken
 * and holding the lock), each one wait up to now, as the kernel's lock
 * waits are closed at stop.
 */
static int open_waits(struct ulocks *u, struct htab *extra)
{
	struct bpf_map *m = u->skel->maps.threads;
	uint64_t now = now_ns(), *v;
	struct ulock_thread t;
	struct ulock_key k;
	__u32 tid, next, *prev = NULL;
	uint64_t d;

	while (!bpf_map__get_next_key(m, prev, &next, sizeof(next))) {
		tid = next;
		prev = &tid;
		if (bpf_map__lookup_elem(m, &tid, sizeof(tid), &t, sizeof(t), 0) || !t.lock)
			continue;
		d = t.waited_ns + (t.wait_start && now > t.wait_start ? now - t.wait_start : 0);
		memset(&k, 0, sizeof(k));
		k.lock = t.lock;
		k.tgid = t.tgid;
		k.kind = t.kind;
		memcpy(k.frames, t.frames, sizeof(k.frames));
		v = htab_get(extra, &k, NULL);
		if (!v)
			return -ENOMEM;
		v[0] = 1;
		v[1] += 1;
		v[2] += d;
		tsource_merge(&v[3], d, TCOL_MIN);
		tsource_merge(&v[4], d, TCOL_MAX);
		tsource_merge(&v[5], tid, TCOL_MIN);
		tsource_merge(&v[6], tid, TCOL_MAX);
		v[7 + log2_slot(d, LS_ULOCK_HIST_SLOTS)]++;
	}
	return 0;
}

/* --- uprobes ---------------------------------------------------------------- */

static uint64_t uprobe_hits(struct ulocks *u)
{
	uint64_t *per = calloc(u->ncpus, sizeof(*per)), sum = 0;
	uint32_t zero = 0;
	int cpu;

	if (per && !bpf_map__lookup_elem(u->skel->maps.uprobe_hits, &zero, sizeof(zero), per,
					 u->ncpus * sizeof(*per), 0))
		for (cpu = 0; cpu < u->ncpus; cpu++)
			sum += per[cpu];
	free(per);
	return sum;
}

static void detach_uprobes(struct ulocks *u)
{
	int i;

	for (i = 0; i < NUPROBES; i++) {
		bpf_link__destroy(u->uprobes[i]);
		u->uprobes[i] = NULL;
	}
	u->uprobes_on = false;
}

/*
 * The budget is checked once a drain: a rate above it detaches the
 * uprobes (the futex waits go on) unless --force.
 */
static void check_budget(struct collector *c, struct ulocks *u, uint64_t hits, uint64_t now)
{
	struct family_status *st = status_of(c, FAMILY_UPROBES);
	double secs = (now - u->hits_t) / 1e9;
	double rate = secs > 0 ? (hits - u->hits) / secs : 0;
	size_t used;

	if (!u->uprobes_on || u->force || rate <= u->budget)
		return;
	detach_uprobes(u);
	u->detached = true;
	pr_warn("uprobes: %.0f hits/s is over the budget of %u/s (%.0f %% of a CPU at %.1f us a hit): "
		"detached, futex waits go on; --event-budget N or --force keeps them\n",
		rate, u->budget, rate * u->hit_ns / 1e7, u->hit_ns / 1e3);
	used = strlen(st->mode);
	snprintf(st->mode + used, sizeof(st->mode) - used, "; detached: %.0f hits/s over budget", rate);
}

static int drain_cost(struct collector *c, struct ulocks *u)
{
	uint64_t hits = uprobe_hits(u), now = now_ns(), *row;
	uint64_t cur[4] = { hits, (uint64_t)(u->hit_ns + 0.5), u->budget, u->detached };

	check_budget(c, u, hits, now);
	cur[3] = u->detached;
	u->hits = hits;
	u->hits_t = now;
	u->cost.rows.n = 0;
	if (!memcmp(cur, u->cost_last, sizeof(cur)))
		return 0;
	row = trows_add(&u->cost);
	if (!row)
		return -ENOMEM;
	row[ULOCKS_UPROBES__HITS] = cur[0] - u->cost_last[0];
	memcpy(&row[ULOCKS_UPROBES__HIT_NS], &cur[1], 3 * sizeof(cur[0]));
	memcpy(u->cost_last, cur, sizeof(cur));
	return collector_add_table(c, &u->cost.rows);
}

/* The C library a process maps (ours for pid <= 0), for the uprobes. */
static void find_libc(pid_t pid, char *path, size_t len)
{
	char maps[64], line[4096 + 128];
	struct proc_map m;
	const char *base;
	bool found = false;
	FILE *f;

	snprintf(path, len, "libc.so.6");	/* libbpf searches the usual places */
	if (pid > 0)
		snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	else
		snprintf(maps, sizeof(maps), "/proc/self/maps");
	f = fopen(maps, "re");
	if (!f)
		return;
	while (!found && fgets(line, sizeof(line), f)) {
		if (procmaps_parse_line(line, &m))
			continue;
		base = strrchr(m.path, '/');
		found = base && (!strncmp(base + 1, "libc.so", 7) || !strncmp(base + 1, "libc-", 5));
		if (found)
			snprintf(path, len, "%s", m.path);
		free(m.path);
	}
	fclose(f);
}

/* Offsets found here: libbpf 1.1 refuses the versioned aliases of glibc. */
static int attach_one(struct ulocks *u, int i, pid_t pid, const char *libc, struct bpf_link **out)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o);
	uint64_t off = 0;

	if (syms_func_offset(libc, uprobe_funcs[i], &off))
		o.func_name = uprobe_funcs[i];
	*out = bpf_program__attach_uprobe_opts(uprobe_prog(u->skel, i), pid, libc, off, &o);
	if (!*out)
		return -errno;
	return 0;
}

static pthread_mutex_t calib_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t time_lock_calls(void)
{
	uint64_t t0 = now_ns();
	int i;

	for (i = 0; i < CALIB_CALLS; i++) {
		pthread_mutex_lock(&calib_lock);
		pthread_mutex_unlock(&calib_lock);
	}
	return now_ns() - t0;
}

/*
 * What one hit costs on this machine: our own lock calls, timed without
 * and then with the two mutex probes on this process (the programs see
 * self_tgid and return at once: the cost is the trap).
 */
static double measure_hit_ns(struct ulocks *u, const char *libc)
{
	struct bpf_link *l[2] = { NULL, NULL };
	uint64_t bare, probed;

	bare = time_lock_calls();
	if (attach_one(u, 0, getpid(), libc, &l[0]) || attach_one(u, 1, getpid(), libc, &l[1])) {
		bpf_link__destroy(l[0]);
		return 0;
	}
	probed = time_lock_calls();
	bpf_link__destroy(l[0]);
	bpf_link__destroy(l[1]);
	return probed > bare ? (double)(probed - bare) / (2 * CALIB_CALLS) : 0;
}

/* The uprobes in groups: a lock type's functions go on together or not at all. */
static const struct {
	const char *what;
	int first, n;
} uprobe_groups[] = {
	{ "mutex", 0, 2 }, { "rwlock", 2, 3 }, { "spin", 5, 2 },
	/* Which mutex a condition wait lets go; without them, every lock held. */
	{ "cond", 7, 2 }, { "cond_clockwait", 9, 1 },
};

#define NGROUPS	(sizeof(uprobe_groups) / sizeof(uprobe_groups[0]))

static int attach_group(struct ulocks *u, size_t g, pid_t pid, const char *libc, char *why, size_t len)
{
	int i, err = 0;

	for (i = uprobe_groups[g].first; i < uprobe_groups[g].first + uprobe_groups[g].n && !err; i++)
		err = attach_one(u, i, pid, libc, &u->uprobes[i]);
	if (!err)
		return 0;
	/* pthread_spin_lock starts with a lock-prefixed instruction: ENOTSUPP (524). */
	snprintf(why, len, "%s: %s", uprobe_funcs[i - 1],
		 err == -524 ? "its first instruction cannot be probed" : strerror(-err));
	for (i = uprobe_groups[g].first; i < uprobe_groups[g].first + uprobe_groups[g].n; i++) {
		bpf_link__destroy(u->uprobes[i]);
		u->uprobes[i] = NULL;
	}
	return err;
}

/*
 * The mutex probes or nothing; rwlocks and spin locks where their
 * functions can be probed (the mode says which were not).
 */
static int attach_uprobes(struct collector *c, struct ulocks *u, struct family_status *st)
{
	pid_t pid = c->o.target_pid > 0 ? c->o.target_pid : -1;
	char libc[256], where[32], why[96], skipped[200] = "";
	size_t g, used = 0;
	int err;

	find_libc(pid, libc, sizeof(libc));
	for (g = 0; g < NGROUPS; g++) {
		err = attach_group(u, g, pid, libc, why, sizeof(why));
		if (err && !g) {
			snprintf(st->why, sizeof(st->why), "uprobe on %s in %.120s", why, libc);
			return err;
		}
		if (err && used < sizeof(skipped))
			used += snprintf(skipped + used, sizeof(skipped) - used, "; %s not probed (%s)",
					 uprobe_groups[g].what, why);
	}
	u->uprobes_on = true;
	u->hit_ns = measure_hit_ns(u, libc);
	u->hits = uprobe_hits(u);
	u->hits_t = now_ns();
	snprintf(where, sizeof(where), pid > 0 ? "pid %d" : "every process", pid);
	snprintf(st->mode, sizeof(st->mode), "uprobe (%s) in %.60s; %.1f us a hit, budget %u/s%s%.90s",
		 where, libc, u->hit_ns / 1e3, u->budget, u->force ? " (--force)" : "", skipped);
	pr_notice("uprobes: %.1f us a hit (measured); above %u hits/s (%.0f %% of a CPU) they are %s\n",
		  u->hit_ns / 1e3, u->budget, u->budget * u->hit_ns / 1e7,
		  u->force ? "kept (--force)" : "detached (--event-budget, --force)");
	return 0;
}

/* Whether the uprobes may go where they would: one process, or --force. */
static bool uprobes_allowed(struct collector *c, const struct features *f, struct family_status *st)
{
	if (!f->r[FEAT_UPROBE].ok) {
		snprintf(st->why, sizeof(st->why), "%s", f->r[FEAT_UPROBE].detail);
		return false;
	}
	if (c->o.target_pid <= 0 && !c->o.force) {
		snprintf(st->why, sizeof(st->why), "%s",
			 "system-wide uprobes trap every process's lock calls: give a COMMAND or -p PID, or --force");
		return false;
	}
	return true;
}

/* --- the family ------------------------------------------------------------- */

static bool tracepoint_exists(const char *event)
{
	char path[256];

	if (!tracefs_path())
		return false;
	snprintf(path, sizeof(path), "%s/events/syscalls/%s/id", tracefs_path(), event);
	return !access(path, R_OK);
}

/* futex2 (v6.7) and futex_waitv (v5.16) where the kernel has them. */
static void futex2_events(bool *wait, bool *waitv)
{
	*wait = tracepoint_exists("sys_enter_futex_wait") && tracepoint_exists("sys_enter_futex_wake");
	*waitv = tracepoint_exists("sys_enter_futex_waitv");
}

static void choose_futex2(struct ulocks_bpf *s)
{
	bool wait, waitv;

	futex2_events(&wait, &waitv);
	bpf_program__set_autoload(s->progs.futex2_wait_tp, wait);
	bpf_program__set_autoload(s->progs.futex2_wait_exit_tp, wait);
	bpf_program__set_autoload(s->progs.futex2_wake_tp, wait);
	bpf_program__set_autoload(s->progs.futex_waitv_tp, waitv);
	bpf_program__set_autoload(s->progs.futex_waitv_exit_tp, waitv);
}

/* The syscall tracepoints, whatever --attach says: there is no other way in. */
static int ulocks_choose_mode(const struct features *f, enum attach_mode want, struct family_status *st)
{
	bool wait, waitv;

	(void)f;
	(void)want;
	if (!tracepoint_exists("sys_enter_futex") || !tracepoint_exists("sys_exit_futex")) {
		snprintf(st->why, sizeof(st->why), "%s",
			 tracefs_path() ? "no syscalls:sys_enter_futex tracepoint (CONFIG_FTRACE_SYSCALLS)"
					: "tracefs not available");
		return -EOPNOTSUPP;
	}
	futex2_events(&wait, &waitv);
	snprintf(st->mode, sizeof(st->mode), "tracepoint (futex%s)", wait || waitv ? ", futex2" : "");
	return 0;
}

static void keep_uprobes(struct ulocks_bpf *s, bool on)
{
	bpf_program__set_autoload(s->progs.mutex_lock, on);
	bpf_program__set_autoload(s->progs.rwlock_rdlock, on);
	bpf_program__set_autoload(s->progs.rwlock_wrlock, on);
	bpf_program__set_autoload(s->progs.spin_lock, on);
	bpf_program__set_autoload(s->progs.lock_release, on);
	bpf_program__set_autoload(s->progs.cond_wait, on);
}

/* One per-CPU map of rows and the table it becomes. */
static struct tsource source(const struct tschema *schema, struct bpf_map *map, uint32_t key_size,
			     uint32_t val_size, uint32_t nkeys, void (*values)(const void *, uint64_t *),
			     int (*keys)(void *, const void *, uint64_t *, void *), struct ulocks *u)
{
	return (struct tsource){ .schema = schema, .map = map, .percpu = true, .key_size = key_size,
		.val_size = val_size, .nkeys = nkeys, .values = values, .keys = keys, .ctx = u };
}

static int init_sources(struct ulocks *u, int ncpus)
{
	struct ulocks_bpf *s = u->skel;
	int i, err = 0;

	u->src[SRC_WAIT] = source(ls_schema(TBL_ULOCKS), s->maps.wait_rows, sizeof(struct ulock_key),
				  sizeof(struct ulock_wait), NKEY_COLS, wait_values, lock_keys, u);
	u->src[SRC_WAKE] = source(ls_schema(TBL_ULOCKS_WAKERS), s->maps.wake_rows, sizeof(struct uwake_key),
				  sizeof(struct uwake_val), ULOCKS_WAKERS__WAKES, wake_values, wake_keys, u);
	u->src[SRC_HOLD] = source(ls_schema(TBL_ULOCKS_HOLDS), s->maps.hold_rows, sizeof(struct ulock_key),
				  sizeof(struct uhold_val), NKEY_COLS, hold_values, lock_keys, u);
	u->lost = source(ls_schema(TBL_ULOCKS_LOST), s->maps.ulock_lost, sizeof(uint32_t), sizeof(struct ulock_lost),
			 0, NULL, NULL, u);
	for (i = 0; i < SRC__COUNT && !err; i++)
		err = tsource_init(&u->src[i], ncpus);
	return err ? err : tsource_init(&u->lost, ncpus);
}

static struct ulocks *ulocks_new(struct collector *c)
{
	struct ulocks *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->ncpus = c->ncpus;
	u->budget = c->o.event_budget ? c->o.event_budget : DEFAULT_BUDGET;
	u->force = c->o.force;
	u->cost.rows.schema = ls_schema(TBL_ULOCKS_UPROBES);
	maps_cache__init(&u->own_maps, 0);
	if (ulock_names__init(&u->names, c->o.maps ? c->o.maps : &u->own_maps))
		return u;	/* the caller sees skel == NULL */
	u->skel = ulocks_bpf__open();
	if (u->skel && init_sources(u, c->ncpus)) {
		ulocks_bpf__destroy(u->skel);
		u->skel = NULL;
	}
	return u;
}

static int ulocks_open(struct collector *c, const struct features *f, struct family_status *st,
		       void **privp)
{
	struct family_status *up = status_of(c, FAMILY_UPROBES);
	bool want_uprobes = c->o.families & FAMILY_UPROBES;
	struct ulocks *u;
	int err = ulocks_choose_mode(f, c->o.mode, st);

	if (err)
		return err;
	u = ulocks_new(c);
	if (!u)
		return -ENOMEM;
	*privp = u;
	if (!u->skel)
		return -ENOMEM;
	u->skel->rodata->filter_targets = c->o.filter_targets;
	u->skel->rodata->pidns_dev = c->pidns_dev;
	u->skel->rodata->pidns_ino = c->pidns_ino;
	u->skel->rodata->self_tgid = getpid();
	choose_futex2(u->skel);
	/* Without it a thread's slot is never freed: the map fills, and says so (threads_full). */
	bpf_program__set_autoload(u->skel->progs.thread_exit_tp, f->r[FEAT_TP_SCHED].ok);
	want_uprobes = want_uprobes && uprobes_allowed(c, f, up);
	keep_uprobes(u->skel, want_uprobes);
	u->skel->rodata->track_holds = want_uprobes;
	err = collector_prepare_object(c, u->skel->obj);
	if (!err)
		err = ulocks_bpf__load(u->skel);
	if (!err)
		err = ulocks_bpf__attach(u->skel);
	if (err) {
		snprintf(st->why, sizeof(st->why), "loading the futex probes failed: %s", strerror(-err));
		return err;
	}
	if (want_uprobes)
		attach_uprobes(c, u, up);
	return 0;
}

/* The contended acquisitions of locks in this drain's wait rows, as the lock table counts them. */
static uint64_t lock_waits(const struct trows *r)
{
	uint32_t nc = r->schema->ncols, kind;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < r->n; i++) {
		kind = r->v[i * nc + ULOCKS__KIND];
		if (kind != ULK_COND && kind != ULK_FUTEX)
			sum += r->v[i * nc + ULOCKS__CONTENDED];
	}
	return sum;
}

static int ulocks_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct ulocks *u = priv;
	struct htab extra;
	int i, err = 0;

	htab_init(&extra, sizeof(struct ulock_key), (1 + MAX_VALS) * sizeof(uint64_t));
	if (final)
		err = open_waits(u, &extra);
	for (i = 0; i < SRC__COUNT && !err; i++)
		err = collector_drain_source(c, &u->src[i], i == SRC_WAIT && final ? &extra : NULL);
	htab_free(&extra);
	if (!err)
		s->ucontended += lock_waits(&u->src[SRC_WAIT].rows.rows);
	if (!err)
		err = collector_drain_source(c, &u->lost, NULL);
	if (!err && (u->uprobes_on || u->detached))
		err = drain_cost(c, u);
	if (final && u->hits && u->hit_ns > 0)
		pr_notice("uprobes: %llu hits x %.1f us = %.2f s of CPU time in traps\n",
			  (unsigned long long)u->hits, u->hit_ns / 1e3, u->hits * u->hit_ns / 1e9);
	return err;
}

static void ulocks_detach(void *priv)
{
	struct ulocks *u = priv;

	detach_uprobes(u);
	if (u->skel)
		ulocks_bpf__detach(u->skel);
}

static void ulocks_free(void *priv)
{
	struct ulocks *u = priv;
	int i;

	detach_uprobes(u);
	ulocks_bpf__destroy(u->skel);
	for (i = 0; i < SRC__COUNT; i++)
		tsource_free(&u->src[i]);
	tsource_free(&u->lost);
	ulock_names__free(&u->names);
	maps_cache__free(&u->own_maps);
	trows_buf_free(&u->cost);
	free(u);
}

static const struct bpf_object *ulocks_object(const void *priv)
{
	const struct ulocks *u = priv;

	return u->skel ? u->skel->obj : NULL;
}

/* The waits', wakes' and holds' rows, keyed by lock, process and stack. */
static int ulocks_trim(struct collector *c, void *priv, uint32_t before, uint64_t *late)
{
	struct ulocks *u = priv;
	int i, n, total = 0;

	(void)c;
	for (i = 0; i < SRC__COUNT; i++) {
		n = tsource_trim(&u->src[i], before, late);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

/* The fullest of the three tables; the drain that leaves it a quarter full. */
static unsigned ulocks_fill(const void *priv, uint32_t latest, uint32_t *before)
{
	const struct ulocks *u = priv;
	unsigned fill, most = 0;
	uint32_t b;
	int i;

	*before = 0;
	for (i = 0; i < SRC__COUNT; i++) {
		fill = tsource_fill(&u->src[i], latest, &b);
		if (fill > most) {
			most = fill;
			*before = b;
		}
	}
	return most;
}

const struct family_ops ulocks_family = {
	.choose_mode = ulocks_choose_mode,
	.open = ulocks_open,
	.drain = ulocks_drain,
	.detach = ulocks_detach,
	.free = ulocks_free,
	.object = ulocks_object,
	.trim = ulocks_trim,
	/* Its own losses are a table (ulocks.lost). */
	.trim_lost = "ulocks_trimmed_late",
	.fill = ulocks_fill,
};

/*
 * "uprobes" is a switch on the ulocks family, which attaches them; as a
 * family of its own it has a status (attached, cost, or why not) and a
 * place in the profile's META, and nothing to drain.
 */
static int uprobes_choose_mode(const struct features *f, enum attach_mode want, struct family_status *st)
{
	(void)want;
	if (!f->r[FEAT_UPROBE].ok) {
		snprintf(st->why, sizeof(st->why), "%s", f->r[FEAT_UPROBE].detail);
		return -EOPNOTSUPP;
	}
	snprintf(st->mode, sizeof(st->mode), "uprobe");
	return 0;
}

/* ulocks_open() has set this status already, or left its why. */
static int uprobes_open(struct collector *c, const struct features *f, struct family_status *st,
			void **privp)
{
	(void)f;
	(void)privp;
	if (!(c->o.families & FAMILY_ULOCKS)) {
		snprintf(st->why, sizeof(st->why), "%s", "uprobes come with the ulocks family: -e ulocks,uprobes");
		return -EINVAL;
	}
	if (status_of(c, FAMILY_ULOCKS)->state != FSTATE_ATTACHED && !st->why[0])
		snprintf(st->why, sizeof(st->why), "%s", "the ulocks family did not attach");
	return st->mode[0] ? 0 : -ENODEV;
}

static int uprobes_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	(void)c;
	(void)priv;
	(void)s;
	(void)final;
	return 0;
}

static void uprobes_nop(void *priv)
{
	(void)priv;
}

static const struct bpf_object *uprobes_object(const void *priv)
{
	(void)priv;
	return NULL;
}

const struct family_ops uprobes_family = {
	.choose_mode = uprobes_choose_mode,
	.open = uprobes_open,
	.drain = uprobes_drain,
	.detach = uprobes_nop,
	.free = uprobes_nop,
	.object = uprobes_object,
};
