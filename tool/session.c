// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The recording machinery of record and top (tool/session.h): attach the
 * probes, run the workload, and drain the kernel's aggregates into a
 * profile once per bucket.
 *
 * With an output path, the file (lib/base/outfile.h) stays unnamed until its
 * header is written and the workload runs, then takes its name, the
 * previous profile becoming FILE.old; every later chunk is one write(2)
 * with its own CRC. Ctrl-C, SIGTERM, the end of the workload or -d close
 * the file cleanly; a SIGKILL or a write error leaves every chunk written
 * before it readable. Without one (top), the profile goes to a memfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "session.h"
#include "base/outfile.h"
#include "record/kfeatures.h"
#include "sample.h"
#include "sym/kmap.h"
#include "sym/syms.h"
#include "out/head.h"

#define KILL_GRACE_NS	(3 * NSEC_PER_SEC)
/*
 * ELF files the symbolizer keeps indexed at once: a PC's lookup may try
 * the file under its name and then the one held open, so two files. The
 * PCs are symbolized file by file, so each is opened once a batch; more
 * open files only add their debug info to the peak (record -a under a
 * hackbench loop: 59 MiB peak RSS with 8, 52 with 4, 52 to 57 with 2).
 */
#define SYMS_OPEN_FILES	4

void session__init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->o = (struct session_opts){ .output = "lockstat.data", .bucket = 1.0, .mode = ATTACH_AUTO,
		.stack_rate = 250, .stack_thin = 65536, .families = FAMILY_DEFAULT, .sample_freq = 99,
		.user_stack_size = 8192 };
	s->fd = s->sigfd = s->pidfd = s->wl_out_fd = -1;
	s->out.fd = -1;
	s->cgroup.fd = -1;
	s->wl.go_fd = s->wl.err_fd = -1;
	ksyms_init(&s->ks);
	maps_cache__init(&s->maps, 1024);
}

/* --- options ------------------------------------------------------------- */

/* "a,-b,c" -> on "a,c", off "b"; 0, or -EINVAL when too long. */
static int split_events(const char *arg, char *on, char *off, size_t len)
{
	size_t n_on = 0, n_off = 0;
	const char *p = arg;

	on[0] = off[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, ",");
		bool minus = *p == '-';
		char *dst = minus ? off : on;
		size_t *used = minus ? &n_off : &n_on;

		if (*used + n + 2 > len)
			return -EINVAL;
		*used += snprintf(dst + *used, len - *used, "%s%.*s", *used ? "," : "",
				  (int)(n - minus), p + minus);
		p += n + (p[n] == ',');
	}
	return 0;
}

/*
 * A list of families; a word with a '-' takes one out (whatever brings
 * it in: mmap_lock comes with locks in record), and a list of such words
 * alone takes them out of the default.
 */
