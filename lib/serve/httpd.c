// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat serve's HTTP face (lib/serve/httpd.h), on Debian's
 * libmicrohttpd: a maintained server does the parsing, the limits and the
 * connections; this file routes four paths and answers as Go's pprof
 * handlers do.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include "base/clock.h"
#include "base/log.h"
#include "serve/httpd.h"

#define STACK_BYTES	(256 * 1024)	/* a connection's thread only copies a reply */
#define DEFAULT_SECONDS	30		/* as Go's /debug/pprof/profile */
#define MAX_SYMBOL_BODY	(64 * 1024)	/* a pprof symbol query: addresses joined by '+' */

/* A POST to /debug/pprof/symbol, read before it is answered (HTTP/1.1 wants the body read). */
struct symbol_query {
	size_t got;
};

/* A TCP connection, for the reaper: its socket and when its time is up. */
struct conn {
	int fd;
	uint64_t deadline_ns;
	bool reaped;
	struct conn *prev, *next;
};

struct httpd {
	struct httpd_opts o;
	struct MHD_Daemon *d;
	pthread_mutex_t lock;	/* conns */
	struct conn *conns;
	atomic_ulong requests;
	atomic_ulong rejected;
};

/* --- the address ------------------------------------------------------------------ */

static int parse_int(const char *s, int64_t *out);

static int parse_port(const char *s, unsigned int *port)
{
	int64_t v;

	if (!isdigit((unsigned char)*s) || parse_int(s, &v) || v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

static bool is_loopback(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

static int put_addr(struct httpd_opts *o, const char *host, unsigned int port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&o->addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&o->addr;

	memset(&o->addr, 0, sizeof(o->addr));
	if (!*host) {
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_ANY);
	} else if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
	} else {
		return -EINVAL;
	}
	if (o->addr.ss_family == AF_INET) {
		in->sin_port = htons(port);
		o->addr_len = sizeof(*in);
	} else {
		in6->sin6_port = htons(port);
		o->addr_len = sizeof(*in6);
	}
	return 0;
}

int httpd_parse_listen(const char *s, struct httpd_opts *o, bool *loopback, char *why, size_t len)
{
	const char *colon = strrchr(s, ':');
	char host[64];
	size_t n;
	unsigned int port;

	if (!colon || parse_port(colon + 1, &port)) {
		snprintf(why, len, "'%s' is not HOST:PORT (e.g. 127.0.0.1:9747, [::1]:9747, :9747)", s);
		return -EINVAL;
	}
	n = colon - s;
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (n >= sizeof(host) || (snprintf(host, sizeof(host), "%.*s", (int)n, s), put_addr(o, host, port))) {
		snprintf(why, len, "'%.*s' is not a numeric IPv4 or IPv6 address", (int)n, s);
		return -EINVAL;
	}
	*loopback = is_loopback(&o->addr);
	return 0;
}

/* --- connections and their time ------------------------------------------------------ */

static uint64_t deadline_after(uint64_t secs)
{
	return now_ns() + secs * 1000000000ULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct httpd *h = cls;
	struct conn *k = *socket_ctx;
	const union MHD_ConnectionInfo *ci;

	pthread_mutex_lock(&h->lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED && (k = calloc(1, sizeof(*k)))) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k->fd = ci ? ci->connect_fd : -1;
		k->deadline_ns = deadline_after(h->o.request_timeout_s);
		k->next = h->conns;
		if (h->conns)
			h->conns->prev = k;
		h->conns = k;
		*socket_ctx = k;
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && k) {
		/* Before libmicrohttpd closes the socket: the reaper never shuts down another's. */
		if (k->prev)
			k->prev->next = k->next;
		else
			h->conns = k->next;
		if (k->next)
			k->next->prev = k->prev;
		free(k);
		*socket_ctx = NULL;
	}
	pthread_mutex_unlock(&h->lock);
}

/* A request began: the connection has this long, its window included. */
static void allow(struct httpd *h, struct MHD_Connection *c, uint64_t window_s)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = ci ? ci->socket_context : NULL;

	if (!k)
		return;
	pthread_mutex_lock(&h->lock);
	k->deadline_ns = deadline_after(h->o.request_timeout_s + window_s);
	pthread_mutex_unlock(&h->lock);
}

void httpd__reap(struct httpd *h)
{
	uint64_t now = now_ns();
	struct conn *k;

	pthread_mutex_lock(&h->lock);
	for (k = h->conns; k; k = k->next)
		if (!k->reaped && k->fd >= 0 && now > k->deadline_ns) {
			shutdown(k->fd, SHUT_RDWR);	/* its thread sees the end and closes it */
			k->reaped = true;
		}
	pthread_mutex_unlock(&h->lock);
}

/* --- answers ------------------------------------------------------------------------- */

static void put_reply(void *cls)
{
	reply__put(cls);
}

