// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* lockstat serve's pprof windows (lib/serve/windows.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/buf.h"
#include "serve/windows.h"

/* --- replies ---------------------------------------------------------------------- */

struct reply *reply__new(const void *data, size_t len)
{
	struct reply *r = malloc(sizeof(*r) + len + 1);

	if (!r)
		return NULL;
	atomic_init(&r->refs, 1);
	r->len = len;
	memcpy(r->data, data, len);
	r->data[len] = '\0';
	return r;
}

void reply__get(struct reply *r)
{
	atomic_fetch_add(&r->refs, 1);
}

void reply__put(struct reply *r)
{
	if (r && atomic_fetch_sub(&r->refs, 1) == 1)
		free(r);
}

/* --- windows ---------------------------------------------------------------------- */

int windows__init(struct windows *w, const struct windows_opts *o, uint64_t start_wall_ns)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->o = *o;
	w->cum_start_wall_ns = w->last_end_wall_ns = start_wall_ns;
	err = pprof_acc__new(&w->cum, true, o->max_samples);
	if (err)
		return err;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->changed, NULL);
	return 0;
}

static void window_free(struct window *win)
{
	pprof_acc__free(win->acc);
	reply__put(win->reply);
	free(win);
}

void windows__free(struct windows *w)
{
	struct window *win, *next;

	for (win = w->list; win; win = next) {
		next = win->next;
		window_free(win);
	}
	pprof_acc__free(w->cum);
	reply__put(w->cum_reply);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->changed);
	memset(w, 0, sizeof(*w));
}

static int encode(struct pprof_acc *acc, uint64_t time_ns, uint64_t duration_ns, struct reply **out)
{
	struct buf b;
	int err;

	buf_init(&b);
	err = pprof_acc__write(acc, &b, time_ns, duration_ns);
	if (!err) {
		*out = reply__new(b.data, b.len);
		err = *out ? 0 : -ENOMEM;
	}
	buf_free(&b);
	return err;
}

/* To the nearest bucket: a window of N seconds is N buckets of a second, give or take the clock. */
static bool complete(const struct windows *w, const struct window *win)
{
	return win->got_ns + w->o.bucket_ns / 2 >= win->seconds * 1000000000ULL;
}

static void add_to(struct windows *w, struct window *win, const struct profile *p, uint64_t span_ns)
{
	struct hits_filter any = { .pid = -1 };

	if (win->done || win->starts_at > w->buckets)
		return;
	win->err = pprof_acc__add(win->acc, p, &any);
	win->got_ns += span_ns;
	if (!win->err && !complete(w, win))
		return;
	if (!win->err)
		win->err = encode(win->acc, win->start_wall_ns, win->got_ns, &win->reply);
	pprof_acc__free(win->acc);
	win->acc = NULL;
	win->done = true;
	w->nopen--;
}

int windows__add_bucket(struct windows *w, const struct profile *p, uint64_t span_ns,
			uint64_t end_wall_ns)
{
	struct hits_filter any = { .pid = -1 };
	struct window *win;
	int err = 0;

	pthread_mutex_lock(&w->lock);
	for (win = w->list; win; win = win->next)
		add_to(w, win, p, span_ns);
	if (w->o.has_mutex)
		err = pprof_acc__add(w->cum, p, &any);
	w->cum_ns += span_ns;
	w->buckets++;
	w->last_end_wall_ns = end_wall_ns;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	return err;
}

void windows__stop(struct windows *w)
{
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
}

/* The window that the next bucket begins, of this kind and length: shared, or new. */
static struct window *window_for(struct windows *w, enum window_kind kind, uint64_t seconds, int *err)
{
	struct window *win;

	for (win = w->list; win; win = win->next)
		if (win->kind == kind && win->seconds == seconds && win->starts_at == w->buckets && !win->done)
			return win;
	if (w->nopen >= w->o.max_windows) {
		*err = -EBUSY;
		return NULL;
	}
	win = calloc(1, sizeof(*win));
	if (!win || pprof_acc__new(&win->acc, kind == WINDOW_MUTEX, w->o.max_samples)) {
		free(win);
		*err = -ENOMEM;
		return NULL;
	}
	win->kind = kind;
	win->seconds = seconds;
	win->starts_at = w->buckets;
	win->start_wall_ns = w->last_end_wall_ns;
	win->next = w->list;
	w->list = win;
	w->nopen++;
	return win;
}

static void unlink_window(struct windows *w, struct window *win)
{
	struct window **pp;

	for (pp = &w->list; *pp; pp = &(*pp)->next)
		if (*pp == win) {
			*pp = win->next;
			break;
		}
	if (!win->done)
		w->nopen--;
	window_free(win);
}

static bool fed(const struct windows *w, enum window_kind kind)
{
	return kind == WINDOW_CPU ? w->o.has_cpu : w->o.has_mutex;
}

int windows__wait(struct windows *w, enum window_kind kind, uint64_t seconds, struct reply **reply)
{
	struct window *win;
	int err = 0;

	*reply = NULL;
	if (!fed(w, kind))
		return -ENODATA;
	pthread_mutex_lock(&w->lock);
	win = w->stopping ? NULL : window_for(w, kind, seconds, &err);
	if (w->stopping)
		err = -ESHUTDOWN;
	if (win) {
		win->waiters++;
		while (!win->done && !w->stopping)
			pthread_cond_wait(&w->changed, &w->lock);
		err = !win->done ? -ESHUTDOWN : win->err;
		if (!err) {
			reply__get(win->reply);
			*reply = win->reply;
		}
		/* The last one out frees it; an abandoned window ends with its last requester. */
		if (--win->waiters == 0)
			unlink_window(w, win);
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

int windows__cumulative(struct windows *w, struct reply **reply)
{
	int err = 0;

	*reply = NULL;
	if (!w->o.has_mutex)
		return -ENODATA;
	pthread_mutex_lock(&w->lock);
	if (!w->cum_reply || w->cum_at != w->buckets) {
		reply__put(w->cum_reply);
		w->cum_reply = NULL;
		err = encode(w->cum, w->cum_start_wall_ns, w->cum_ns, &w->cum_reply);
		w->cum_at = w->buckets;
	}
	if (!err) {
		reply__get(w->cum_reply);
		*reply = w->cum_reply;
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}