static int parse_events(struct session_opts *o, const char *arg)
{
	unsigned int hold = o->families & FAMILY_HOLD, on = FAMILY_DEFAULT, off = 0;
	char on_list[256], off_list[256];
	const char *bad = arg;

	if (o->families & FAMILY_UPROBES)	/* --uprobes, and the ulocks they need */
		hold |= FAMILY_ULOCKS | FAMILY_UPROBES;
	if (split_events(arg, on_list, off_list, sizeof(on_list)) ||
	    (on_list[0] && family_parse(on_list, &on, &bad)) ||
	    (off_list[0] && family_parse(off_list, &off, &bad)) || (!on_list[0] && !off_list[0])) {
		pr_err("--events: unknown probe family '%s' (%s)\n", bad, family_names_list());
		return -EINVAL;
	}
	o->families_off = off;
	o->families = (on | hold) & ~off;
	if (!o->families) {
		pr_err("--events: '%s' leaves no probe family\n", arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_map_entries(struct session_opts *o, const char *arg)
{
	unsigned long v;

	if (parse_ulong("--map-entries", arg, 64, 1UL << 24, &v))
		return -EINVAL;
	o->map_entries = v;
	return 0;
}

static int parse_pid(struct session_opts *o, const char *arg)
{
	unsigned long v;

	if (parse_ulong("--pid", arg, 1, INT_MAX, &v))
		return -EINVAL;
	o->pid = v;
	return 0;
}

static int parse_user_stack(struct session_opts *o, const char *arg)
{
	o->user_stack_set = true;
	if (!strcmp(arg, "fp") || !strcmp(arg, "dwarf")) {
		o->user_stack_dwarf = !strcmp(arg, "dwarf");
		return 0;
	}
	pr_err("--user-stack: '%s' is not one of fp, dwarf\n", arg);
	return -EINVAL;
}

/* As perf's --call-graph dwarf,SIZE: a multiple of 8, at most 64 KiB. */
static int parse_user_stack_size(struct session_opts *o, const char *arg)
{
	int err = parse_ulong("--user-stack-size", arg, 8, LS_SAMPLE_USTACK_MAX, &o->user_stack_size);

	o->user_stack_set = true;
	o->user_stack_size_set = true;
	if (!err && o->user_stack_size % 8) {
		pr_err("--user-stack-size: %lu is not a multiple of 8\n", o->user_stack_size);
		return -EINVAL;
	}
	return err;
}

int session__parse_opt(struct session_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'o':
		return parse_path("--output", arg, &o->output);
	case 'a':
		o->system_wide = true;
		return 0;
	case 'p':
		return parse_pid(o, arg);
	case 'd':
		return parse_seconds("--duration", arg, DURATION_MIN_S, DURATION_MAX_S, &o->duration);
	case 't':
		o->per_task = true;
		return 0;
	case 'e':
		return parse_events(o, arg);
	case SESSION_OPT_HOLD:
		o->families |= FAMILY_HOLD;
		return 0;
	case SESSION_OPT_CGROUP:
		if (!*arg) {
			pr_err("--cgroup: an empty path\n");
			return -EINVAL;
		}
		o->cgroup = arg;
		return 0;
	case SESSION_OPT_UPROBES:
		o->families |= FAMILY_ULOCKS | FAMILY_UPROBES;
		return 0;
	case SESSION_OPT_FORCE:
		o->force = true;
		return 0;
	case SESSION_OPT_EVENT_BUDGET:
		o->budget_set = true;
		return parse_ulong("--event-budget", arg, 1, 100000000UL, &o->event_budget);
	case 'F':
		o->freq_set = true;
		return parse_ulong("--freq", arg, 1, 100000, &o->sample_freq);
	case SESSION_OPT_ATTACH:
		if (attach_mode_parse(arg, &o->mode)) {
			pr_err("--attach: '%s' is not one of auto, tp, tp_btf, tracepoint, fentry, kprobe\n", arg);
			return -EINVAL;
		}
		return 0;
	case SESSION_OPT_BUCKET:
		return parse_seconds("--bucket", arg, BUCKET_MIN_S, BUCKET_MAX_S, &o->bucket);
	case SESSION_OPT_STACK_RATE:
		return parse_ulong("--stack-rate", arg, 0, 1000000UL, &o->stack_rate);
	case SESSION_OPT_STACK_THIN:
		return parse_ulong("--stack-thin", arg, 0, 1UL << 30, &o->stack_thin);
	case SESSION_OPT_USER_STACK:
		return parse_user_stack(o, arg);
	case SESSION_OPT_USER_STACK_SIZE:
		return parse_user_stack_size(o, arg);
	case 'M':
		return parse_map_entries(o, arg);
	case 'v':
		log_verbosity++;
		return 0;
	case 'q':
		log_verbosity = -1;
		return 0;
	default:
		return -ENOENT;
	}
}

int session__check_target(struct session_opts *o)
{
	int targets = (o->pid > 0) + (o->argv != NULL);

	if (targets > 1) {
		pr_err("give either -p PID or a COMMAND, not both\n");
		return -EINVAL;
	}
	if (o->cgroup && targets) {
		pr_err("--cgroup chooses the tasks to record: give it without -p PID or a COMMAND\n");
		return -EINVAL;
	}
	if (o->cgroup && o->system_wide) {
		pr_err("-a and --cgroup exclude each other\n");
		return -EINVAL;
	}
	if (!targets && !o->system_wide && !o->cgroup) {
		pr_err("nothing to record: give -a, -p PID, --cgroup PATH or a COMMAND\n");
		return -EINVAL;
	}
	if (o->system_wide && o->pid > 0) {
		pr_err("-a and -p exclude each other\n");
		return -EINVAL;
	}
	/* An option of a family not recorded would be silently ignored. */
	if (o->freq_set && !(o->families & FAMILY_SAMPLE)) {
		pr_err("--freq applies to the sample family, which -e leaves out\n");
		return -EINVAL;
	}
	if (o->user_stack_set && !(o->families & FAMILY_SAMPLE)) {
		pr_err("--user-stack and --user-stack-size apply to the sample family, which -e leaves out\n");
		return -EINVAL;
	}
	if (o->user_stack_size_set && !o->user_stack_dwarf) {
		pr_err("--user-stack-size applies to --user-stack dwarf\n");
		return -EINVAL;
	}
	if (o->budget_set && !(o->families & FAMILY_UPROBES)) {
		pr_err("--event-budget applies to --uprobes\n");
		return -EINVAL;
	}
	return 0;
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
static void note_write_error(struct session *s, int err)
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

/* --- the workload ------------------------------------------------------ */

static void redirect_streams(enum wl_output out)
{
	int null;

	if (out == WL_OUT_STDERR) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		return;
	}
	if (out != WL_OUT_NULL || (null = open("/dev/null", O_RDWR)) < 0)
		return;
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	if (null > STDERR_FILENO)
		close(null);
}

static void child_exec(struct session *s, int go, int errfd, int out)
{
	char c;
	int e;

	sigprocmask(SIG_SETMASK, &s->orig_mask, NULL);
	signal(SIGPIPE, SIG_DFL);
	redirect_streams(s->o.wl_output);
	if (out >= 0)	/* --metric: we read it and pass it on */
		dup2(out, STDOUT_FILENO);
	/* Wait until the probes are attached: none of its contention is missed. */
	if (read(go, &c, 1) != 1)
		_exit(EXIT_FAIL);
	execvp(s->o.argv[0], s->o.argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) != sizeof(e))
		_exit(EXIT_FAIL);
	_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

static int workload_fork(struct session *s)
{
	int go[2], err[2], out[2] = { -1, -1 };
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC) || (s->has_metric && pipe2(out, O_CLOEXEC))) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child_exec(s, go[0], err[1], out[1]);
	}
	/* Until its exec, the child runs our code: sampled there, it is named. */
	if (maps_cache__adopt_own(&s->maps, pid))
		pr_debug("cannot give the workload our mappings until its exec\n");
	close(go[0]);
	close(err[1]);
	if (out[1] >= 0) {
		close(out[1]);
		fcntl(out[0], F_SETFL, O_NONBLOCK);
		s->wl_out_fd = out[0];
	}
	s->wl.pid = pid;
	s->wl.go_fd = go[1];
	s->wl.err_fd = err[0];
	return 0;
}

