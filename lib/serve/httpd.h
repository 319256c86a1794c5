/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_HTTPD_H
#define __LOCKSTAT_HTTPD_H

/*
 * lockstat serve's HTTP face, on libmicrohttpd (a thread per connection,
 * each one waiting for its pprof window without holding up the others):
 *
 *   GET /metrics                        Prometheus text format
 *   GET /debug/pprof/profile?seconds=N  CPU samples of the next N s (default 30)
 *   GET /debug/pprof/mutex?seconds=N    lock waits of the next N s
 *   GET /debug/pprof/mutex              lock waits since serve started
 *   GET, POST /debug/pprof/symbol       pprof's symbol queries (answered: none known)
 *
 * as Go's net/http/pprof answers them (headers, defaults, errors in plain
 * text with X-Go-Pprof: 1). Anything else is 404, a method other than GET
 * or HEAD 405 (POST only for symbol queries), a request with a body 413, a bad parameter 400. Connections
 * are limited in number, in header size (libmicrohttpd's memory limit),
 * in idle time and in total time: one that takes longer than its request
 * needs (a client sending a byte a second) is shut down by httpd__reap().
 * No request names a file.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "serve/windows.h"

#define HTTPD_MAX_SECONDS	300	/* the longest window a request may ask for */

struct httpd_opts {
	struct sockaddr_storage addr;	/* where to listen (httpd_parse_listen) */
	socklen_t addr_len;
	unsigned int max_connections;
	unsigned int idle_timeout_s;	/* between requests, and while one arrives */
	unsigned int request_timeout_s;	/* a whole request, besides its window */
	size_t max_header_bytes;
	struct windows *windows;
	/* The current /metrics page (a reference, put by the server). */
	struct reply *(*metrics)(void *ctx);
	void *metrics_ctx;
};

struct httpd;

/*
 * "127.0.0.1:9747", "[::1]:9747", ":9747" (every address), numeric only:
 * 0, or -EINVAL with why. *loopback: the address is a loopback one.
 */
int httpd_parse_listen(const char *s, struct httpd_opts *o, bool *loopback, char *why, size_t len);
/* Listening when it returns 0; else -errno and why. */
int httpd__start(struct httpd **h, const struct httpd_opts *o, char *why, size_t len);
/* The port listened on (the one chosen, for port 0). */
unsigned int httpd__port(const struct httpd *h);
/* "http://127.0.0.1:9747", "http://[::1]:9747": where it listens, in buf. */
const char *httpd__url(const struct httpd *h, char *buf, size_t len);
/* Shut down the connections that outlived their time; called now and then. */
void httpd__reap(struct httpd *h);
void httpd__stop(struct httpd *h);
uint64_t httpd__requests(const struct httpd *h);
uint64_t httpd__rejected(const struct httpd *h);

#endif
