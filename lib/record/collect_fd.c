// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fd family (bpf/fd.bpf.c): fd syscalls per thread ("fd.syscalls"),
 * the fd table each thread uses ("fd.threads": report --view fd counts the
 * threads sharing one and joins its file_lock to the contention rows),
 * fget-family calls and latency where fentry or kprobes attach
 * ("fd.fget"), and the losses ("fd.lost").
 *
 * The syscalls need only a tracepoint, so the family attaches wherever
 * raw_syscalls does; the fget part is measured where the kernel lets us
 * and otherwise said not to be, with the reason, in the family's mode.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "base/buf.h"
#include "record/collector_int.h"
#include "fd.h"
#include "fd.skel.h"
#include "base/log.h"

_Static_assert(sizeof(struct fd_thread_key) == 8, "fd_thread_key layout");
_Static_assert(sizeof(struct fd_thread) == 16 + LS_FD_COMM_LEN + 8 * LS_FD_NSYSCALLS,
	       "fd_thread layout");
_Static_assert(sizeof(struct fd_fget_key) == 16, "fd_fget_key layout");
_Static_assert(sizeof(struct fd_fget_val) == 24, "fd_fget_val layout");
_Static_assert(sizeof(struct fd_lost) == 4 * sizeof(__u64), "fd_lost layout");

/*
 * The syscalls that use the fd table, by this architecture's numbers
 * (the ones only some architectures have are guarded). The one list:
 * it fills the BPF filter and names the rows.
 */
#define SC(name)	{ #name, SYS_##name }

static const struct {
	const char *name;
	long nr;
} fd_syscalls[] = {
	SC(read), SC(write), SC(close), SC(fstat), SC(lseek), SC(mmap), SC(ioctl),
	SC(pread64), SC(pwrite64), SC(readv), SC(writev), SC(dup), SC(dup3),
	SC(socket), SC(socketpair), SC(setsockopt), SC(getsockopt), SC(connect),
	SC(accept), SC(accept4), SC(sendto), SC(recvfrom), SC(sendmsg), SC(recvmsg),
	SC(shutdown), SC(bind), SC(listen), SC(fcntl), SC(flock), SC(fsync),
	SC(fdatasync), SC(ftruncate), SC(getdents64), SC(fchdir), SC(fchmod),
	SC(fchown), SC(openat), SC(epoll_ctl), SC(epoll_pwait), SC(splice), SC(tee),
	SC(fallocate), SC(eventfd2), SC(pipe2), SC(preadv), SC(pwritev),
	SC(recvmmsg), SC(sendmmsg), SC(statx), SC(io_uring_enter), SC(close_range),
	SC(openat2),
#ifdef SYS_open
	SC(open),
#endif
#ifdef SYS_stat
	SC(stat),
#endif
#ifdef SYS_lstat
	SC(lstat),
#endif
#ifdef SYS_poll
	SC(poll),
#endif
#ifdef SYS_select
	SC(select),
#endif
#ifdef SYS_pipe
	SC(pipe),
#endif
#ifdef SYS_dup2
	SC(dup2),
#endif
#ifdef SYS_sendfile
	SC(sendfile),
#endif
#ifdef SYS_newfstatat
	SC(newfstatat),
#endif
#ifdef SYS_epoll_wait
	SC(epoll_wait),
#endif
#ifdef SYS_sync_file_range
	SC(sync_file_range),
#endif
};

#define NFD_SYSCALLS	(sizeof(fd_syscalls) / sizeof(fd_syscalls[0]))
_Static_assert(NFD_SYSCALLS <= LS_FD_NSYSCALLS, "one fd_thread.calls slot per syscall");

/* In the order preferred; the first LS_FD_SLOTS the kernel has are used. */
static const char *const fget_candidates[] = {
	"fget", "fget_raw", "__fget_light", "fdget", "__fget_files", "fget_task",
};

#define NCANDIDATES	(sizeof(fget_candidates) / sizeof(fget_candidates[0]))

enum fget_mode { FGET_NONE, FGET_FENTRY, FGET_KPROBE };

#define NLOST	FD_LOST__NCOLS
_Static_assert(sizeof(struct fd_lost) == NLOST * sizeof(__u64), "one fd.lost column per loss");

/* Reasons nest other reasons: cut to fit, without -Wformat-truncation's alarm. */
static void __attribute__((format(printf, 3, 4))) say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

