// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The locks view: user locks (the ulocks family), their waits, holds and callers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format/lock_naming.h"
#include "format/locktype.h"
#include "view/view_locks_int.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The C library's locking code: the frames between a futex wait or a
 * lock uprobe and whoever took the lock. The whole library counts: its
 * lock functions have many local helpers (__lll_lock_wait_private+0x50
 * is __lll_lock_wait), and the names cover a static libc.
 */
static bool user_lock_frame(const char *func, const char *module)
{
	static const char *const prefixes[] = {
		"__lll_", "lll_", "pthread_mutex_", "pthread_rwlock_", "pthread_spin_", "pthread_cond_",
		"__pthread_", "___pthread_", "__futex", "futex_", "__GI_", "__condvar_",
	};
	const char *base = base_name(module);
	size_t i;

	if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5) || !strncmp(base, "libpthread", 10))
		return true;
	for (i = 0; func && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(func, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A user PC's function (the real one, outside its inlines), or NULL. */
static const char *user_function(const struct profile *p, uint32_t tgid, uint64_t pc, const char **module)
{
	const struct usym_val *u = profile__usym(p, tgid, pc);
	const struct mapping *m;

	*module = "";
	if (u && u->module)
		*module = profile__str(p, u->module);
	else if ((m = profile__mapping(p, tgid, pc)))
		*module = profile__str(p, m->path);
	if (!u || !u->nframes)
		return NULL;
	return profile__str(p, p->uframes[u->first + u->nframes - 1].function);
}

/*
 * A wait primitive's wrapper in the program itself: a function whose name
 * says it waits on a semaphore or a futex (PostgreSQL's PGSemaphoreLock,
 * a thread pool's futex_wait), or the C library's syscall() linked into a
 * static binary (Rust's thread parking). The frame above it is where the
 * program waits.
 */
static bool user_wait_wrapper(const char *func)
{
	return func && (strcasestr(func, "sema") || strcasestr(func, "futex") || !strcmp(func, "syscall"));
}

/* A frame as a caller: its function, or "[unknown] module". */
static void user_frame_name(const char *func, const char *module, char *buf, size_t len)
{
	if (func)
		snprintf(buf, len, "%s", func);
	else
		snprintf(buf, len, "[unknown] %s", *module ? base_name(module) : "[anon]");
}

/*
 * The first frame of a user stack outside the C library's locking code
 * (and, with wrappers, outside the wait wrappers above it): in buf, and
 * its index; the stack's length when there is none, buf then the
 * outermost lock function ("[no stack]" for a negative id).
 */
static uint32_t user_stack_first(const struct profile *p, uint32_t tgid, int32_t stack_id, bool wrappers,
				 char *buf, size_t len)
{
	const struct stack *s = stack_id >= 0 ? profile__stack(p, stack_id) : NULL;
	const char *func, *module, *last = NULL;
	uint32_t i;

	for (i = 0; s && i < s->nframes; i++) {
		func = user_function(p, tgid, s->frames[i], &module);
		if (user_lock_frame(func, module) || (wrappers && user_wait_wrapper(func))) {
			last = func ? func : last;
			continue;
		}
		user_frame_name(func, module, buf, len);
		return i;
	}
	/* All of it is lock code (or no stack): the outermost lock function. */
	snprintf(buf, len, "%s", last ? last : s ? "[unknown]" : "[no stack]");
	return i;
}

const char *user_stack_caller(const struct profile *p, uint32_t tgid, int32_t stack_id, char *buf, size_t len)
{
	user_stack_first(p, tgid, stack_id, false, buf, len);
	return buf;
}

/*
 * A wait in the C library's thread join: on the word the kernel clears
 * when the thread ends, one thread's, and an event however long.
 */
static bool user_stack_joins(const struct profile *p, uint32_t tgid, int32_t stack_id)
{
	const struct stack *s = stack_id >= 0 ? profile__stack(p, stack_id) : NULL;
	const char *func, *module;
	uint32_t i;

	for (i = 0; s && i < s->nframes; i++) {
		func = user_function(p, tgid, s->frames[i], &module);
		if (!user_lock_frame(func, module))
			return false;
		if (func && strstr(func, "join"))
			return true;
	}
	return false;
}

/*
 * A per-thread wait's site (the first frame outside the wait primitive
 * and its wrappers) and caller (the frame above the site: "[no caller]"
 * where the stack ends there).
 */
static void user_wait_site(const struct profile *p, uint32_t tgid, int32_t stack_id, char *site, size_t slen,
			   char *caller, size_t clen)
{
	const struct stack *s = stack_id >= 0 ? profile__stack(p, stack_id) : NULL;
	uint32_t i = user_stack_first(p, tgid, stack_id, true, site, slen);
	const char *func, *module;

	if (!s || i + 1 >= s->nframes) {
		snprintf(caller, clen, "[no caller]");
		return;
	}
	func = user_function(p, tgid, s->frames[i + 1], &module);
	user_frame_name(func, module, caller, clen);
}

void lock_view__frame(const struct lock_view *v, const struct lock_part *s, uint64_t pc,
		      char *buf, size_t len)
{
	const char *func, *module;

	if (s->stack_id < 0 || (uint32_t)s->stack_id >> STACK_SPACE_SHIFT != STACK_TABLE_USER) {
		ksyms_format(&v->p->ksyms, pc, buf, len);
		return;
	}
	func = user_function(v->p, s->tgid, pc, &module);
	if (func)
		snprintf(buf, len, "%s (%s)", func, *module ? base_name(module) : "[anon]");
	else
		snprintf(buf, len, "0x%" PRIx64 " (%s)", pc, *module ? base_name(module) : "[anon]");
}

/* The key columns of the ulocks tables; false when a table lacks one. */
struct ucols {
	int lock, pid, kind, stack, name, comm;
};

static bool ucols_of(const struct ptable *t, struct ucols *c)
{
	/* The three ulocks row tables share their key columns (lib/format/families.c). */
	c->lock = ptable__lcol(t, t->ls_id, ULOCKS__LOCK);
	c->pid = ptable__lcol(t, t->ls_id, ULOCKS__PID);
	c->kind = ptable__lcol(t, t->ls_id, ULOCKS__KIND);
	c->stack = ptable__lcol(t, t->ls_id, ULOCKS__STACK);
	c->name = ptable__lcol(t, t->ls_id, ULOCKS__NAME);
	c->comm = ptable__lcol(t, t->ls_id, ULOCKS__COMM);
	return c->lock >= 0 && c->pid >= 0 && c->kind >= 0 && c->stack >= 0 && c->name >= 0 && c->comm >= 0;
}

/* What a row of a ulocks table says about its lock, its caller and its task. */
struct urow {
	uint64_t lock;
	uint32_t tgid;
	uint32_t flags;
	int32_t stack_id;
	const char *name;	/* the variable, "" on the heap */
	const char *comm;
	char caller[256];
};

static void urow_of(const struct profile *p, const struct ucols *c, const uint64_t *row, struct urow *r)
{
	r->lock = row[c->lock];
	r->tgid = row[c->pid];
	r->flags = LOCK_F_USER | (uint32_t)row[c->kind];
	r->stack_id = (int32_t)row[c->stack];
	r->name = profile__str(p, row[c->name]);
	r->comm = profile__str(p, row[c->comm]);
	user_stack_caller(p, r->tgid, r->stack_id, r->caller, sizeof(r->caller));
}

/*
 * Event waits (condition variables, other futexes) are no lock: they show
 * only when --type names their type.
 */
static bool urow_matches(const struct urow *r, const char *name, const struct lock_filter *f)
{
	if (lock_type_is_wait(r->flags) && (!f->type || !strcmp(f->type, "u")))
		return false;
	if (f->type && !lock_type_matches(f->type, r->flags))
		return false;
	if (!lv_glob_ok(f->lock, name) || !lv_glob_ok(f->caller, r->caller) || !lv_glob_ok(f->comm, r->comm))
		return false;
	return f->pid < 0 || (uint32_t)f->pid == r->tgid;
}

/* A lock on the heap: named by its address and its busiest caller's function. */
struct uname {
	uint32_t caller;	/* view string id */
	uint64_t weight;
};

static int note_caller(struct lock_view *v, struct htab *heap, const struct urow *r, uint64_t weight)
{
	struct uname *n;
	uint32_t id;
	int inserted, err;

	if (r->name[0])
		return 0;
	err = lv_intern(v, r->caller, &id);
	n = err ? NULL : htab_get(heap, &r->lock, &inserted);
	if (!n)
		return -ENOMEM;
	if (inserted || weight > n->weight ||
	    (weight == n->weight && strcmp(r->caller, lock_view__str(v, n->caller)) < 0)) {
		n->caller = id;
		n->weight = weight;
	}
	return 0;
}

/* What naming a user row needs: the heap locks' names, the words' waiters. */
struct uctx {
	struct htab heap;	/* lock -> struct uname */
	struct htab waiters;	/* lock -> struct uwaiters */
};

static int heap_names(struct lock_view *v, struct htab *heap)
{
	static const enum ls_table tables[] = { TBL_ULOCKS, TBL_ULOCKS_HOLDS };
	static const unsigned int weights[] = { ULOCKS__CONTENDED, ULOCKS_HOLDS__ACQUIRED };
	const struct ptable *t;
	const uint64_t *row;
	struct ucols c;
	struct urow r;
	size_t i, it;
	int wc, err = 0;

	for (i = 0; i < 2 && !err; i++) {
		t = profile__ltable(v->p, tables[i]);
		wc = ptable__lcol(t, tables[i], weights[i]);
		if (!t || wc < 0 || !ucols_of(t, &c))
			continue;
		for (it = 0; !err && (row = htab_next(&t->rows, &it, NULL));) {
			urow_of(v->p, &c, row, &r);
			err = note_caller(v, heap, &r, row[wc]);
		}
	}
	return err;
}

static int urow_name(struct lock_view *v, const struct htab *heap, const struct urow *r, uint32_t *id)
{
	const struct uname *n;
	char name[320];

	if (r->name[0])
		return lv_intern(v, r->name, id);
	n = htab_find(heap, &r->lock);
	lock_name_user_heap(r->lock, n ? lock_view__str(v, n->caller) : NULL, name, sizeof(name));
	return lv_intern(v, name, id);
}

/* The lowest and highest TID that waited on a futex word, over all its rows. */
struct uwaiters {
	uint64_t min, max;
};

/*
 * Which words one thread alone waited on, from the waiter columns (a
 * profile recorded before them has none: no word is known to be one
 * thread's). Keyed by the word alone, whatever the process: a word
 * shared between processes, waited on by one thread in each, is shared.
 */
static int index_waiters(const struct profile *p, struct htab *waiters)
{
	const struct ptable *t = profile__ltable(p, TBL_ULOCKS);
	int lc = ptable__lcol(t, TBL_ULOCKS, ULOCKS__LOCK), nc = ptable__lcol(t, TBL_ULOCKS, ULOCKS__CONTENDED);
	int lo = ptable__lcol(t, TBL_ULOCKS, ULOCKS__WAITER_MIN), hi = ptable__lcol(t, TBL_ULOCKS, ULOCKS__WAITER_MAX);
	struct uwaiters *w;
	const uint64_t *row;
	size_t it = 0;
	int inserted;

	while (lc >= 0 && nc >= 0 && lo >= 0 && hi >= 0 && (row = htab_next(&t->rows, &it, NULL))) {
		if (!row[nc])
			continue;
		w = htab_get(waiters, &row[lc], &inserted);
		if (!w)
			return -ENOMEM;
		if (inserted || row[lo] < w->min)
			w->min = row[lo];
		if (inserted || row[hi] > w->max)
			w->max = row[hi];
	}
	return 0;
}

/*
 * A wait on a futex word that one thread alone waited on over the
 * recording (a per-thread semaphore or event) is no lock: it joins the
 * other such waits of its wait site, as one row of type u:site. A thread
 * join's stays an event.
 */
static void per_thread_site(const struct profile *p, const struct htab *waiters, struct urow *r,
			    char *site, size_t len)
{
	const struct uwaiters *w;

	site[0] = 0;
	if (!lock_type_is_wait(r->flags) || !(w = htab_find(waiters, &r->lock)) || !w->min || w->min != w->max ||
	    user_stack_joins(p, r->tgid, r->stack_id))
		return;
	r->flags = LOCK_F_USER | ULK_SITE;
	user_wait_site(p, r->tgid, r->stack_id, site, len, r->caller, sizeof(r->caller));
}

/* A row of the "ulocks" table: contended acquisitions and their waits. */
static int add_user_wait(struct lock_view *v, struct htab *index, const struct uctx *u,
			 const struct ptable *t, const struct ucols *c, const uint64_t *row,
			 const struct lock_filter *f)
{
	int nc = ptable__lcol(t, TBL_ULOCKS, ULOCKS__CONTENDED), wc = ptable__lcol(t, TBL_ULOCKS, ULOCKS__WAIT_NS);
	int lo = ptable__lcol(t, TBL_ULOCKS, ULOCKS__WAIT_MIN_NS), hi = ptable__lcol(t, TBL_ULOCKS, ULOCKS__WAIT_MAX_NS);
	int h0 = ptable__lcol(t, TBL_ULOCKS, ULOCKS__HIST_0), i;
	struct lock_row_val val = { 0 };
	struct lock_row_key k = { 0 };
	struct lock_filter all_callers;
	char site[256], name[320];
	struct urow r;
	int err;

	if (nc < 0 || wc < 0 || lo < 0 || hi < 0)
		return 0;
	urow_of(v->p, c, row, &r);
	per_thread_site(v->p, &u->waiters, &r, site, sizeof(site));
	if (site[0]) {
		lock_name_per_thread(site, name, sizeof(name));
		err = lv_intern(v, name, &k.name);
	} else {
		err = urow_name(v, &u->heap, &r, &k.name);
	}
	if (!err)
		err = lv_intern(v, r.caller, &k.caller);
	if (err || !urow_matches(&r, lock_view__str(v, k.name), lv_any_caller(f, &all_callers)))
		return err;
	k.lock_addr = r.lock;
	k.stack_id = r.stack_id;
	k.flags = r.flags;
	k.tgid = r.tgid;
	k.comm = (uint32_t)row[c->comm];
	val.count = row[nc];
	val.total_ns = row[wc];
	val.min_ns = row[lo];
	val.max_ns = row[hi];
	for (i = 0; h0 >= 0 && i < LS_HIST_SLOTS && h0 + i < (int)t->ncols; i++)
		val.hist[i] = row[h0 + i];
	/* A row without waits (its counts forgotten: top's interval) is no caller. */
	if (!val.count)
		return 0;
	err = lv_count_all_waits(v, &k, &val);
	if (err || !lv_glob_ok(f->caller, r.caller))
		return err;
	return lv_add_row(v, index, &k, &val, false);
}

/* A row of the "ulocks.holds" table (uprobes): acquisitions and holds. */
static int add_user_hold(struct lock_view *v, struct htab *index, const struct uctx *u,
			 const struct ptable *t, const struct ucols *c, const uint64_t *row,
			 const struct lock_filter *f)
{
	int ac = ptable__lcol(t, TBL_ULOCKS_HOLDS, ULOCKS_HOLDS__ACQUIRED);
	int hc = ptable__lcol(t, TBL_ULOCKS_HOLDS, ULOCKS_HOLDS__HELD);
	int nc = ptable__lcol(t, TBL_ULOCKS_HOLDS, ULOCKS_HOLDS__HOLD_NS);
	int mc = ptable__lcol(t, TBL_ULOCKS_HOLDS, ULOCKS_HOLDS__HOLD_MAX_NS);
	struct hold_val h = { .has_hold = true };
	struct lock_filter all_callers;
	uint32_t name, caller_id;
	struct lock_entry *e;
	struct lock_part *p;
	struct urow r;
	int err;

	if (ac < 0 || hc < 0 || nc < 0 || mc < 0)
		return 0;
	urow_of(v->p, c, row, &r);
	err = urow_name(v, &u->heap, &r, &name);
	if (!err)
		err = lv_intern(v, r.caller, &caller_id);
	if (err || !urow_matches(&r, lock_view__str(v, name), lv_any_caller(f, &all_callers)))
		return err;
	h.acquired = row[ac];
	h.held = row[hc];
	h.hold_ns = row[nc];
	h.hold_max_ns = row[mc];
	if (lv_count_all_holds(v, name, r.flags, &h))
		return -ENOMEM;
	if (!lv_glob_ok(f->caller, r.caller))
		return 0;
	e = lv_find_lock(v, index, name, r.flags);
	if (!e)
		return -ENOMEM;
	p = lv_same_function(v, e, r.caller);
	if (!p)
		p = lv_find_part(&e->callers, &e->ncallers, caller_id, 0);
	if (!p)
		return -ENOMEM;
	lv_hold_merge(&e->h, &h);
	lv_hold_merge(&p->h, &h);
	lv_hold_merge(&v->hold_total, &h);
	v->has_hold = true;
	return 0;
}

typedef int (*urow_fn)(struct lock_view *v, struct htab *index, const struct uctx *u,
		       const struct ptable *t, const struct ucols *c, const uint64_t *row,
		       const struct lock_filter *f);

static int add_utable(struct lock_view *v, struct htab *index, const struct uctx *u,
		      enum ls_table table, urow_fn add, const struct lock_filter *f)
{
	const struct ptable *t = profile__ltable(v->p, table);
	const uint64_t *row;
	struct ucols c;
	size_t it = 0;
	int err = 0;

	if (!t || !ucols_of(t, &c))
		return 0;
	while (!err && (row = htab_next(&t->rows, &it, NULL)))
		err = add(v, index, u, t, &c, row, f);
	return err;
}

/*
 * User locks join the kernel's in one table, told apart by their u:
 * types: waits from the futex tracepoints, acquisitions and holds from
 * the uprobes, matched by name and type like the kernel's hold rows.
 */
int lv_add_user_locks(struct lock_view *v, struct htab *index, const struct lock_filter *f)
{
	struct uctx u;
	int err;

	htab_init(&u.heap, sizeof(uint64_t), sizeof(struct uname));
	htab_init(&u.waiters, sizeof(uint64_t), sizeof(struct uwaiters));
	err = heap_names(v, &u.heap);
	if (!err)
		err = index_waiters(v->names_from, &u.waiters);
	if (!err)
		err = add_utable(v, index, &u, TBL_ULOCKS, add_user_wait, f);
	if (!err && !f->waits_only)
		err = add_utable(v, index, &u, TBL_ULOCKS_HOLDS, add_user_hold, f);
	htab_free(&u.waiters);
	htab_free(&u.heap);
	return err;
}

bool lock_view__uprobes_detached(const struct profile *p)
{
	const struct ptable *t = profile__ltable(p, TBL_ULOCKS_UPROBES);
	int dc = ptable__lcol(t, TBL_ULOCKS_UPROBES, ULOCKS_UPROBES__DETACHED);
	const uint64_t *row;
	size_t it = 0;

	while (t && dc >= 0 && (row = htab_next(&t->rows, &it, NULL)))
		if (row[dc])
			return true;
	return false;
}
