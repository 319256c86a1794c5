// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat serve: a recorder that never ends, for machines watched around
 * the clock. Its options, and the order things start and stop in; the
 * parts are in lib/serve/serve.h.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/exitcode.h"
#include "base/log.h"
#include "cmds.h"
#include "serve/serve.h"

enum {
	OPT_MAX_SERIES = SESSION_OPT__END, OPT_LOCK_ADDRESSES, OPT_MAX_STACKS, OPT_MAX_CONNECTIONS,
	OPT_LINES,
};

static const struct run_opt own_opts[] = {
	{ "dir", 'D', "DIR", "segment directory (default " SERVE_DEFAULT_DIR "); one profile\n"
	  "per segment, lockstat-YYYYmmddTHHMMSSZ.data (UTC)" },
	{ "segment", 's', "SECS", "a new segment every SECS, on the clock (default 600:\n"
	  "every ten minutes; 1 to 86400)" },
	{ "keep", 'k', "N|SIZE", "keep at most N segments (default 144), or SIZE bytes of\n"
	  "them with a K, M, G or T suffix (default 1G); give both\nas two --keep; the oldest go first" },
	{ "listen", 'l', "ADDR", "HTTP on ADDR (default " SERVE_DEFAULT_LISTEN "); :PORT listens on\n"
	  "every address; none: no HTTP" },
	{ "max-series", OPT_MAX_SERIES, "N", "locks with Prometheus series of their own (default 20);\n"
	  "the others' waits go to lock=\"other\"" },
	{ "lock-addresses", OPT_LOCK_ADDRESSES, NULL, "keep the addresses of unnamed locks in label values" },
	{ "max-stacks", OPT_MAX_STACKS, "N", "stacks kept per pprof profile (default 10000)" },
	{ "max-connections", OPT_MAX_CONNECTIONS, "N", "HTTP connections at once (default 64)" },
	{ "lines", OPT_LINES, NULL, "user frames with DWARF file:line and inline frames, as\n"
	  "record's (memory grows with the debug info of every\nbinary seen in a segment)" },
	{ NULL, 0, NULL, NULL },
};

/* serve records the whole system by default, and keeps a bucket short (BUCKET_MAX_SERVE_S). */
static const struct run_text serve_texts[] = {
	{ "all-cpus", "record the whole system (the default)" },
	{ "bucket", "drain the kernel maps every SECS (default 1; 0.01 to 60)" },
	{ NULL, NULL },
};

static const struct run_cmd serve_cmd = {
	.synopsis = "usage: lockstat serve [OPTIONS] [-a | -p PID]\n",
	.rows = "dir segment keep listen max-series lock-addresses max-stacks max-connections lines "
		"all-cpus pid cgroup events freq user-stack user-stack-size per-thread hold attach bucket stack-rate stack-thin "
		"map-entries verbose quiet help",
	.own = own_opts,
	.texts = serve_texts,
	.verb = "record",
	.brief = true,
	.footer = "SIGHUP begins a new segment; SIGTERM or SIGINT completes the current one and\n"
		  "exits 0.\n",
};

static void usage(FILE *f)
{
	print_run_usage(f, "serve", &serve_cmd);
}

#define BUCKET_MAX_SERVE_S	60.0	/* a bucket is what a SIGKILL loses */
#define MIN_KEEP_BYTES		(64ULL << 10)