struct fdfam {
	struct fd_bpf *skel;
	bool sys_btf;
	enum fget_mode fget;
	size_t nfuncs;
	const char *funcs[LS_FD_SLOTS];		/* by slot */
	struct bpf_link *fget_links[2 * LS_FD_SLOTS];
	struct htab last_threads;	/* fd_thread_key -> uint64[LS_FD_NSYSCALLS] */
	struct htab seen_threads;	/* fd_thread_key -> uint32: the drain it last changed at */
	struct trows_buf sys_rows;
	struct trows_buf thread_rows;
	struct tsource fget_rows;
	struct tsource lost;
	char (*comms)[LS_FD_COMM_LEN];	/* one per thread row of this drain */
	size_t comms_cap;
};

/* Each fd syscall's index in fd_thread.calls (plus one), by number. */
static void fill_syscalls(__u8 *index)
{
	size_t i;

	for (i = 0; i < NFD_SYSCALLS; i++)
		if (fd_syscalls[i].nr >= 0 && fd_syscalls[i].nr < LS_FD_NR_MAX)
			index[fd_syscalls[i].nr] = i + 1;
}

/* tp_btf where BTF describes raw_syscalls:sys_enter, else the classic one. */
static int choose_sys_mode(const struct features *f, enum attach_mode want, bool *btf,
			   char *why, size_t len)
{
	bool btf_ok = tp_btf_nargs("sys_enter") == 2, tp_ok = f->r[FEAT_TP_SYSCALLS].ok;

	if (want == ATTACH_TP_BTF)
		tp_ok = false;
	if (want == ATTACH_TP_CLASSIC)
		btf_ok = false;
	if (btf_ok || tp_ok) {
		*btf = btf_ok;
		return 0;
	}
	if (want == ATTACH_TP_BTF)
		snprintf(why, len, "%s", "no raw_syscalls sys_enter in kernel BTF (tp_btf)");
	else
		snprintf(why, len, "%s", f->r[FEAT_TP_SYSCALLS].detail);
	return -EOPNOTSUPP;
}

/*
 * fentry where trampolines work, else kprobes; an explicit --attach
 * allows only that one. Otherwise why says what stopped each.
 */
static enum fget_mode choose_fget_mode(const struct features *f, enum attach_mode want,
				       char *why, size_t len)
{
	const struct feature_result *fe = &f->r[FEAT_FENTRY], *kp = &f->r[FEAT_KPROBE];

	switch (want) {
	case ATTACH_AUTO:
		if (fe->ok)
			return FGET_FENTRY;
		if (kp->ok)
			return FGET_KPROBE;
		say(why, len, "fentry: %s; kprobe: %s", fe->detail, kp->detail);
		return FGET_NONE;
	case ATTACH_FENTRY:
		if (fe->ok)
			return FGET_FENTRY;
		say(why, len, "--attach=fentry: %s", fe->detail);
		return FGET_NONE;
	case ATTACH_KPROBE:
		if (kp->ok)
			return FGET_KPROBE;
		say(why, len, "--attach=kprobe: %s", kp->detail);
		return FGET_NONE;
	default:
		snprintf(why, len, "--attach=%s uses tracepoints only", attach_mode_name(want));
		return FGET_NONE;
	}
}

/* Which of names[] /proc/kallsyms has as functions (text symbols). */
static void kallsyms_has(const char *const *names, size_t n, bool *found)
{
	char line[512], type, sym[256];
	FILE *f = fopen("/proc/kallsyms", "re");
	size_t i;

	memset(found, 0, n * sizeof(*found));
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %255s", &type, sym) != 2 || (type != 't' && type != 'T'))
			continue;
		for (i = 0; i < n; i++)
			if (!strcmp(sym, names[i]))
				found[i] = true;
	}
	if (f)
		fclose(f);
}

/*
 * A trampoline cannot hand fexit a struct return value, so the verifier
 * refuses such targets: fdget() returns struct fd since 6.12.
 */
static bool fentry_can_trace(const char *name)
{
	const struct btf *btf = vmlinux_btf();
	const struct btf_type *t;
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_func_proto(t))
		return false;
	id = btf__resolve_type(btf, t->type);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	return id == 0 || (t && !btf_is_composite(t));
}

/* The fget-family functions this kernel has for that mode: BTF or kallsyms. */
static void pick_functions(struct fdfam *m)
{
	bool found[NCANDIDATES];
	size_t i;

	if (m->fget == FGET_KPROBE)
		kallsyms_has(fget_candidates, NCANDIDATES, found);
	else
		for (i = 0; i < NCANDIDATES; i++)
			found[i] = fentry_can_trace(fget_candidates[i]);
	m->nfuncs = 0;
	for (i = 0; i < NCANDIDATES && m->nfuncs < LS_FD_SLOTS; i++)
		if (found[i])
			m->funcs[m->nfuncs++] = fget_candidates[i];
}

