// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report --view fd: the fd view (lib/view/view_fd.h), one row
 * per process, as text, CSV or JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/family_meta.h"
#include "base/log.h"
#include "view/view_fd.h"
#include "report.h"

/* --- output: one column list for text, CSV and JSON --------------------------- */

enum {
	FD_PID, FD_COMM, FD_THREADS, FD_SYSCALLS, FD_SYSCALLS_RATE, FD_FGET, FD_FGET_RATE,
	FD_FGET_AVG, FD_FGET_MAX, FD_CONTENDED, FD_WAIT, FD_WAIT_PCT, FD_TOP_SYSCALLS, FD__COUNT,
};

static const struct out_col fd_cols[FD__COUNT] = {
	[FD_PID] = { "pid", "pid", COL_U64, 8, false },
	[FD_COMM] = { "comm", "comm", COL_STR, 16, true },
	[FD_THREADS] = { "threads", "threads", COL_U64, 7, false },
	[FD_SYSCALLS] = { "fd_syscalls", "fd syscalls", COL_U64, 11, false },
	[FD_SYSCALLS_RATE] = { "fd_syscalls_per_s", "/s", COL_U64, 10, false },
	[FD_FGET] = { "fget_calls", "fget", COL_U64, 10, false },
	[FD_FGET_RATE] = { "fget_per_s", "/s", COL_U64, 10, false },
	[FD_FGET_AVG] = { "fget_avg_ns", "fget avg", COL_NS, 9, false },
	[FD_FGET_MAX] = { "fget_max_ns", "fget max", COL_NS, 9, false },
	[FD_CONTENDED] = { "file_lock_contended", "file_lock", COL_U64, 10, false },
	[FD_WAIT] = { "file_lock_wait_ns", "wait", COL_NS, 10, false },
	[FD_WAIT_PCT] = { "file_lock_wait_pct", "%time", COL_PCT, 6, false },
	/* JSON: an array of {syscall, calls} (json_top) */
	[FD_TOP_SYSCALLS] = { "top_syscalls", "top fd syscalls", COL_STR, 0, true, OUT_NO_JSON },
};

/* "close:940616 dup:939986 read:2" */
static void top_text(const struct report *r, const struct fd_proc *p, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < FD_TOP && p->top[i].calls && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s:%" PRIu64, i ? " " : "",
				 profile__str(r->p, p->top[i].name), p->top[i].calls);
}

/* Whether column c has a value: fget and file_lock ones need their probes. */
static bool measured(const struct fd_view *v, int c)
{
	if (c >= FD_FGET && c <= FD_FGET_MAX)
		return !v->fget_why;
	if (c >= FD_CONTENDED && c <= FD_WAIT_PCT)
		return v->locks;
	return true;
}

static uint64_t cell_u64(const struct fd_proc *p, int c)
{
	switch (c) {
	case FD_PID: return p->pid;
	case FD_THREADS: return p->threads;
	case FD_SYSCALLS: return p->syscalls;
	case FD_SYSCALLS_RATE: return p->syscalls_per_s;
	case FD_FGET: return p->fget_calls;
	case FD_FGET_RATE: return p->fget_per_s;
	case FD_FGET_AVG: return p->fget_avg_ns;
	case FD_FGET_MAX: return p->fget_max_ns;
	case FD_CONTENDED: return p->contended;
	case FD_WAIT: return p->wait_ns;
	default: return 0;
	}
}

static void put_row(struct out_table *t, const struct report *r, const struct fd_view *v,
		    const struct fd_proc *p)
{
	char top[256];
	int c;

	out_table__row_begin(t, 0);
	for (c = 0; c < FD__COUNT; c++) {
		if (!measured(v, c)) {
			out_table__none(t);
		} else if (c == FD_COMM) {
			out_table__str(t, profile__str(r->p, p->comm));
		} else if (c == FD_TOP_SYSCALLS) {
			top_text(r, p, top, sizeof(top));
			out_table__str(t, top);
		} else if (c == FD_WAIT_PCT) {
			out_table__pct(t, p->wait_pct);
		} else if (fd_cols[c].type == COL_NS) {
			out_table__ns(t, cell_u64(p, c));
		} else {
			out_table__u64(t, cell_u64(p, c));
		}
	}
	out_table__row_end(t);
}