/* "144" is a count; "1G" a size (K, M, G, T: powers of 1024). */
static int parse_keep(struct serve_opts *o, const char *arg)
{
	static const char units[] = "KMGT";
	unsigned long v;
	const char *u;
	size_t n = strlen(arg);
	char digits[32];

	if (n && isdigit((unsigned char)arg[n - 1]))
		return parse_ulong("--keep", arg, 1, 1000000, &o->keep_count);
	u = n ? strchr(units, toupper((unsigned char)arg[n - 1])) : NULL;
	if (!u || n >= sizeof(digits) || n < 2) {
		pr_err("--keep: '%s' is not a number of segments nor a size (e.g. 1G)\n", arg);
		return -EINVAL;
	}
	snprintf(digits, sizeof(digits), "%.*s", (int)(n - 1), arg);
	if (parse_ulong("--keep", digits, 1, 1UL << 30, &v))
		return -EINVAL;
	o->keep_bytes = (uint64_t)v << (10 * (u - units + 1));
	if (o->keep_bytes < MIN_KEEP_BYTES) {
		pr_err("--keep: %s is less than a segment's header and names (at least 64K)\n", arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_listen(struct serve_opts *o, const char *arg)
{
	char why[160];

	if (!strcmp(arg, "none")) {
		o->listen = NULL;
		return 0;
	}
	if (httpd_parse_listen(arg, &o->http, &o->listen_loopback, why, sizeof(why))) {
		pr_err("--listen: %s\n", why);
		return -EINVAL;
	}
	o->listen = arg;
	return 0;
}

static int parse_own(struct serve_opts *o, int opt, const char *arg)
{
	unsigned long v;

	switch (opt) {
	case 'D':
		return parse_path("--dir", arg, &o->dir);
	case 's':
		return parse_seconds("--segment", arg, 1, 86400, &o->segment);
	case 'k':
		return parse_keep(o, arg);
	case 'l':
		return parse_listen(o, arg);
	case OPT_MAX_SERIES:
		return parse_ulong("--max-series", arg, 1, 100000, &o->metrics.max_series) ? -EINVAL : 0;
	case OPT_LOCK_ADDRESSES:
		o->metrics.addresses = true;
		return 0;
	case OPT_LINES:
		o->lines = true;
		return 0;
	case OPT_MAX_STACKS:
		return parse_ulong("--max-stacks", arg, 10, 10000000, &o->max_stacks);
	case OPT_MAX_CONNECTIONS:
		if (parse_ulong("--max-connections", arg, 1, 10000, &v))
			return -EINVAL;
		o->http.max_connections = v;
		return 0;
	default:
		return -ENOENT;
	}
}

static void serve_init(struct serve *v)
{
	memset(v, 0, sizeof(*v));
	session__init(&v->s);
	v->s.o.output = NULL;		/* a memfd: serve copies it to the segments */
	v->s.o.probe_stats = true;	/* /metrics has each family's cost */
	v->s.o.families &= ~FAMILY_MMAP_LOCK;	/* as top: -e ...,mmap_lock adds it */
	v->s.o.extra_signal = SIGHUP;	/* a new segment, not the end */
	v->s.ledger.off = true;		/* its figures are /metrics', counted from serve's start */
	v->o = (struct serve_opts){ .dir = SERVE_DEFAULT_DIR, .segment = 600, .keep_count = 144,
		.keep_bytes = 1ULL << 30, .max_stacks = 10000,
		.metrics = { .max_series = 20, .max_tracked = 4096 },
		.http = { .max_connections = 64, .idle_timeout_s = 10, .request_timeout_s = 10,
			  .max_header_bytes = 16384 } };
	parse_listen(&v->o, SERVE_DEFAULT_LISTEN);
	pthread_mutex_init(&v->page_lock, NULL);
	top_model__init(&v->model);
}

/* Returns 0, 1 for --help, or -EINVAL after saying what is wrong. */
static int parse_args(struct serve *v, int argc, char **argv)
{
	struct session_opts *so = &v->s.o;
	struct run_getopt g;
	int opt, err;

	if (run_cmd__getopt(&serve_cmd, &g))
		return -EINVAL;
	optind = 1;
	while ((opt = opt_next(argc, argv, g.shortopts, g.longopts)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?')
			return -EINVAL;
		err = parse_own(&v->o, opt, optarg);
		if (err == -ENOENT)
			err = session__parse_opt(so, opt, optarg);
		if (err)
			return -EINVAL;
	}
	if (no_operands(argc, argv))
		return -EINVAL;
	if (so->bucket > BUCKET_MAX_SERVE_S) {
		pr_err("--bucket: at most %g s for serve (a SIGKILL loses the bucket being drained)\n",
		       BUCKET_MAX_SERVE_S);
		return -EINVAL;
	}
	if (!so->pid && !so->cgroup)
		so->system_wide = true;	/* the default target */
	return session__check_target(so);
}

/* The directory is made when missing (one level, as systemd's StateDirectory). */
static int check_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0750) && errno != EEXIST) {
		pr_err("cannot make the segment directory %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		pr_err("%s is not a directory\n", dir);
		return -ENOTDIR;
	}
	return 0;
}

static void on_bucket(void *ctx)
{
	struct serve *v = ctx;

	session__write_usyms(&v->s);
	top_model__next_interval(&v->model);
	if (serve__read_back(v)) {
		v->err = -EIO;
		session__stop(&v->s);
		return;
	}
	serve__fold(v);
	serve__segments(v);
	serve__publish_page(v);
	if (v->http)
		httpd__reap(v->http);
}

static void on_signal(void *ctx, int signo)
{
	struct serve *v = ctx;

	if (signo == SIGHUP)
		v->rotate_asked = true;
}

static int start_http(struct serve *v)
{
	char why[200];
	int err;

	if (!v->o.listen)
		return 0;
	v->o.http.windows = &v->windows;
	v->o.http.metrics = serve__page;
	v->o.http.metrics_ctx = v;
	err = httpd__start(&v->http, &v->o.http, why, sizeof(why));
	if (err) {
		pr_err("cannot listen on %s: %s\n", v->o.listen, why);
		return err;
	}
	if (!v->o.listen_loopback)
		pr_warn("--listen %s: lock names, stacks and CPU profiles are served to every host that reaches it\n",
			v->o.listen);
	pr_notice("serving %s/metrics\n", httpd__url(v->http, why, sizeof(why)));
	return 0;
}

static int start_windows(struct serve *v)
{
	struct windows_opts wo = {
		.max_windows = 16,
		.max_samples = v->o.max_stacks,
		.bucket_ns = v->s.o.bucket * NSEC_PER_SEC,
		.has_cpu = collector__status(v->s.col, FAMILY_SAMPLE)->state == FSTATE_ATTACHED,
		.has_mutex = collector__status(v->s.col, FAMILY_LOCKS)->state == FSTATE_ATTACHED,
	};
	int err = windows__init(&v->windows, &wo, v->start_wall_ns);

	v->have_windows = !err;
	return err;
}

/* Everything up: the session, the first segment, the HTTP server. */
static int start(struct serve *v, const struct session_hooks *hooks)
{
	int code;

	v->s.hooks = hooks;
	v->s.o.usyms_budget_ns = v->s.o.bucket * NSEC_PER_SEC / 100;
	v->s.o.usyms_no_lines = !v->o.lines;
	v->start_wall_ns = wall_ns();
	code = session__start(&v->s);
	if (code)
		return code;
	if (metrics__init(&v->metrics, &v->o.metrics) || start_windows(v) ||
	    serve__first_segment(v) || start_http(v))
		return EXIT_FAIL;
	serve__publish_page(v);
	return 0;
}

static void serve_free(struct serve *v)
{
	httpd__stop(v->http);
	if (v->have_windows)
		windows__free(&v->windows);
	metrics__free(&v->metrics);
	top_model__free(&v->model);
	reply__put(v->page);
	pthread_mutex_destroy(&v->page_lock);
	if (v->have_file)
		outfile__close(&v->out);
	session__free(&v->s);
}

static int run(struct serve *v)
{
	struct session_hooks hooks = { .input_fd = -1, .on_bucket = on_bucket, .on_signal = on_signal, .ctx = v };
	int code = start(v, &hooks);

	if (code)
		return code;
	session__run(&v->s);
	session__finish(&v->s);
	serve__last_segment(v);
	if (v->have_file || v->name[0])
		pr_notice("stopped; the last segment is %s/%s\n", v->o.dir, v->name);
	return v->err || v->s.write_err ? EXIT_FAIL : EXIT_OK;
}

int cmd_serve(int argc, char **argv)
{
	struct serve v;
	int err, code;

	serve_init(&v);
	err = parse_args(&v, argc, argv);
	if (err) {
		serve_free(&v);
		usage(err > 0 ? stdout : stderr);
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	}
	code = check_dir(v.o.dir) ? EXIT_FAIL : run(&v);
	serve_free(&v);
	return code;
}