static enum MHD_Result answer(struct httpd *h, struct MHD_Connection *c, unsigned int status,
			      struct MHD_Response *resp)
{
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	atomic_fetch_add(&h->requests, 1);
	if (status >= 400)
		atomic_fetch_add(&h->rejected, 1);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* The reply's bytes as the body, the reference handed to libmicrohttpd. */
static struct MHD_Response *reply_response(struct reply *r, const char *type)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback_cls(r->len, r->data,
										     put_reply, r);

	if (!resp) {
		reply__put(r);
		return NULL;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return resp;
}

static enum MHD_Result text(struct httpd *h, struct MHD_Connection *c, unsigned int status,
			    const char *msg, bool pprof)
{
	struct MHD_Response *resp;
	char body[256];

	snprintf(body, sizeof(body), "%s\n", msg);
	resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (pprof) {	/* Go's serveError: pprof tells its own errors by this header */
		MHD_add_response_header(resp, "X-Go-Pprof", "1");
		MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	}
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	return answer(h, c, status, resp);
}

static enum MHD_Result serve_metrics(struct httpd *h, struct MHD_Connection *c)
{
	struct reply *r = h->o.metrics(h->o.metrics_ctx);

	if (!r)
		return text(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no metrics yet", false);
	return answer(h, c, MHD_HTTP_OK, reply_response(r, "text/plain; version=0.0.4; charset=utf-8"));
}

static enum MHD_Result profile_reply(struct httpd *h, struct MHD_Connection *c, struct reply *r,
				     const char *filename)
{
	struct MHD_Response *resp = reply_response(r, "application/octet-stream");
	char disp[64];

	if (resp) {
		snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", filename);
		MHD_add_response_header(resp, "Content-Disposition", disp);
		MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	}
	return answer(h, c, MHD_HTTP_OK, resp);
}

static enum MHD_Result window_error(struct httpd *h, struct MHD_Connection *c, int err,
				    enum window_kind kind)
{
	char msg[160];

	switch (err) {
	case -EBUSY:
		return text(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "too many profiles in progress; try again", true);
	case -ESHUTDOWN:
		return text(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "lockstat serve is stopping", true);
	case -ENODATA:
		snprintf(msg, sizeof(msg), "Could not enable %s profiling: lockstat serve does not record the %s family",
			 kind == WINDOW_CPU ? "CPU" : "mutex", kind == WINDOW_CPU ? "sample" : "locks");
		return text(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, msg, true);
	default:
		snprintf(msg, sizeof(msg), "failed to collect profile: %s", strerror(-err));
		return text(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, msg, true);
	}
}

static enum MHD_Result serve_window(struct httpd *h, struct MHD_Connection *c, enum window_kind kind,
				    int64_t secs, const char *filename)
{
	struct reply *r;
	int err;

	allow(h, c, secs);
	err = windows__wait(h->o.windows, kind, secs, &r);
	if (err)
		return window_error(h, c, err, kind);
	return profile_reply(h, c, r, filename);
}

/* --- parameters, as Go's strconv reads them ----------------------------------------- */

/* strconv.ParseInt(s, 10, 64): an optional sign, digits, nothing else. */
static int parse_int(const char *s, int64_t *out)
{
	const char *d = s + (*s == '+' || *s == '-');
	char *end;
	long long v;

	if (!isdigit((unsigned char)*d))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* strconv.Atoi with its error ignored, as Go's handler reads debug: not a number is 0. */
static int64_t atoi_or_zero(const char *s)
{
	int64_t v;

	return s && !parse_int(s, &v) ? v : 0;
}

static const char *arg(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

#define BAD_SECONDS	"invalid value for \"seconds\" - must be a positive integer"

static enum MHD_Result too_long(struct httpd *h, struct MHD_Connection *c)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "profile duration exceeds lockstat's limit of %d seconds", HTTPD_MAX_SECONDS);
	return text(h, c, MHD_HTTP_BAD_REQUEST, msg, true);
}

/* Go: seconds absent, zero or negative is 30; lockstat: not a number is an error. */
static enum MHD_Result serve_profile(struct httpd *h, struct MHD_Connection *c)
{
	const char *s = arg(c, "seconds");
	int64_t secs = DEFAULT_SECONDS;

	if (s && *s && parse_int(s, &secs))
		return text(h, c, MHD_HTTP_BAD_REQUEST, BAD_SECONDS, true);
	if (secs <= 0)
		secs = DEFAULT_SECONDS;
	if (secs > HTTPD_MAX_SECONDS)
		return too_long(h, c);
	return serve_window(h, c, WINDOW_CPU, secs, "profile");
}

static enum MHD_Result serve_mutex(struct httpd *h, struct MHD_Connection *c)
{
	const char *s = arg(c, "seconds");
	int64_t secs, debug = atoi_or_zero(arg(c, "debug"));
	struct reply *r;
	int err;