/* Let the workload exec; returns 0 or the exit code for a failed exec. */
static int workload_start(struct session *s)
{
	ssize_t n;
	int e = 0;

	if (write(s->wl.go_fd, "g", 1) != 1)
		e = errno;
	close(s->wl.go_fd);
	s->wl.go_fd = -1;
	n = read(s->wl.err_fd, &e, sizeof(e));
	close(s->wl.err_fd);
	s->wl.err_fd = -1;
	if (n != sizeof(e) && !e)
		return 0;
	waitpid(s->wl.pid, NULL, 0);
	s->wl.pid = 0;
	pr_err("cannot run '%s': %s\n", s->o.argv[0], strerror(e));
	return e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

/* Reap without waiting; true once the workload is gone. */
static bool workload_reap(struct session *s)
{
	int status;

	if (!s->wl.pid || s->wl.exited)
		return true;
	if (waitpid(s->wl.pid, &status, WNOHANG) != s->wl.pid)
		return false;
	s->wl.exited = true;
	s->wl.status = status;
	return true;
}

static void workload_finish(struct session *s)
{
	uint64_t deadline = now_ns() + KILL_GRACE_NS;

	if (!s->wl.pid || workload_reap(s)) {
		s->wl_ended = true;
		return;
	}
	kill(s->wl.pid, SIGTERM);
	while (!workload_reap(s) && now_ns() < deadline)
		usleep(10000);
	if (!s->wl.exited) {
		kill(s->wl.pid, SIGKILL);
		waitpid(s->wl.pid, &s->wl.status, 0);
		s->wl.exited = true;
	}
}

int session__exit_code(const struct session *s)
{
	if (!s->wl.pid || !s->wl.exited)
		return EXIT_OK;
	if (WIFSIGNALED(s->wl.status))
		return EXIT_SIGNAL_BASE + WTERMSIG(s->wl.status);
	return WEXITSTATUS(s->wl.status);
}

/* The lock_names META line: how the recording names locks, static ones last. */
#define LOCK_NAMES_LINE	1536

static void lock_names_line(const struct session *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%sstatic locks: %s", collector__lock_names(s->col),
		 *collector__lock_names(s->col) ? "; " : "",
		 s->static_names[0] ? s->static_names : s->have_ksyms ? "kallsyms" : "none (no kallsyms)");
}

/* --- meta data ----------------------------------------------------------- */

static void join_argv(char **argv, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (; argv && *argv && used < len; argv++)
		used += snprintf(out + used, len - used, "%s%s", used ? " " : "", *argv);
}

