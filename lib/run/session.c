// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The recorder of record, top and serve (lib/run/session.h): its set-up
 * and tear-down, the output it writes to, and the profile's beginning
 * and end. The loop is lib/run/loop.c, what each bucket writes
 * lib/run/rows.c, the probes lib/run/probes.c.
 *
 * With an output path, the file (lib/base/outfile.h) stays unnamed until its
 * header is written and the workload runs, then takes its name, the
 * previous profile becoming FILE.old; every later chunk is one write(2)
 * with its own CRC. Ctrl-C, SIGTERM, the end of the workload or -d close
 * the file cleanly; a SIGKILL or a write error leaves every chunk written
 * before it readable. Without one (top), the profile goes to a memfd.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <malloc.h>
#include <time.h>
#include <sys/mman.h>
#include "base/exitcode.h"
#include "base/htab.h"
#include "base/log.h"
#include "base/outfile.h"
#include "record/kfeatures.h"
#include "sym/syms.h"
#include "run/session_int.h"

/*
 * ELF files the symbolizer keeps indexed at once: a PC's lookup may try
 * the file under its name and then the one held open, so two files. The
 * PCs are symbolized file by file, so each is opened once a batch; more
 * open files only add their debug info to the peak RSS, and fewer than
 * four did not lower it.
 */
#define SYMS_OPEN_FILES	4

void session__init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->o = (struct session_opts){ .output = "lockstat.data", .bucket = 1.0, .mode = ATTACH_AUTO,
		.stack_rate = 250, .stack_thin = 65536, .families = FAMILY_DEFAULT, .sample_freq = 99,
		.user_stack_size = 8192 };
	s->fd = s->sigfd = s->pidfd = -1;
	s->out.fd = -1;
	s->cgroup.fd = -1;
	workload__init(&s->wl);
	ksyms_init(&s->ks);
	maps_cache__init(&s->maps, 1024);
}

/* --- the output file -------------------------------------------------- */