	if (s && *s) {	/* a delta over the next seconds */
		if (parse_int(s, &secs) || secs <= 0)
			return text(h, c, MHD_HTTP_BAD_REQUEST, BAD_SECONDS, true);
		if (secs > HTTPD_MAX_SECONDS)
			return too_long(h, c);
		if (debug)
			return text(h, c, MHD_HTTP_BAD_REQUEST, "seconds and debug params are incompatible", true);
		return serve_window(h, c, WINDOW_MUTEX, secs, "mutex-delta");
	}
	if (debug)
		return text(h, c, MHD_HTTP_BAD_REQUEST,
			    "lockstat serves the mutex profile as profile.proto only (debug=0)", true);
	err = windows__cumulative(h->o.windows, &r);
	if (err)
		return window_error(h, c, err, WINDOW_MUTEX);
	return profile_reply(h, c, r, "mutex");
}

/*
 * pprof asks here for the names of addresses in mappings without function
 * names (a stripped binary). Go answers with the functions of its own
 * binary; lockstat's user addresses belong to many processes, which the
 * query does not say, and its kernel addresses are named already: the
 * answer names none, and pprof keeps the addresses (or symbolizes them
 * itself, from the binaries or debuginfod).
 */
static enum MHD_Result serve_symbol(struct httpd *h, struct MHD_Connection *c, struct symbol_query *q)
{
	if (q && q->got > MAX_SYMBOL_BODY)
		return text(h, c, MHD_HTTP_CONTENT_TOO_LARGE, "symbol query too large", true);
	return text(h, c, MHD_HTTP_OK, "num_symbols: 1", false);
}

/* The body of a symbol query, counted and dropped; the answer once it is all in. */
static enum MHD_Result symbol_post(struct httpd *h, struct MHD_Connection *c, size_t *upload_size, void **req)
{
	struct symbol_query *q = *req;

	if (!q) {
		*req = q = calloc(1, sizeof(*q));
		return q ? MHD_YES : MHD_NO;
	}
	if (*upload_size) {
		q->got += *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	return serve_symbol(h, c, q);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req, enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	free(*req);
	*req = NULL;
}

static bool has_body(struct MHD_Connection *c)
{
	const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	return (len && strcmp(len, "0")) ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/*
 * Called once the headers are in: every request is answered there and
 * then, but for a symbol query's POST, whose body is read first.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **req)
{
	struct httpd *h = cls;

	(void)version;
	(void)upload;
	if (!strcmp(url, "/debug/pprof/symbol") && !strcmp(method, MHD_HTTP_METHOD_POST)) {
		if (!*req)
			allow(h, c, 0);
		return symbol_post(h, c, upload_size, req);
	}
	allow(h, c, 0);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD", false);
	if (has_body(c))
		return text(h, c, MHD_HTTP_CONTENT_TOO_LARGE, "a request has no body here", false);
	if (!strcmp(url, "/metrics"))
		return serve_metrics(h, c);
	if (!strcmp(url, "/debug/pprof/profile"))
		return serve_profile(h, c);
	if (!strcmp(url, "/debug/pprof/mutex"))
		return serve_mutex(h, c);
	if (!strcmp(url, "/debug/pprof/symbol"))
		return serve_symbol(h, c, NULL);
	if (!strncmp(url, "/debug/pprof/", 13))
		return text(h, c, MHD_HTTP_NOT_FOUND, "Unknown profile", true);
	return text(h, c, MHD_HTTP_NOT_FOUND, "404 page not found", false);
}

/* --- the server ------------------------------------------------------------------------ */

static void on_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[n - 1] = '\0';
	pr_debug("http: %s\n", line);
}

int httpd__start(struct httpd **hp, const struct httpd_opts *o, char *why, size_t len)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_POLL | MHD_USE_ERROR_LOG;
	struct httpd *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->o = *o;
	pthread_mutex_init(&h->lock, NULL);
	if (o->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&h->o.addr,
				MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
				MHD_OPTION_CONNECTION_TIMEOUT, o->idle_timeout_s,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->max_header_bytes,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
				MHD_OPTION_THREAD_STACK_SIZE, (size_t)STACK_BYTES,
				MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL,
				MHD_OPTION_END);
	if (!h->d) {
		int err = errno ? -errno : -EADDRNOTAVAIL;

		snprintf(why, len, "%s", strerror(-err));
		pthread_mutex_destroy(&h->lock);
		free(h);
		return err;
	}
	*hp = h;
	return 0;
}

unsigned int httpd__port(const struct httpd *h)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);

	return di ? di->port : 0;
}

const char *httpd__url(const struct httpd *h, char *buf, size_t len)
{
	const struct sockaddr_storage *a = &h->o.addr;
	char host[INET6_ADDRSTRLEN] = "?";
	bool v6 = a->ss_family == AF_INET6;

	inet_ntop(a->ss_family, v6 ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr :
				     (const void *)&((const struct sockaddr_in *)a)->sin_addr, host, sizeof(host));
	snprintf(buf, len, "http://%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", httpd__port(h));
	return buf;
}

void httpd__stop(struct httpd *h)
{
	if (!h)
		return;
	windows__stop(h->o.windows);	/* the threads waiting for a window return first */
	MHD_stop_daemon(h->d);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

uint64_t httpd__requests(const struct httpd *h)
{
	return h ? atomic_load(&h->requests) : 0;
}

uint64_t httpd__rejected(const struct httpd *h)
{
	return h ? atomic_load(&h->rejected) : 0;
}