static int write_meta(struct session *s)
{
	char cpus[16], bucket[32], command[1024], target[PATH_MAX + 16], started[64], rate[24], freq[24], thin[24];
	char names[LOCK_NAMES_LINE], ustack[32];
	struct family_meta fm[FAMILY_COUNT];
	struct utsname u;
	time_t t = time(NULL);
	struct kv kv[17 + FAMILY_COUNT * FAMILY_META_KEYS];
	size_t n = 0;
	int i;

	uname(&u);
	snprintf(cpus, sizeof(cpus), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(bucket, sizeof(bucket), "%" PRIu64, (uint64_t)(s->o.bucket * NSEC_PER_SEC));
	join_argv(s->o.argv, command, sizeof(command));
	if (s->o.pid)
		snprintf(target, sizeof(target), "pid %d", s->o.pid);
	else if (s->o.cgroup)
		snprintf(target, sizeof(target), "cgroup %s", s->cgroup.path);
	else
		snprintf(target, sizeof(target), "%s", s->o.system_wide ? "system-wide" : "command");
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%S%z", localtime(&t));
	kv[n++] = (struct kv){ "lockstat_version", LOCKSTAT_VERSION };
	kv[n++] = (struct kv){ "kernel", u.release };
	kv[n++] = (struct kv){ "kernel_version", u.version };
	kv[n++] = (struct kv){ "hostname", u.nodename };
	kv[n++] = (struct kv){ "arch", u.machine };
	kv[n++] = (struct kv){ "cpus", cpus };
	kv[n++] = (struct kv){ "command", command };
	kv[n++] = (struct kv){ "target", target };
	kv[n++] = (struct kv){ "start_time", started };
	kv[n++] = (struct kv){ "bucket_ns", bucket };
	kv[n++] = (struct kv){ "per_task", s->o.per_task ? "1" : "0" };
	snprintf(rate, sizeof(rate), "%lu", s->o.stack_rate);
	kv[n++] = (struct kv){ "stack_rate", rate };
	snprintf(thin, sizeof(thin), "%" PRIu64, stack_thin_ns(s->o.stack_rate, s->o.stack_thin));
	kv[n++] = (struct kv){ "stack_thin_ns", thin };
	snprintf(freq, sizeof(freq), "%lu", s->o.sample_freq);
	kv[n++] = (struct kv){ "sample_freq", freq };
	/* Only where not frame pointers: a profile without it was recorded as ever. */
	if (s->o.user_stack_dwarf && (s->o.families & FAMILY_SAMPLE)) {
		snprintf(ustack, sizeof(ustack), "dwarf,%lu", s->o.user_stack_size);
		kv[n++] = (struct kv){ "user_stack", ustack };
	}
	lock_names_line(s, names, sizeof(names));
	kv[n++] = (struct kv){ "lock_names", names };
	for (i = 0; i < FAMILY_COUNT; i++) {
		family_meta_keys(family_name(1 << i), collector__status(s->col, 1 << i), &fm[i]);
		memcpy(&kv[n], fm[i].kv, fm[i].n * sizeof(kv[0]));
		n += fm[i].n;
	}
	return pwriter__meta(s->w, kv, n);
}

/* The counters are the collector's since it opened; a profile holds its own (serve). */
static int write_lost(struct session *s)
{
	struct lost_counter lc[MAX_LOST];
	char vals[MAX_LOST][24];
	struct kv kv[MAX_LOST];
	size_t i, n = collector__lost(s->col, lc, MAX_LOST);

	for (i = 0; i < n; i++) {
		snprintf(vals[i], sizeof(vals[i]), "%" PRIu64, lc[i].value - s->lost_base[i]);
		kv[i] = (struct kv){ (char *)lc[i].name, vals[i] };
	}
	return pwriter__lost(s->w, kv, n);
}

/* MAPPING chunks, up to 256 mappings each. */
static int write_maps(void *ctx, const struct proc_map *pm, size_t n)
{
	struct session *s = ctx;
	const char *paths[256];
	struct mapping m[256];
	size_t j, k;
	int err = 0;

	for (j = 0; j < n && !err; j += k) {
		for (k = 0; k < 256 && j + k < n; k++) {
			m[k] = (struct mapping){ .tgid = pm[j + k].tgid, .start = pm[j + k].start,
				.end = pm[j + k].end, .pgoff = pm[j + k].pgoff,
				.build_id_len = pm[j + k].build_id_len };
			memcpy(m[k].build_id, pm[j + k].build_id, sizeof(m[k].build_id));
			paths[k] = pm[j + k].path;
		}
		err = pwriter__mappings(s->w, m, k, paths);
	}
	return err;
}

/*
 * The profile refers to tgid from now on: what /proc still shows of the
 * mappings made before we looked joins those the tracker reported (a
 * process gone already has only those), and its files are held open.
 */
static void announce(struct session *s, uint32_t tgid)
{
	if (!tgid || maps_cache__announced(&s->maps, tgid))
		return;
	maps_cache__read_proc(&s->maps, tgid);
	maps_cache__announce(&s->maps, tgid);
}

/* Announce the processes seen in samples, and write every new mapping. */
static int capture_mappings(struct session *s, const struct sample_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		announce(s, rows[i].key.tgid);
	return maps_cache__write_new(&s->maps, write_maps, s);
}

/* Called as the sampler announces a process, or a table first has its stack. */
static void on_new_process(void *ctx, uint32_t tgid)
{
	struct session *s = ctx;

	announce(s, tgid);
	if (!s->write_err)
		note_write_error(s, maps_cache__write_new(&s->maps, write_maps, s));
}

/* --- the loop ------------------------------------------------------------ */

/* A loss table's columns (NAME.lost: every column a loss counter) added up, for the lost: line. */
static void add_table_losses(struct session *s, const struct trows *t)
{
	const char *name = t->schema->name;
	size_t len = strlen(name), r, k;
	uint32_t c;

	if (len < 5 || strcmp(name + len - 5, ".lost"))
		return;
	for (c = 0; c < t->schema->ncols; c++) {
		uint64_t sum = 0;

		for (r = 0; r < t->n; r++)
			sum += t->v[r * t->schema->ncols + c];
		for (k = 0; k < s->ntable_lost; k++)
			if (s->table_lost[k].schema == t->schema && s->table_lost[k].col == c)
				break;
		if (k == s->ntable_lost) {
			if (k == MAX_TABLE_LOST)
				continue;
			s->table_lost[s->ntable_lost++] = (struct table_lost){ t->schema, c, 0 };
		}
		s->table_lost[k].value += sum;
	}
}

static void write_rows(struct session *s, const struct snapshot *snap, uint64_t t)
{
	uint64_t t0 = s->last_t - s->t0, t1 = t - s->t0;
	size_t i;

	for (i = 0; i < snap->ncont; i++)
		s->contended += snap->cont[i].val.count;
	s->ucontended += snap->ucontended;
	for (i = 0; i < snap->nsamples; i++)
		s->samples += snap->samples[i].count;
	if (collector__status(s->col, FAMILY_LOCKS)->state == FSTATE_ATTACHED)
		note_write_error(s, pwriter__bucket(s->w, t0, t1, snap->cont, snap->ncont));
	if (!s->write_err)
		note_write_error(s, capture_mappings(s, snap->samples, snap->nsamples));
	if (!s->write_err && collector__status(s->col, FAMILY_SAMPLE)->state == FSTATE_ATTACHED)
		note_write_error(s, pwriter__samples(s->w, t0, t1, snap->samples, snap->nsamples));
	for (i = 0; i < snap->ntables && !s->write_err; i++) {
		add_table_losses(s, &snap->tables[i]);
		note_write_error(s, pwriter__table(s->w, t0, t1, &snap->tables[i]));
	}
	/* What the announced processes mapped since the last drain. */
	if (!s->write_err)
		note_write_error(s, maps_cache__write_new(&s->maps, write_maps, s));
	if (!s->write_err)
		note_write_error(s, write_lost(s));
	s->last_t = t;
}

/* lockstat's CPU time so far, user and system, in ns. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * The mappings of the processes that exited and were sampled are held
 * until their PCs are symbolized, at the end: a long recording of many
 * short processes (a fork loop, -a) would hold them all, 1 KiB or so
 * each (hackbench in a loop: 40 MiB more in 100 s). Past this many, the
 * PCs seen so far are symbolized now, as at the end, and those processes
 * forgotten.
 */
#define EXITED_HELD_MAX	1024

static bool maps_held(void *ctx, uint32_t tgid)
{
	return maps_cache__known(ctx, tgid);
}

static void forgot_process(void *ctx, uint32_t tgid)
{
	collector__forget_process(ctx, tgid);
}

static void symbolize_exited(struct session *s, uint64_t before)
{
	size_t n;
	long pcs;

	if (!s->w || s->write_err || maps_cache__exited_held(&s->maps, before) < EXITED_HELD_MAX)
		return;
	note_write_error(s, pwriter__usyms(s->w));
	if (s->write_err)
		return;
	n = maps_cache__forget_exited(&s->maps, before, forgot_process, s->col);
	pcs = pwriter__forget_upcs(s->w, maps_held, &s->maps);
	/*
	 * What symbolizing freed (libdw's tables when its handles are
	 * renewed, the files closed past SYMS_OPEN_FILES) stays in the heap's
	 * pages unless told: resident for the rest of the recording.
	 */
	malloc_trim(0);
	pr_info("symbolized the user PCs seen so far, then forgot %zu exited processes and %ld of their PCs\n",
		n, pcs);
}

static bool sample_stack_known(void *ctx, bool user, int32_t id)
{
	return collector__sample_stack_known(ctx, user, id);
}

/*
 * Maps half full lose their idle rows and stacks (collector__trim_full);
 * the stacks the sampler forgot are forgotten by the writer too.
 */
static void trim_full_maps(struct session *s)
{
	uint64_t trims = collector__trims(s->col);
	int n = collector__trim_full(s->col);

	if (n < 0) {
		pr_warn("removing idle rows from the kernel's maps: %s\n", strerror(-n));
		return;
	}
	if (s->w && collector__trims(s->col) != trims &&
	    pwriter__forget_sample_stacks(s->w, sample_stack_known, s->col) < 0)
		note_write_error(s, -ENOMEM);
}

/*
 * Each drain reads the steal too: the interval a CPU lost most in is
 * then a bucket. A reading that fails is skipped (the next one covers
 * its interval), and said once.
 */
static void sample_steal(struct session *s, uint64_t now)
{
	int err;

	if (!s->steal_on || !(err = steal_tracker__sample(&s->steal, now)))
		return;
	if (!s->steal_err)
		pr_warn("reading steal time from /proc/stat: %s: an interval is skipped\n", strerror(-err));
	s->steal_err = err;
}

static void write_bucket(struct session *s)
{
	uint64_t start = now_ns(), cpu = cpu_ns();
	struct snapshot snap;
	int err;

	err = collector__drain(s->col, &snap);
	if (err) {
		pr_err("reading the kernel maps failed: %s\n", strerror(-err));
		s->stop = true;
		return;
	}
	/*
	 * Now, not after writing: a row removed counted what it took between
	 * this drain and its removal as lost, and writing (symbolizing, at
	 * times) takes much longer. The rows just drained all stay, and so do
	 * their stacks, for writing.
	 */
	trim_full_maps(s);
	sample_steal(s, start);
	write_rows(s, &snap, now_ns());
	/* Gone before this drain and not in the profile: nothing can refer to them now. */
	maps_cache__purge(&s->maps, start);
	symbolize_exited(s, start);
	s->drain_ns = now_ns() - start;
	s->drain_cpu_ns += cpu_ns() - cpu;
	s->nbuckets++;
}

static void on_stop_signal(struct session *s, const struct signalfd_siginfo *si)
{
	s->signals++;
	if (!s->wl.pid || s->wl.exited || s->signals > 1) {
		s->stop = true;
		return;
	}
	/* A terminal's Ctrl-C already reached the workload: forward the rest. */
	if (si->ssi_code != SI_KERNEL)
		kill(s->wl.pid, si->ssi_signo);
	s->kill_deadline = now_ns() + KILL_GRACE_NS;
}

static void handle_signals(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (s->wl.pid && workload_reap(s))
				s->stop = true;
			continue;
		}
		if (s->o.extra_signal && (int)si.ssi_signo == s->o.extra_signal) {
			if (s->hooks && s->hooks->on_signal)
				s->hooks->on_signal(s->hooks->ctx, si.ssi_signo);
			continue;
		}
		on_stop_signal(s, &si);
	}
}