static struct bpf_program *slot_prog(struct fd_bpf *s, size_t slot, bool exit)
{
	struct bpf_program *enter[LS_FD_SLOTS] = {
		s->progs.fd_enter0, s->progs.fd_enter1, s->progs.fd_enter2, s->progs.fd_enter3,
	};
	struct bpf_program *leave[LS_FD_SLOTS] = {
		s->progs.fd_exit0, s->progs.fd_exit1, s->progs.fd_exit2, s->progs.fd_exit3,
	};

	return exit ? leave[slot] : enter[slot];
}

/* Only the programs of the chosen modes load; fentry ones get their target. */
static int set_programs(struct fdfam *m, struct fd_bpf *s)
{
	size_t i;
	int err = 0;

	bpf_program__set_autoload(m->sys_btf ? s->progs.sys_enter_tp : s->progs.sys_enter_btf, false);
	bpf_program__set_autoload(m->sys_btf ? s->progs.exec_tp : s->progs.exec_btf, false);
	bpf_program__set_autoload(s->progs.fd_kenter, m->fget == FGET_KPROBE);
	bpf_program__set_autoload(s->progs.fd_kexit, m->fget == FGET_KPROBE);
	for (i = 0; i < LS_FD_SLOTS; i++) {
		bool used = m->fget == FGET_FENTRY && i < m->nfuncs;

		bpf_program__set_autoload(slot_prog(s, i, false), used);
		bpf_program__set_autoload(slot_prog(s, i, true), used);
		if (used && !err)
			err = bpf_program__set_attach_target(slot_prog(s, i, false), 0, m->funcs[i]);
		if (used && !err)
			err = bpf_program__set_attach_target(slot_prog(s, i, true), 0, m->funcs[i]);
	}
	return err;
}

static int load_skel(struct collector *c, struct fdfam *m)
{
	struct fd_bpf *s = fd_bpf__open();
	int err;

	if (!s)
		return errno ? -errno : -ENOMEM;
	s->rodata->filter_targets = c->o.filter_targets;
	fill_syscalls((__u8 *)s->rodata->fd_index);
	err = set_programs(m, s);
	if (!err)
		err = collector_prepare_object(c, s->obj);
	if (!err)
		err = fd_bpf__load(s);
	if (err) {
		fd_bpf__destroy(s);
		return err;
	}
	m->skel = s;
	return 0;
}

/*
 * The syscalls are the family; exec only refreshes comms, so a kernel
 * that will not attach it costs names, not the family.
 */
static int attach_syscalls(struct fdfam *m)
{
	struct fd_bpf *s = m->skel;
	struct bpf_link **l = m->sys_btf ? &s->links.sys_enter_btf : &s->links.sys_enter_tp;
	struct bpf_link **x = m->sys_btf ? &s->links.exec_btf : &s->links.exec_tp;

	*l = bpf_program__attach(m->sys_btf ? s->progs.sys_enter_btf : s->progs.sys_enter_tp);
	if (!*l)
		return errno ? -errno : -EINVAL;
	*x = bpf_program__attach(m->sys_btf ? s->progs.exec_btf : s->progs.exec_tp);
	if (!*x)
		pr_debug("fd: sched_process_exec did not attach: %s: comms stay as first seen\n",
			 strerror(errno));
	return 0;
}

static struct bpf_link *attach_kprobe_slot(struct fdfam *m, size_t slot, bool ret)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = slot, .retprobe = ret);

	return bpf_program__attach_kprobe_opts(ret ? m->skel->progs.fd_kexit : m->skel->progs.fd_kenter,
					       m->funcs[slot], &o);
}

static const char *fget_mode_name(enum fget_mode mode)
{
	return mode == FGET_FENTRY ? "fentry" : "kprobe";
}

/* The entry (or return) program of a slot, attached to its function. */
static struct bpf_link *attach_slot(struct fdfam *m, size_t slot, bool ret)
{
	if (m->fget == FGET_KPROBE)
		return attach_kprobe_slot(m, slot, ret);
	return bpf_program__attach(slot_prog(m->skel, slot, ret));
}

/*
 * Entries before returns, so that a call in flight at attach time is at
 * worst an entry never closed (overwritten by the next) rather than a
 * return without a start. A function that will not attach is dropped,
 * and named in why.
 */
