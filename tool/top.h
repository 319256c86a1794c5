/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TOP_H
#define __LOCKSTAT_TOP_H

/*
 * lockstat top: a report over a sliding window of the profile being written.
 *
 *   lib/view/top_model.c  the profile read back chunk by chunk into two
 *                models: the current interval, and everything since the
 *                start (or the last reset)
 *   lib/view/top_snap.c   a snapshot: plain structs built from the lock
 *                and hit views of both models, joined by name; what is drawn
 *   top-run.c    what both drivers share: an interval snapshotted and shown
 *   top-ui.c     curses drawing of a snapshot      top-keys.c  the keys
 *   top-term.c   the terminal: set up, and restored on every exit path
 *   top-batch.c  text and JSON lines output (--batch, --format json)
 *   top-live.c   the live driver (lib/run/)        top-replay.c  --replay
 *   top-follow.c --follow: the newest segment of a lockstat serve
 *
 * Only top-live.c sees the collector; the drawing code sees snapshots.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "view/top_snap.h"

/* --- top itself -------------------------------------------------------------- */

/* Ten refreshes a second is as fast as anyone reads; an hour, as slow. */
#define TOP_INTERVAL_MIN_S	0.1
#define TOP_INTERVAL_MAX_S	3600.0

enum top_out { TOP_CURSES, TOP_TEXT, TOP_JSON };
enum top_view { TV_LOCKS, TV_FUNCS, TV_TABLES, TV__MAIN, TV_DETAIL = TV__MAIN, TV_HELP };

struct top_opts {
	double interval;
	unsigned long iterations;	/* -n: 0 = until the end */
	enum top_out out;
	const char *replay;
	const char *follow;	/* --follow: lockstat serve's segment directory */
	double speed;		/* replay: 1 = as recorded, 0 = as fast as possible */
	unsigned long rows;	/* batch: rows per section */
	int lock_key;
	int func_key;
	const char *output;	/* -o */
	bool events_given;	/* -e: exactly those families */
};

/* The UI's state: keys change it, the drivers act on its requests. */
struct top_ui {
	enum top_view view;
	enum top_view back;	/* where Esc goes from detail and help */
	size_t sel;		/* the selected lock or function */
	char sel_name[256];
	uint32_t sel_flags;
	size_t scroll;		/* detail, help and tables: first line shown */
	bool paused;
	bool prompting;
	char prompt[256];
	size_t prompt_len;
	char message[256];	/* shown in the status line until the next key */
	bool quit;
	bool rebuild;		/* the query changed: build the snapshot again */
	bool reset;
	int interval_step;	/* +1 / -1: longer / shorter */
	bool redraw;
};

struct top {
	struct top_opts o;
	struct top_model model;
	struct top_query q;
	struct top_snap *snap;
	struct top_ui ui;
	unsigned long shown;	/* snapshots drawn or printed */
	bool final;		/* the next snapshot is the last one */
	bool replay_done;
	bool stdout_failed;	/* --batch: nobody reads any more (a closed pipe) */
	/* lockstat's own CPU between two intervals */
	uint64_t self_cpu_ns;
	uint64_t self_wall_ns;
	/* live only: the host's steal over the next interval shown */
	bool steal_known;
	uint64_t steal_iv_ns;
};

/* top-run.c: what both drivers share. */
/* Set up: lockstat's own CPU time is counted from here. */
void top__mark(struct top *t);
int top__rebuild(struct top *t);
/* A new interval is in the model: snapshot it and show it. */
int top__interval(struct top *t, double events_per_s, double probe_pct);
/* Act on the UI's requests; set_interval gets the new interval in seconds. */
void top__apply(struct top *t, void (*set_interval)(void *ctx, double secs), void *ctx);
void top__show(struct top *t);
/* The host's steal over the interval: "10.00 ms (0.50 % of CPU time)". */
const char *top_steal_text(char *buf, size_t len, const struct top_snap *s);
double top__next_interval(double secs, int step);
/* -n refreshes shown, or standard output failed: time to stop. */
bool top__enough(const struct top *t);

struct session;
int top_live(struct top *t, struct session *s);
int top_replay(struct top *t);
int top_follow(struct top *t);

/* top-term.c */
int term__start(void);
void term__end(void);
bool term__active(void);
void term__resize(void);
/*
 * The signals of a view that reads files (--replay, --follow), blocked
 * and read from a signalfd put in *fd (0 or -errno); term__signals()
 * reads them: true when one asks to stop (a SIGWINCH redraws).
 */
int term__signalfd(const struct top *t, int *fd);
bool term__signals(struct top *t, int sigfd);
/* The last line written to stderr while the UI runs, or "". */
const char *term__last_message(void);

/* top-ui.c and top-keys.c */
void top_ui__draw(struct top *t);
void top_ui__key(struct top *t, int key);
/* Read every key waiting on stdin. */
void top_ui__keys(struct top *t);
/* Keep the selection on the same lock or function across snapshots. */
void top_ui__follow(struct top *t);
size_t top_ui__rows(const struct top *t);

/* top-batch.c */
void top_batch__print(struct top *t);

#endif