static int poll_timeout_ms(const struct session *s, uint64_t deadline)
{
	uint64_t now = now_ns(), until = s->next_t;

	if (deadline && deadline < until)
		until = deadline;
	if (s->stats_turn && s->stats_turn < until)
		until = s->stats_turn;
	if (s->kill_deadline && s->kill_deadline < until)
		until = s->kill_deadline;
	return until <= now ? 0 : (int)((until - now + 999999) / 1000000);
}

/*
 * The workload's output, passed on as it comes and read for --metric;
 * closed at EOF (it exited, or closed its stdout). When our standard
 * output fails (a closed pipe: SIGPIPE is ignored), the metric is still
 * read and the recording goes on.
 */
static void pass_output(struct session *s)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(s->wl_out_fd, buf, sizeof(buf))) > 0) {
		metric__feed(&s->metric, buf, n);
		if (s->stdout_failed || write(STDOUT_FILENO, buf, n) == n)
			continue;
		pr_warn("writing to standard output failed: %s: the workload's output is no longer passed on; --metric still reads it\n",
			strerror(errno));
		s->stdout_failed = true;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(s->wl_out_fd);
		s->wl_out_fd = -1;
	}
}

static void poll_once(struct session *s, uint64_t deadline)
{
	const struct session_hooks *h = s->hooks;
	/* poll(2) skips the descriptors that are -1. */
	struct pollfd pfd[5] = { { s->sigfd, POLLIN, 0 }, { s->pidfd, POLLIN, 0 },
				 { collector__event_fd(s->col), POLLIN, 0 },
				 { h && h->on_input ? h->input_fd : -1, POLLIN, 0 },
				 { s->wl_out_fd, POLLIN, 0 } };
	int n = poll(pfd, 5, poll_timeout_ms(s, deadline));

	if (n <= 0)
		return;
	if (pfd[4].revents & (POLLIN | POLLHUP | POLLERR))
		pass_output(s);
	if (pfd[2].revents & POLLIN)
		collector__consume(s->col);
	if (pfd[0].revents & POLLIN)
		handle_signals(s);
	if (s->pidfd >= 0 && (pfd[1].revents & POLLIN)) {
		pr_notice("process %d exited\n", s->o.pid);
		s->stop = true;
	}
	if (pfd[3].revents & (POLLIN | POLLHUP | POLLERR))
		h->on_input(h->ctx);
}

void session__run(struct session *s)
{
	uint64_t deadline = s->o.duration ? s->t0 + (uint64_t)(s->o.duration * NSEC_PER_SEC) : 0;

	s->next_t = s->t0 + (uint64_t)(s->o.bucket * NSEC_PER_SEC);
	while (!s->stop) {
		s->stats_turn = collector__stats_tick(s->col, now_ns());
		poll_once(s, deadline);
		if (now_ns() >= s->next_t && !s->stop) {
			write_bucket(s);
			s->next_t += (uint64_t)(s->o.bucket * NSEC_PER_SEC);
			if (!s->stop && s->hooks && s->hooks->on_bucket)
				s->hooks->on_bucket(s->hooks->ctx);
		}
		if (deadline && now_ns() >= deadline)
			s->stop = true;
		if (s->kill_deadline && now_ns() >= s->kill_deadline && !workload_reap(s)) {
			pr_warn("workload did not exit after the signal; killing it\n");
			kill(s->wl.pid, SIGKILL);
			s->kill_deadline = 0;
		}
	}
}