static size_t attach_fget(struct fdfam *m, char *why, size_t len)
{
	size_t i, n = 0, used = 0;
	int err;

	for (i = 0; i < m->nfuncs; i++) {
		struct bpf_link **l = &m->fget_links[2 * i];

		l[0] = attach_slot(m, i, false);
		l[1] = l[0] ? attach_slot(m, i, true) : NULL;
		if (l[0] && l[1]) {
			n++;
			continue;
		}
		err = errno;
		if (!used)
			used = snprintf(why, len, "%s: attaching failed:", fget_mode_name(m->fget));
		if (used < len)
			used += snprintf(why + used, len - used, " %s: %s", m->funcs[i], strerror(err));
		bpf_link__destroy(l[0]);
		l[0] = NULL;
		m->funcs[i] = NULL;	/* the slot stays empty: the others keep their numbers */
	}
	return n;
}

/* "tp_btf+fentry(fget,fget_raw)", or "tp_btf" without fget, and why. */
static void say_mode(struct fdfam *m, struct family_status *st, size_t nattached, const char *why)
{
	const char *sys = m->sys_btf ? "tp_btf" : "tracepoint";
	size_t i, used;

	if (!nattached) {
		snprintf(st->mode, sizeof(st->mode), "%s", sys);
		snprintf(st->missing, sizeof(st->missing), "fget");
		say(st->why, sizeof(st->why), "%s", why);
		return;
	}
	used = snprintf(st->mode, sizeof(st->mode), "%s+%s(", sys, fget_mode_name(m->fget));
	for (i = 0; i < m->nfuncs && used < sizeof(st->mode); i++)
		if (m->funcs[i])
			used += snprintf(st->mode + used, sizeof(st->mode) - used, "%s%s",
					 st->mode[used - 1] == '(' ? "" : ",", m->funcs[i]);
	if (used < sizeof(st->mode))
		snprintf(st->mode + used, sizeof(st->mode) - used, ")");
}

/*
 * The syscalls' mode, and the fget family's with the functions this
 * kernel has for it, or why it will not be measured.
 */
static int choose(const struct features *f, enum attach_mode want, struct fdfam *m,
		  struct family_status *st)
{
	char why[sizeof(st->why)] = "";
	int err = choose_sys_mode(f, want, &m->sys_btf, st->why, sizeof(st->why));

	if (err)
		return err;
	m->fget = choose_fget_mode(f, want, why, sizeof(why));
	if (m->fget != FGET_NONE)
		pick_functions(m);
	if (m->fget != FGET_NONE && !m->nfuncs) {
		snprintf(why, sizeof(why), "%s: none of fget, fget_raw, __fget_light, fdget, __fget_files, fget_task in %s",
			 fget_mode_name(m->fget), m->fget == FGET_FENTRY ? "kernel BTF" : "/proc/kallsyms");
		m->fget = FGET_NONE;
	}
	say_mode(m, st, m->fget != FGET_NONE ? m->nfuncs : 0, why);
	return 0;
}

static int fd_choose_mode(const struct features *f, enum attach_mode want, struct family_status *st)
{
	struct fdfam m;

	memset(&m, 0, sizeof(m));
	return choose(f, want, &m, st);
}

static int fget_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	const struct fdfam *m = ctx;
	const struct fd_fget_key *k = key;

	(void)stack;
	row[FD_FGET__PID] = k->tgid;
	row[FD_FGET__TID] = k->tid;
	/* A slot whose function did not attach has no returns, so no rows. */
	row[FD_FGET__FUNC] = tptr(k->slot < m->nfuncs && m->funcs[k->slot] ? m->funcs[k->slot] : "?");
	return 0;
}

static int fdfam_init(struct fdfam *m, int ncpus)
{
	int err;

	htab_init(&m->last_threads, sizeof(struct fd_thread_key), LS_FD_NSYSCALLS * sizeof(uint64_t));
	htab_init(&m->seen_threads, sizeof(struct fd_thread_key), sizeof(uint32_t));
	m->sys_rows.rows.schema = ls_schema(TBL_FD_SYSCALLS);
	m->thread_rows.rows.schema = ls_schema(TBL_FD_THREADS);
	m->fget_rows = (struct tsource){ .schema = ls_schema(TBL_FD_FGET), .key_size = sizeof(struct fd_fget_key),
		.val_size = sizeof(struct fd_fget_val), .nkeys = FD_FGET__CALLS, .keys = fget_keys, .ctx = m };
	m->lost = (struct tsource){ .schema = ls_schema(TBL_FD_LOST), .key_size = sizeof(uint32_t),
		.val_size = sizeof(struct fd_lost) };
	err = tsource_init(&m->fget_rows, ncpus);
	return err ? err : tsource_init(&m->lost, ncpus);
}