/* No path: top reads the profile back and keeps nothing. */
static int open_memfd(struct session *s)
{
	s->fd = memfd_create("lockstat-top", MFD_CLOEXEC);
	if (s->fd < 0) {
		pr_err("cannot create the in-memory profile: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Unnamed until published: a set-up that fails or is killed leaves nothing. */
static int open_output(struct session *s)
{
	struct outfile_opts oo = { .keep_old = true };
	int err;

	if (!s->o.output)
		return open_memfd(s);
	err = outfile__open(&s->out, s->o.output, &oo);
	if (err) {
		pr_err("%s\n", s->out.why);
		return err;
	}
	s->fd = s->out.fd;
	return 0;
}

/* Under its final name, the previous profile kept as FILE.old. */
static int publish_output(struct session *s)
{
	int err;

	if (!s->o.output)
		return 0;
	err = outfile__publish(&s->out);
	if (err)
		pr_err("%s\n", s->out.why);
	s->good_len = lseek(s->fd, 0, SEEK_CUR);
	return err;
}

/*
 * Called after every write. While they succeed, the file ends at a whole
 * chunk; the first error cuts it back there, so that it stays readable
 * up to its last complete chunk, as after a SIGKILL, and stops the
 * recording.
 */
void session_note_write(struct session *s, int err)
{
	if (!err && s->o.output)
		s->good_len = lseek(s->fd, 0, SEEK_CUR);
	if (!err || s->write_err)
		return;
	s->write_err = err;
	pr_err("writing %s failed: %s; stopping\n", s->name, strerror(-err));
	if (s->o.output && s->good_len > 0 && !ftruncate(s->fd, s->good_len))
		lseek(s->fd, s->good_len, SEEK_SET);
	s->stop = true;
}

/* --- set-up and tear-down ------------------------------------------------ */

static int start_workload(struct session *s)
{
	int err = workload__fork(&s->wl, s->o.argv, s->o.wl_output, s->has_metric, &s->orig_mask);

	/* Until its exec, the child runs our code: sampled there, it is named. */
	if (!err && maps_cache__adopt_own(&s->maps, s->wl.pid))
		pr_debug("cannot give the workload our mappings until its exec\n");
	return err;
}

/*
 * The file a user PC's symbols come from, so that they are symbolized
 * file by file: the symbolizer then keeps a few files' indexes at a time
 * (SYMS_OPEN_FILES) instead of every file the recording saw.
 */
static uint64_t usym_file_of(void *ctx, uint32_t tgid, uint64_t addr)
{
	const struct uresolver *u = ctx;
	const struct proc_map *m = maps_cache__find(u->maps, tgid, addr, 0);

	if (!m)
		return 0;
	return hash_bytes(m->path, strlen(m->path)) ^ hash_bytes(m->build_id, m->build_id_len);
}

static int open_writer(struct session *s)
{
	struct pwriter_opts po = {
		.fd = s->fd,
		.ksyms = s->have_ksyms ? &s->ks : NULL,
		.btf = vmlinux_btf(),
		.fetch_stack = collector__fetch_stack,
		.fetch_sample_kstack = collector__fetch_sample_kstack,
		.fetch_sample_ustack = collector__fetch_sample_ustack,
		.fetch_ctx = s->col,
		.resolve_user = uresolve,
		.resolve_ctx = &s->ures,
		.usym_file = usym_file_of,
		.on_user_tgid = session_on_new_process,
		.on_user_tgid_ctx = s,
		.usyms_leaves_only = s->o.brief_usyms,
	};
	bool lines = !s->o.brief_usyms && !s->o.usyms_no_lines;
	struct syms_opts so = { .lines = lines, .inlines = lines, .max_files = SYMS_OPEN_FILES };
	uint8_t id[16];
	int err;

	po.created_ns = wall_ns();
	if (getentropy(id, sizeof(id)))
		memset(id, 0, sizeof(id));
	po.recording_id = id;
	s->syms = syms__new(&so);
	s->ures = (struct uresolver){ .syms = s->syms, .maps = &s->maps };
	if (!s->syms)
		po.resolve_user = NULL;
	err = pwriter__new(&s->w, &po);
	if (!err)
		err = session_write_meta(s);
	if (err)
		pr_err("writing %s failed: %s\n", s->name, strerror(-err));
	return err;
}

void session__write_usyms(struct session *s)
{
	if (!s->write_err)
		session_note_write(s, pwriter__usyms_for(s->w, s->o.usyms_budget_ns));
}

int session__steal_ns(struct session *s, uint64_t *ns)
{
	struct steal_summary sum;

	if (!s->steal.on)
		return -ENODATA;
	steal_tracker__summary(&s->steal.tracker, &sum);
	*ns = sum.total_ns;
	return 0;
}

/* After a write error: what the file holds now, and where the previous one is. */
static void say_write_error(const struct session *s)
{
	pr_err("%s holds what was written before the error, readable but without its END chunk%s%s\n",
	       s->o.output, s->out.made_old ? "; the previous profile is " : "",
	       s->out.made_old ? s->out.old : "");
}

void session__finish(struct session *s)
{
	uint64_t t, cpu = session_cpu_ns(), wall = now_ns();
	struct snapshot snap;
	int err;
	uint32_t flags;

	session_ledger_stop(s);
	s->wl_ended = workload__finish(&s->wl);
	t = now_ns();
	session_sample_steal(s, t);	/* the recording's end: what comes next is lockstat's own */
	if (s->wl.out_fd >= 0)	/* what it wrote just before it ended */
		session_pass_output(s);
	err = collector__stop(s->col, &snap);
	if (err)
		pr_err("reading the kernel maps failed: %s\n", strerror(-err));
	if (!s->write_err && !err)
		session_write_rows(s, &snap, t);
	/* Once per unique user PC, while the files are still held open. */
	if (!s->write_err)
		session_note_write(s, pwriter__usyms(s->w));
	if (!s->write_err)
		session_write_metric(s);
	if (!s->write_err)
		session_write_lock_names(s);
	if (!s->write_err)
		session_write_steal(s);
	if (!s->write_err)
		session_write_cost(s);
	flags = s->signals ? END_F_INTERRUPTED : END_F_CLEAN;
	if (!s->write_err)
		session_note_write(s, pwriter__end(s->w, t - s->t0, workload__exit_code(&s->wl), flags));
	if (s->write_err && s->out.published)
		say_write_error(s);
	else if (!s->write_err && s->o.output && outfile__commit(&s->out)) {
		pr_err("%s\n", s->out.why);	/* the fsync: every chunk was written */
		s->write_err = -EIO;
	}
	s->self.finish_cpu_ns = session_cpu_ns() - cpu;
	s->self.finish_ns = now_ns() - wall;
}

/*
 * serve: the profile on the memfd ends at the last bucket (its user
 * symbols, then END), and a new one begins there: a writer of its own
 * (header, META, strings, stacks and symbols again), the processes'
 * mappings and user symbols read again, the loss counters and the bucket
 * times counted from here. Each profile stands alone, and what is kept
 * for it ends with it.
 */
int session__end_profile(struct session *s)
{
	if (!s->write_err)
		session_note_write(s, pwriter__usyms(s->w));
	if (!s->write_err)
		session_write_steal(s);
	if (!s->write_err)
		session_note_write(s, pwriter__end(s->w, s->last_t - s->t0, EXIT_OK, END_F_CLEAN));
	return s->write_err;
}

static void note_lost_base(struct session *s)
{
	struct lost_counter lc[MAX_LOST];
	size_t i, n = collector__lost(s->col, lc, MAX_LOST);

	for (i = 0; i < n; i++)
		s->lost.base[i] = lc[i].value;
	s->lost.ntables = 0;
}

int session__begin_profile(struct session *s)
{
	pwriter__free(s->w);
	s->w = NULL;
	syms__free(s->syms);
	s->syms = NULL;
	maps_cache__free(&s->maps);
	maps_cache__init(&s->maps, 1024);
	s->t0 = s->last_t;
	s->ledger.off = true;
	note_lost_base(s);
	if (s->steal.on)
		steal_tracker__restart(&s->steal.tracker);
	return open_writer(s);
}

/* The steal's first reading, at t0; without it the profile says "steal: not recorded". */
static void start_steal(struct session *s)
{
	uint64_t bucket_ns = s->o.bucket * NSEC_PER_SEC;

	s->steal.err = steal_tracker__init(&s->steal.tracker, "/proc/stat", bucket_ns, s->t0);
	s->steal.on = !s->steal.err;
	if (s->steal.err)
		pr_warn("reading steal time from /proc/stat: %s: not recorded\n", strerror(-s->steal.err));
}

/* What lockstat's own costs are counted from, and how its heap is kept. */
static void start_accounting(struct session *s)
{
	s->name = s->o.output ? s->o.output : "the in-memory profile";
	s->self.wall_start = now_ns();
	getrusage(RUSAGE_SELF, &s->self.ru_start);
	/*
	 * A fixed threshold: blocks of 256 KiB and more (libelf's decompressed
	 * debug sections, libdw's line programs, the collector's tables) are
	 * mapped on their own and unmapped when freed. glibc's default raises
	 * the threshold past each such block freed, after which they come
	 * from the heap and stay resident: a peak three times what is in use
	 * (doc/design.md, Long recordings).
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
}

/* The regex was checked with the options: an error here is one of memory. */
static int start_metric(struct session *s)
{
	char why[160];

	if (!s->o.metric || !s->o.argv)
		return 0;
	if (metric__init(&s->metric, s->o.metric, why, sizeof(why))) {
		pr_err("--metric %s\n", why);
		return EXIT_USAGE;
	}
	s->has_metric = true;
	return 0;
}

/* The targets, the signals and the output, before any probe: 0 or EXIT_FAIL after saying why. */
static int open_targets(struct session *s)
{
	int err;

	if (check_bpf_privileges())
		return EXIT_FAIL;
	if (s->o.cgroup && run_target__open_cgroup(&s->cgroup, s->o.cgroup))
		return EXIT_FAIL;
	if (run_signals__open(s->o.extra_signal, &s->orig_mask, &s->sigfd) || open_output(s))
		return EXIT_FAIL;
	if (s->o.pid && run_target__open_pid(s->o.pid, &s->pidfd))
		return EXIT_FAIL;
	if (s->o.argv && (err = start_workload(s))) {
		pr_err("cannot start the workload: %s\n", strerror(-err));
		return EXIT_FAIL;
	}
	return 0;
}

/* The probes attached and the writer open: t0, and what was there before it. */
static void start_clock(struct session *s)
{
	if (collector__watch_processes(s->col, session_on_new_process, s))
		pr_warn("cannot watch for new processes: short-lived ones may lose their user symbols\n");
	s->t0 = s->last_t = now_ns();
	s->ures.t0_ns = s->t0;
	start_steal(s);
	collector__cycle_stats(s->col, s->t0);
	/* What was mapped before we looked; the mapping tracker reports the rest. */
	if (s->o.pid)
		maps_cache__read_proc(&s->maps, s->o.pid);
	else if (s->o.system_wide || s->o.cgroup)
		maps_cache__read_all(&s->maps);
	/*
	 * The tracker's ring filled with the machine's mappings while the
	 * probes loaded: empty it, or the workload's own are lost to it.
	 */
	collector__consume(s->col);
}

int session__start(struct session *s)
{
	int code;

	start_accounting(s);
	code = start_metric(s);
	if (!code)
		code = open_targets(s);
	if (code)
		return code;
	if (session_attach_probes(s))
		goto err_kill;
	session_load_symbols(s);	/* after attaching: our own programs are named too */
	if (open_writer(s))
		goto err_kill;
	start_clock(s);
	if (s->wl.pid && (code = workload__start(&s->wl, s->o.argv[0])))
		return code;	/* unpublished: a profile that was there stays there */
	/* Under its final name from here on: a SIGKILL leaves it readable. */
	if (publish_output(s))
		goto err_kill;
	session_ledger_start(s);
	return 0;

err_kill:
	workload__kill(&s->wl);
	return EXIT_FAIL;
}

void session__free(struct session *s)
{
	if (s->steal.on)
		steal_tracker__free(&s->steal.tracker);
	s->steal.on = false;
	collector__free(s->col);
	pwriter__free(s->w);
	syms__free(s->syms);
	maps_cache__free(&s->maps);
	ksyms_free(&s->ks);
	if (s->o.output)
		outfile__close(&s->out);	/* unpublished: removed */
	else if (s->fd >= 0)
		close(s->fd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->pidfd >= 0)
		close(s->pidfd);
	cgroup_target__close(&s->cgroup);
	workload__free(&s->wl);
	if (s->has_metric)
		metric__free(&s->metric);
	s->has_metric = false;
	s->col = NULL;
	s->w = NULL;
	s->syms = NULL;
	s->fd = s->sigfd = s->pidfd = -1;
}