void session__stop(struct session *s)
{
	s->stop = true;
}

void session__set_bucket(struct session *s, double secs)
{
	s->o.bucket = secs;
	s->next_t = s->last_t + (uint64_t)(secs * NSEC_PER_SEC);
}

/* --- set-up and tear-down ------------------------------------------------ */

static int setup_signals(struct session *s)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGCHLD);
	if (s->o.extra_signal)
		sigaddset(&mask, s->o.extra_signal);
	if (sigprocmask(SIG_BLOCK, &mask, &s->orig_mask))
		return -errno;
	s->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return s->sigfd < 0 ? -errno : 0;
}

static int open_target_pid(struct session *s)
{
	if (kill(s->o.pid, 0) && errno == ESRCH) {
		pr_err("no process with pid %d\n", s->o.pid);
		return -ESRCH;
	}
	s->pidfd = syscall(SYS_pidfd_open, s->o.pid, 0);
	if (s->pidfd < 0)
		pr_info("pidfd_open(%d): %s: will stop on -d or a signal only\n", s->o.pid, strerror(errno));
	return 0;
}

static int open_cgroup(struct session *s)
{
	char why[PATH_MAX + 128];

	if (cgroup_target__open(&s->cgroup, s->o.cgroup, why, sizeof(why))) {
		pr_err("--cgroup: %s\n", why);
		return -EINVAL;
	}
	return 0;
}

static int attach_probes(struct session *s)
{
	struct collector_opts co = {
		.per_task = s->o.per_task,
		.filter_targets = !s->o.system_wide,
		.cgroup_fd = s->cgroup.fd,
		.mode = s->o.mode,
		.stats_entries = s->o.map_entries,
		.stack_rate = s->o.stack_rate,
		.stack_thin = s->o.stack_thin,
		.families = s->o.families,
		.sample_freq = s->o.sample_freq,
		.user_stack_size = s->o.user_stack_dwarf ? s->o.user_stack_size : 0,
		.target_pid = s->wl.pid ? s->wl.pid : s->o.pid,
		.event_budget = s->o.event_budget,
		.force = s->o.force,
		.maps = &s->maps,
		/* The opt-in families are the costly ones: say what they cost. */
		.probe_stats = s->o.probe_stats ||
			       (s->o.families & (FAMILY_FD | FAMILY_PAGECACHE | FAMILY_HOLD)),
	};
	char why[600] = "", line[600];
	int err, i;

	features_probe(&s->feat);
	if (!s->feat.r[FEAT_TP_SCHED].ok && co.filter_targets && !s->o.cgroup)
		pr_warn("no sched_process_fork tracepoint: processes the workload forks are not followed\n");
	err = collector__open(&s->col, &co, &s->feat, why, sizeof(why));
	if (err) {
		pr_err("no probe could be attached: %s\n", why);
		return err;
	}
	if (collector__maptrack_why(s->col)[0])
		pr_warn("cannot follow mappings as they are made (%s): libraries mapped after a process's "
			"first sample, or by a process gone before a drain, may stay unresolved\n",
			collector__maptrack_why(s->col));
	/* A family that cannot attach is named; the others go on. */
	for (i = 0; i < FAMILY_COUNT; i++) {
		const struct family_status *st = collector__status(s->col, 1 << i);

		if (st->state == FSTATE_NOT_ATTACHED)
			pr_warn("%s: %s\n", family_name(1 << i), family_status_line(st, line, sizeof(line)));
		else if (st->state == FSTATE_ATTACHED)
			pr_info("%s: %s\n", family_name(1 << i), family_status_line(st, line, sizeof(line)));
	}
	if (s->wl.pid)
		err = collector__add_target(s->col, s->wl.pid);
	else if (s->o.pid)
		err = collector__add_target(s->col, s->o.pid);
	if (err)
		pr_err("cannot follow the workload: %s\n", strerror(-err));
	return err;
}

static void load_symbols(struct session *s)
{
	int err = ksyms_load(&s->ks);

	s->have_ksyms = !err;
	if (err == -EPERM)
		pr_warn("kernel addresses are hidden (kptr_restrict): locks and callers stay unnamed\n");
	else if (err)
		pr_warn("cannot read /proc/kallsyms: %s: locks and callers stay unnamed\n", strerror(-err));
	if (err)
		return;
	if (kmap_load_running(&s->ks, s->static_names, sizeof(s->static_names)))
		pr_warn("no memory for the data symbols of System.map: static locks named by address\n");
	else
		pr_info("static locks: %s\n", s->static_names);
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
		.name_lock = collector__name_lock,
		.resolve_user = uresolve,
		.resolve_ctx = &s->ures,
		.usym_file = usym_file_of,
		.on_user_tgid = on_new_process,
		.on_user_tgid_ctx = s,
		.usyms_leaves_only = s->o.brief_usyms,
	};
	bool lines = !s->o.brief_usyms && !s->o.usyms_no_lines;
	struct syms_opts so = { .lines = lines, .inlines = lines, .max_files = SYMS_OPEN_FILES };
	uint8_t id[16];
	struct timespec ts;
	int err;

	clock_gettime(CLOCK_REALTIME, &ts);
	po.created_ns = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	if (getentropy(id, sizeof(id)))
		memset(id, 0, sizeof(id));
	po.recording_id = id;
	s->syms = syms__new(&so);
	s->ures = (struct uresolver){ .syms = s->syms, .maps = &s->maps };
	if (!s->syms)
		po.resolve_user = NULL;
	err = pwriter__new(&s->w, &po);
	if (!err)
		err = write_meta(s);
	if (err)
		pr_err("writing %s failed: %s\n", s->name, strerror(-err));
	return err;
}