/*
 * Load with the fget programs, and without them when that fails: the
 * syscalls and the file_lock join do not need them.
 */
static int load_any(struct collector *c, struct fdfam *m, char *why, size_t len)
{
	int err = load_skel(c, m);

	if (err && m->fget != FGET_NONE) {
		snprintf(why, len, "%s: loading failed: %s%s", fget_mode_name(m->fget), strerror(-err),
			 err == -EPERM && m->fget == FGET_FENTRY ? " (kernel refuses trampolines here)" : "");
		m->fget = FGET_NONE;
		err = load_skel(c, m);
	}
	if (!err)
		m->fget_rows.map = m->skel->maps.fd_fget;
	return err;
}

static int fd_open(struct collector *c, const struct features *f, struct family_status *st, void **privp)
{
	char why[sizeof(st->why)];
	size_t nattached = 0;
	struct fdfam *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	*privp = m;
	err = choose(f, c->o.mode, m, st);
	if (!err)
		err = fdfam_init(m, c->ncpus);
	if (err)
		return err;
	snprintf(why, sizeof(why), "%s", st->why);
	err = load_any(c, m, why, sizeof(why));
	if (!err)
		err = attach_syscalls(m);
	if (err) {
		snprintf(st->why, sizeof(st->why), "loading the fd probes failed: %s", strerror(-err));
		return err;
	}
	if (m->fget != FGET_NONE && !(nattached = attach_fget(m, why, sizeof(why))))
		m->fget = FGET_NONE;
	say_mode(m, st, nattached, why);
	if (!nattached)
		pr_warn("fd: fget not measured (fd syscalls still are): %s\n", why);
	return 0;
}

/* A plain-hash value: the caller's buffer, or -ENOENT when deleted under us. */
static int lookup(struct bpf_map *map, const void *k, size_t ksz, void *v, size_t vsz)
{
	return bpf_map__lookup_elem(map, k, ksz, v, vsz, 0) ? -errno : 0;
}

static int add_sys_rows(struct fdfam *m, const struct fd_thread_key *k, const uint64_t *delta)
{
	uint64_t *row;
	size_t i;

	for (i = 0; i < NFD_SYSCALLS; i++) {
		if (!delta[i])
			continue;
		if (!(row = trows_add(&m->sys_rows)))
			return -ENOMEM;
		row[FD_SYSCALLS__PID] = k->tgid;
		row[FD_SYSCALLS__TID] = k->tid;
		row[FD_SYSCALLS__SYSCALL] = tptr(fd_syscalls[i].name);
		row[FD_SYSCALLS__CALLS] = delta[i];
	}
	return 0;
}

static int add_thread_row(struct fdfam *m, const struct fd_thread_key *k, const struct fd_thread *t,
			  const uint64_t *delta)
{
	uint64_t *row = trows_add(&m->thread_rows);
	size_t i = m->thread_rows.rows.n - 1, s;

	if (!row || grow_array((void **)&m->comms, &m->comms_cap, i + 1, sizeof(*m->comms)))
		return -ENOMEM;
	memcpy(m->comms[i], t->comm, LS_FD_COMM_LEN);
	m->comms[i][LS_FD_COMM_LEN - 1] = '\0';
	row[FD_THREADS__PID] = k->tgid;
	row[FD_THREADS__TID] = k->tid;
	row[FD_THREADS__COMM] = i;	/* an index until the drain ends: comms may move */
	row[FD_THREADS__FILES] = t->files;
	row[FD_THREADS__FILE_LOCK] = t->file_lock;
	for (s = 0; s < NFD_SYSCALLS; s++)
		row[FD_THREADS__SYSCALLS] += delta[s];
	return add_sys_rows(m, k, delta);
}