static void print_fd_header(const struct fd_view *v)
{
	printf("# fd syscalls: %s; threads: those that entered one, sharing the process's fd table\n",
	       v->sys_mode);
	if (v->fget_why)
		printf("# fget: not measured on this kernel: %s\n", v->fget_why);
	else
		printf("# fget: %s\n", v->fget);
	if (!v->locks)
		printf("# file_lock: not measured (record with -e locks,fd)\n");
	printf("#\n");
}

static void json_top(struct json_writer *jw, const struct report *r, const struct fd_proc *p)
{
	size_t i;

	jw_start_array(jw);
	for (i = 0; i < FD_TOP && p->top[i].calls; i++) {
		jw_start_object(jw);
		jw_string_field(jw, "syscall", profile__str(r->p, p->top[i].name));
		jw_u64_field(jw, "calls", p->top[i].calls);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_threads(struct json_writer *jw, const struct report *r, const struct fd_view *v,
			 const struct fd_proc *p)
{
	const struct fd_thread_row *first, *t;
	size_t n = fd_view__threads(v, p, &first);
	char files[24];

	jw_start_array(jw);
	for (t = first; t < first + n; t++) {
		jw_start_object(jw);
		jw_u64_field(jw, "tid", t->tid);
		jw_string_field(jw, "comm", profile__str(r->p, t->comm));
		snprintf(files, sizeof(files), "0x%" PRIx64, t->files);	/* above 2^53: a string */
		jw_string_field(jw, "files", files);
		jw_bool_field(jw, "shares_fd_table", t->files == p->files);
		jw_u64_field(jw, "fd_syscalls", t->syscalls);
		if (v->fget_why)
			jw_null_field(jw, "fget_calls");
		else
			jw_u64_field(jw, "fget_calls", t->fget_calls);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_probe(struct json_writer *jw, const struct fd_view *v)
{
	jw_name(jw, "fd_probe");
	jw_start_object(jw);
	jw_string_field(jw, "syscalls", v->sys_mode);
	jw_bool_field(jw, "fget_measured", !v->fget_why);
	jw_string_field(jw, "fget", v->fget);
	jw_string_field(jw, "fget_why", v->fget_why);
	jw_bool_field(jw, "file_lock_measured", v->locks);
	jw_end_object(jw);
}

/* A process: its row, then in JSON its top syscalls and its threads. */
static void put_proc(struct out_table *t, const struct report *r, const struct fd_view *v,
		     const struct fd_proc *p)
{
	struct json_writer *jw;

	put_row(t, r, v, p);
	if ((jw = out_table__extra(t, fd_cols[FD_TOP_SYSCALLS].key)))
		json_top(jw, r, p);
	if ((jw = out_table__extra(t, "threads_detail")))
		json_threads(jw, r, v, p);
}

static int print_procs(const struct report *r, const struct fd_view *v)
{
	struct out_doc *d = report__doc(r);
	struct out_table *t;
	size_t i;

	if (!d)
		return -ENOMEM;
	if (r->o.format == OUT_TEXT)
		print_fd_header(v);
	if (out_doc__jw(d))
		json_probe(out_doc__jw(d), v);
	t = out_doc__table(d, "fd", fd_cols, FD__COUNT);
	for (i = 0; t && i < v->n; i++)
		put_proc(t, r, v, v->order[i]);
	out_table__free(t);
	out_doc__free(d);
	return 0;
}

static void say_why(const struct report *r, const struct fd_view *v, int err)
{
	char line[600];

	if (err == -ENOENT)
		pr_err("%s has no fd data (probe.fd: %s): record with -e fd\n", r->o.input,
		       family_status_line(&v->probe, line, sizeof(line)));
	else if (err == -EINVAL)
		pr_err("%s: the fd tables lack a column this view needs\n", r->o.input);
	else
		pr_err("building the fd view: %s\n", strerror(-err));
}

int print_fd(const struct report *r)
{
	struct fd_filter f = { .comm = r->o.hits.comm, .pid = r->o.hits.pid, .top_n = r->o.top_n };
	struct fd_view v;
	int err = fd_view__build(&v, r->p, &f);

	if (err)
		say_why(r, &v, err);
	else if (!v.any_syscalls)
		pr_warn("%s: no fd syscalls were seen from the recorded processes\n", r->o.input);
	if (!err)
		err = print_procs(r, &v);
	fd_view__free(&v);
	return err;
}