void session__write_usyms(struct session *s)
{
	if (!s->write_err)
		note_write_error(s, pwriter__usyms_for(s->w, s->o.usyms_budget_ns));
}

/* A second META chunk: its keys join (and win over) the first one's. */
static void write_metric(struct session *s)
{
	struct kv kv[2];

	if (!s->has_metric)
		return;
	metric__end(&s->metric);
	if (!s->metric.found) {
		pr_warn("--metric: no line of the workload's output matched\n");
		return;
	}
	kv[0] = (struct kv){ "metric.name", s->metric.name };
	kv[1] = (struct kv){ "metric.value", s->metric.value };
	pr_notice("metric: %s = %s\n", s->metric.name, s->metric.value);
	note_write_error(s, pwriter__meta(s->w, kv, 2));
}

/* A META chunk with the recording's steal time, as of its last reading. */
static void write_steal(struct session *s)
{
	struct steal_summary sum;
	struct steal_meta m;

	if (!s->steal_on)
		return;
	steal_tracker__summary(&s->steal, &sum);
	note_write_error(s, pwriter__meta(s->w, m.kv, steal_meta_keys(&sum, &m)));
}

/* What write_steal() wrote, for record's summary. */
void session__say_steal(struct session *s)
{
	struct steal_summary sum = { .max_iv_cpu = -1 };
	char line[256];

	if (s->steal_on)
		steal_tracker__summary(&s->steal, &sum);
	pr_notice("steal: %s%s%s\n", out_steal_line(&sum, line, sizeof(line)),
		  s->steal_on ? "" : ": ", s->steal_on ? "" : strerror(-s->steal_err));
}

int session__steal_ns(struct session *s, uint64_t *ns)
{
	struct steal_summary sum;

	if (!s->steal_on)
		return -ENODATA;
	steal_tracker__summary(&s->steal, &sum);
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

/* The lock names' line again, last: it counts the merged slab caches the recording met. */
static void write_lock_names(struct session *s)
{
	char names[LOCK_NAMES_LINE];
	struct kv kv = { "lock_names", names };

	lock_names_line(s, names, sizeof(names));
	note_write_error(s, pwriter__meta(s->w, &kv, 1));
}

void session__finish(struct session *s)
{
	uint64_t t, cpu = cpu_ns(), wall = now_ns();
	struct snapshot snap;
	int err;
	uint32_t flags;

	workload_finish(s);
	t = now_ns();
	sample_steal(s, t);	/* the recording's end: what comes next is lockstat's own */
	if (s->wl_out_fd >= 0)	/* what it wrote just before it ended */
		pass_output(s);
	err = collector__stop(s->col, &snap);
	if (err)
		pr_err("reading the kernel maps failed: %s\n", strerror(-err));
	if (!s->write_err && !err)
		write_rows(s, &snap, t);
	/* Once per unique user PC, while the files are still held open. */
	if (!s->write_err)
		note_write_error(s, pwriter__usyms(s->w));
	if (!s->write_err)
		write_metric(s);
	if (!s->write_err)
		write_lock_names(s);
	if (!s->write_err)
		write_steal(s);
	flags = s->signals ? END_F_INTERRUPTED : END_F_CLEAN;
	if (!s->write_err)
		note_write_error(s, pwriter__end(s->w, t - s->t0, session__exit_code(s), flags));
	if (s->write_err && s->out.published)
		say_write_error(s);
	else if (!s->write_err && s->o.output && outfile__commit(&s->out)) {
		pr_err("%s\n", s->out.why);	/* the fsync: every chunk was written */
		s->write_err = -EIO;
	}
	s->finish_cpu_ns = cpu_ns() - cpu;
	s->finish_ns = now_ns() - wall;
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
		note_write_error(s, pwriter__usyms(s->w));
	if (!s->write_err)
		write_steal(s);
	if (!s->write_err)
		note_write_error(s, pwriter__end(s->w, s->last_t - s->t0, EXIT_OK, END_F_CLEAN));
	return s->write_err;
}

static void note_lost_base(struct session *s)
{
	struct lost_counter lc[MAX_LOST];
	size_t i, n = collector__lost(s->col, lc, MAX_LOST);

	for (i = 0; i < n; i++)
		s->lost_base[i] = lc[i].value;
	s->ntable_lost = 0;
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
	note_lost_base(s);
	if (s->steal_on)
		steal_tracker__restart(&s->steal);
	return open_writer(s);
}

/*
 * What the probes cost, measured by the kernel (kernel.bpf_stats): over
 * the whole recording, or over the tenth of it that the stats were on.
 */
static void say_probe_costs(const struct session *s)
{
	struct probe_cost pc[PROBE_COSTS_MAX];
	double secs = (s->last_t - s->t0) / 1e9;
	uint64_t measured = collector__stats_ns(s->col, s->last_t);
	int i, n;

	if (collector__stats_cycled(s->col))
		pr_notice("probe costs measured over %.2f s of the %.2f s (kernel.bpf_stats on %d ms of every %d)\n",
			  measured / 1e9, secs, STATS_ON_MS, STATS_PERIOD_MS);
	if (measured)
		secs = measured / 1e9;

	n = collector__costs(s->col, pc, PROBE_COSTS_MAX);
	if (n == -EOPNOTSUPP)
		return;
	if (n < 0) {
		pr_warn("probe cost unknown: %s\n", strerror(-n));
		return;
	}
	for (i = 0; i < n && secs > 0; i++) {
		double rate = pc[i].events / secs;
		double ns = pc[i].events ? (double)pc[i].run_ns / pc[i].events : 0;

		pr_notice("probe cost: %-9s %10.0f events/s x %6.0f ns = %5.2f %% of one CPU\n",
			  pc[i].name, rate, ns, pc[i].run_ns / secs / 1e7);
	}
}

static double tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

/*
 * lockstat's own CPU time from session__start() on (getrusage: user and
 * system), where it went: the drains, and the end (the last drain and
 * the user symbols); and its peak resident memory (ru_maxrss), the end's
 * included, which no sampling of /proc/PID/status can promise to see.
 */
static void say_own_cpu(const struct session *s)
{
	double wall = (now_ns() - s->wall_start) / 1e9, user, sys;
	uint64_t buckets = s->nbuckets ? s->nbuckets : 1;
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) || wall <= 0)
		return;
	user = tv_s(&ru.ru_utime) - tv_s(&s->ru_start.ru_utime);
	sys = tv_s(&ru.ru_stime) - tv_s(&s->ru_start.ru_stime);
	pr_notice("own CPU: %.3f s (user %.3f + sys %.3f) in %.2f s = %.2f %% of one CPU; "
		  "drains %.2f ms a bucket (%" PRIu64 " buckets, %" PRIu64 " map entries read a bucket), "
		  "the end %.3f s in %.2f s; peak RSS %.1f MiB\n", user + sys, user, sys, wall,
		  100 * (user + sys) / wall, s->drain_cpu_ns / 1e6 / buckets, s->nbuckets,
		  collector__entries_read(s->col) / (buckets + 1), s->finish_cpu_ns / 1e9,
		  s->finish_ns / 1e9, ru.ru_maxrss / 1024.0);
}

