// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat serve, after every bucket (lib/serve/serve.h): the bytes the
 * session wrote are read back once (and copied to the segment file on
 * the way), the bucket's counts become the Prometheus counters and go
 * into the open pprof windows, and the /metrics page is rendered for the
 * HTTP threads to hand out until the next bucket.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include "base/log.h"
#include "serve/serve.h"

int serve__model_reset(struct serve *v)
{
	top_model__free(&v->model);
	top_model__init(&v->model);
	v->model.iv_only = true;
	v->model.tee = serve__tee;
	v->model.tee_ctx = v;
	return 0;
}

int serve__read_back(struct serve *v)
{
	int err = top_model__read_fd(&v->model, v->s.fd, true);

	if (err)
		pr_err("%s\n", v->model.err);
	return err;
}

static uint64_t sample_count(const struct profile *p)
{
	const uint64_t *count;
	size_t it = 0;
	uint64_t n = 0;

	while ((count = htab_next(&p->samples, &it, NULL)))
		n += *count;
	return n;
}

static int fold_metrics(struct serve *v, const struct profile *p)
{
	struct lock_filter lf = { .pid = -1 };
	struct lock_view lv;
	int err = lock_view__build(&lv, p, &lf);

	if (!err)
		err = metrics__add_bucket(&v->metrics, &lv, now_ns());
	lock_view__free(&lv);
	metrics__add_samples(&v->metrics, sample_count(p));
	return err;
}

/* The bucket's span as its chunks say: the time its counts cover, however late the drain ran. */
void serve__fold(struct serve *v)
{
	const struct profile *p = v->model.iv;
	uint64_t span = v->model.iv_any ? v->model.iv_t1 - v->model.iv_t0 : 0;
	int err;

	if (!p)
		return;
	err = fold_metrics(v, p);
	if (!err && v->have_windows)
		err = windows__add_bucket(&v->windows, p, span, wall_ns());
	if (err)
		pr_warn("adding a bucket to the metrics and profiles: %s\n", strerror(-err));
}

/* --- the /metrics page --------------------------------------------------------------- */

static uint64_t statm_bytes(int field)
{
	unsigned long vals[2] = { 0, 0 };
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &vals[0], &vals[1]) != 2)
		vals[0] = vals[1] = 0;
	fclose(f);
	return (uint64_t)vals[field] * sysconf(_SC_PAGESIZE);
}

static uint64_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	uint64_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static size_t fill_lost(const struct serve *v, struct metric_lost *out, size_t max)
{
	struct lost_counter lc[MAX_LOST];
	size_t i, n = collector__lost(v->s.col, lc, MAX_LOST);

	for (i = 0; i < n && i < max; i++)
		out[i] = (struct metric_lost){ lc[i].family ? family_name(lc[i].family) : "mappings",
					     lc[i].name, lc[i].value };	/* 0: the mapping tracker's */
	return i;
}

static size_t fill_costs(const struct serve *v, struct metric_family_cost *out)
{
	struct probe_cost pc[FAMILY_COUNT];
	int i, n = collector__costs(v->s.col, pc, FAMILY_COUNT);

	for (i = 0; i < n; i++)
		out[i] = (struct metric_family_cost){ family_name(pc[i].family), pc[i].events, pc[i].run_ns };
	return n > 0 ? n : 0;
}

static void fill_ledger(const struct serve *v, struct metrics_self *x)
{
	uint64_t startup = 0, wl = 0;
	int err = session__ledger_now(&v->s, &startup, &wl, &x->workload_source);

	x->ledger = startup > 0;	/* 0: the session has not started */
	x->startup_cpu_seconds = startup / 1e9;
	x->workload_known = !err;
	x->workload_cpu_seconds = wl / 1e9;
}

static void fill_self(const struct serve *v, struct metrics_self *x, struct metric_lost *lost,
		      struct metric_family_cost *costs, const char *kernel)
{
	x->lost = lost;
	x->nlost = fill_lost(v, lost, MAX_LOST);
	x->costs = costs;
	x->ncosts = fill_costs(v, costs);
	x->costs_measured_ns = collector__stats_ns(v->s.col, now_ns());
	x->cpu_seconds = cpu_seconds();
	fill_ledger(v, x);
	x->vm_bytes = statm_bytes(0);
	x->rss_bytes = statm_bytes(1);
	x->open_fds = open_fds();
	x->start_time = v->start_wall_ns / 1e9;
	x->segments = v->nsegments;
	x->segment_bytes = v->ring_bytes + (v->have_file ? v->file_len : 0);
	x->segments_written = v->segments_begun;
	x->write_errors = v->write_errors;
	x->writing = v->writing;
	x->http_requests = httpd__requests(v->http);
	x->http_rejected = httpd__rejected(v->http);
	x->version = LOCKSTAT_VERSION;
	x->kernel = kernel;
}

static struct reply *render(const struct serve *v)
{
	struct metric_family_cost costs[FAMILY_COUNT];
	struct metric_lost lost[MAX_LOST];
	struct metrics_self x = { 0 };
	struct reply *r = NULL;
	struct utsname u;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	uname(&u);
	fill_self(v, &x, lost, costs, u.release);
	if (metrics__write(&v->metrics, &x, f)) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	r = reply__new(text, len);
	free(text);
	return r;
}

void serve__publish_page(struct serve *v)
{
	struct reply *r = render(v), *old;

	if (!r) {
		pr_warn("rendering /metrics failed: %s\n", strerror(ENOMEM));
		return;
	}
	pthread_mutex_lock(&v->page_lock);
	old = v->page;
	v->page = r;
	pthread_mutex_unlock(&v->page_lock);
	reply__put(old);
}

struct reply *serve__page(void *ctx)
{
	struct serve *v = ctx;
	struct reply *r;

	pthread_mutex_lock(&v->page_lock);
	r = v->page;
	if (r)
		reply__get(r);
	pthread_mutex_unlock(&v->page_lock);
	return r;
}