/* Both tables come from the thread rows: "fd.threads" and "fd.syscalls". */
static int drain_threads(struct collector *c, struct fdfam *m)
{
	uint8_t kinds[LS_FD_NSYSCALLS];
	struct fd_thread_key key, next, *prev = NULL;
	uint64_t cur[LS_FD_NSYSCALLS], delta[LS_FD_NSYSCALLS];
	struct fd_thread t;
	bool changed;
	size_t i;
	int err = 0;

	memset(kinds, TCOL_SUM, sizeof(kinds));
	m->thread_rows.rows.n = 0;
	m->sys_rows.rows.n = 0;
	while (!err && !bpf_map__get_next_key(m->skel->maps.fd_threads, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		if (lookup(m->skel->maps.fd_threads, &key, sizeof(key), &t, sizeof(t)))
			continue;
		memcpy(cur, t.calls, sizeof(cur));
		err = tdelta(&m->last_threads, &key, cur, delta, kinds, LS_FD_NSYSCALLS, &changed);
		if (!err && changed)
			err = note_seen(&m->seen_threads, &key, c->ndrains);
		if (!err && changed)
			err = add_thread_row(m, &key, &t, delta);
	}
	for (i = 0; i < m->thread_rows.rows.n; i++)
		m->thread_rows.rows.v[i * FD_THREADS__NCOLS + FD_THREADS__COMM] = tptr(m->comms[i]);
	if (!err)
		err = collector_add_table(c, &m->thread_rows.rows);
	return err ? err : collector_add_table(c, &m->sys_rows.rows);
}

static int fd_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct fdfam *m = priv;
	uint64_t lost[NLOST];
	int err;

	(void)s;
	(void)final;
	memcpy(lost, &m->skel->bss->fd_lost, sizeof(lost));
	err = drain_threads(c, m);
	if (!err)
		err = collector_drain_source(c, &m->fget_rows, NULL);
	if (!err)
		err = tsource_total(&m->lost, lost);
	return err ? err : collector_add_table(c, &m->lost.rows.rows);
}

static void fd_detach(void *priv)
{
	struct fdfam *m = priv;
	size_t i;

	for (i = 0; i < 2 * LS_FD_SLOTS; i++) {
		bpf_link__destroy(m->fget_links[i]);
		m->fget_links[i] = NULL;
	}
	if (m->skel)
		fd_bpf__detach(m->skel);
}

static void fd_free(void *priv)
{
	struct fdfam *m = priv;

	fd_detach(m);
	fd_bpf__destroy(m->skel);
	htab_free(&m->last_threads);
	htab_free(&m->seen_threads);
	trows_buf_free(&m->sys_rows);
	trows_buf_free(&m->thread_rows);
	tsource_free(&m->fget_rows);
	tsource_free(&m->lost);
	free(m->comms);
	free(m);
}

static const struct bpf_object *fd_object(const void *priv)
{
	const struct fdfam *m = priv;

	return m->skel ? m->skel->obj : NULL;
}

/* A thread row's calls between the last drain and its removal. */
static uint64_t late_calls(const void *total, const void *deleted, void *ctx)
{
	const uint64_t *before = total;
	const struct fd_thread *now = deleted;
	uint64_t n = 0;
	size_t i;

	(void)ctx;
	for (i = 0; i < LS_FD_NSYSCALLS; i++)
		n += now->calls[i] > before[i] ? now->calls[i] - before[i] : 0;
	return n;
}

static int fd_trim(struct collector *c, void *priv, uint32_t before, uint64_t *late)
{
	struct fdfam *m = priv;
	int threads, fget;

	(void)c;
	threads = forget_older(&m->last_threads, &m->seen_threads, m->skel->maps.fd_threads, before,
			       late_calls, NULL, late);
	if (threads < 0)
		return threads;
	fget = tsource_trim(&m->fget_rows, before, late);
	return fget < 0 ? fget : threads + fget;
}

/* The fuller of the threads and the fget rows; the drain that leaves the fuller a quarter full. */
static unsigned fd_fill(const void *priv, uint32_t latest, uint32_t *before)
{
	const struct fdfam *m = priv;
	uint32_t max = bpf_map__max_entries(m->skel->maps.fd_threads), before_fget;
	unsigned threads = m->last_threads.count * 1000 / max;
	unsigned fget = tsource_fill(&m->fget_rows, latest, &before_fget);

	if (fget > threads) {
		*before = before_fget;
		return fget;
	}
	*before = trim_cutoff(&m->seen_threads, latest, max / 4);
	return threads;
}

const struct family_ops fd_family = {
	.choose_mode = fd_choose_mode,
	.open = fd_open,
	.drain = fd_drain,
	.detach = fd_detach,
	.free = fd_free,
	.object = fd_object,
	.trim = fd_trim,
	/* Its own losses are a table (fd.lost). */
	.trim_lost = "fd_trimmed_late",
	.fill = fd_fill,
};