/*
 * The loss counters that are not zero, as the report's header lists
 * them, said where they happen: a notice, as a stack collision or two
 * is routine; their sizes tell the rest.
 */
void session__say_lost(const struct session *s)
{
	struct lost_counter lc[MAX_LOST];
	size_t i, len = 0, n = collector__lost(s->col, lc, MAX_LOST);
	char line[1024];
	int w;

	line[0] = '\0';
	for (i = 0; i < n && len < sizeof(line); i++) {
		if (lc[i].value == s->lost_base[i])
			continue;
		w = snprintf(line + len, sizeof(line) - len, " %s=%" PRIu64, lc[i].name,
			     lc[i].value - s->lost_base[i]);
		if (w > 0)
			len += w;
	}
	/* The families' tables of losses, as report --view tables names them. */
	for (i = 0; i < s->ntable_lost && len < sizeof(line); i++) {
		const struct table_lost *t = &s->table_lost[i];

		if (!t->value)
			continue;
		w = snprintf(line + len, sizeof(line) - len, " %s.%s=%" PRIu64, t->schema->name,
			     t->schema->cols[t->col].name, t->value);
		if (w > 0)
			len += w;
	}
	if (len)
		pr_notice("lost:%s (lockstat-record(1), LOSSES)\n", line);
}

void session__say_costs(const struct session *s)
{
	say_probe_costs(s);
	say_own_cpu(s);
}

static void kill_workload(struct session *s)
{
	if (s->wl.pid) {
		kill(s->wl.pid, SIGKILL);
		waitpid(s->wl.pid, NULL, 0);
	}
}

/* The steal's first reading, at t0; without it the profile says "steal: not recorded". */
static void start_steal(struct session *s)
{
	s->steal_err = steal_tracker__init(&s->steal, "/proc/stat", (uint64_t)(s->o.bucket * NSEC_PER_SEC),
					   s->t0);
	s->steal_on = !s->steal_err;
	if (s->steal_err)
		pr_warn("reading steal time from /proc/stat: %s: not recorded\n", strerror(-s->steal_err));
}

int session__start(struct session *s)
{
	int err, code;

	s->name = s->o.output ? s->o.output : "the in-memory profile";
	s->wall_start = now_ns();
	getrusage(RUSAGE_SELF, &s->ru_start);
	/*
	 * A fixed threshold: blocks of 256 KiB and more (libelf's decompressed
	 * debug sections, libdw's line programs, the collector's tables) are
	 * mapped on their own and unmapped when freed. glibc's default raises
	 * the threshold past each such block freed, after which they come
	 * from the heap and stay resident: 140 MiB peak for 47 MiB in use
	 * (record -a under a hackbench loop).
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	if (s->o.metric && s->o.argv) {	/* the regex was checked with the options */
		char why[160];

		if (metric__init(&s->metric, s->o.metric, why, sizeof(why))) {
			pr_err("--metric %s\n", why);
			return EXIT_USAGE;
		}
		s->has_metric = true;
	}
	if (check_bpf_privileges())
		return EXIT_FAIL;
	if (s->o.cgroup && open_cgroup(s))
		return EXIT_FAIL;
	if (setup_signals(s) || open_output(s))
		return EXIT_FAIL;
	if (s->o.pid && open_target_pid(s))
		return EXIT_FAIL;
	if (s->o.argv && (err = workload_fork(s))) {
		pr_err("cannot start the workload: %s\n", strerror(-err));
		return EXIT_FAIL;
	}
	if (attach_probes(s))
		goto err_kill;
	load_symbols(s);	/* after attaching: our own programs are named too */
	if (open_writer(s))
		goto err_kill;
	if (collector__watch_processes(s->col, on_new_process, s))
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
	if (s->wl.pid && (code = workload_start(s)))
		return code;	/* unpublished: a profile that was there stays there */
	/* Under its final name from here on: a SIGKILL leaves it readable. */
	if (publish_output(s))
		goto err_kill;
	return 0;

err_kill:
	kill_workload(s);
	return EXIT_FAIL;
}

void session__free(struct session *s)
{
	if (s->steal_on)
		steal_tracker__free(&s->steal);
	s->steal_on = false;
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
	if (s->wl.go_fd >= 0)
		close(s->wl.go_fd);
	if (s->wl.err_fd >= 0)
		close(s->wl.err_fd);
	if (s->wl_out_fd >= 0)
		close(s->wl_out_fd);
	if (s->has_metric)
		metric__free(&s->metric);
	s->has_metric = false;
	s->wl_out_fd = -1;
	s->col = NULL;
	s->w = NULL;
	s->syms = NULL;
	s->fd = s->sigfd = s->pidfd = -1;
}
