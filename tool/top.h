/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TOP_H
#define __LOCKSTAT_TOP_H

/*
 * lockstat top: a report over a sliding window of the profile being written.
 *
 *   top-model.c  the profile read back chunk by chunk into two models:
 *                the current interval, and everything since the start
 *                (or the last reset)
 *   top-snap.c   a snapshot: plain structs built from the lock and hit
 *                views of both models, joined by name; what is drawn
 *   top-ui.c     curses drawing of a snapshot      top-keys.c  the keys
 *   top-term.c   the terminal: set up, and restored on every exit path
 *   top-batch.c  text and JSON lines output (--batch, --format json)
 *   top-live.c   the live driver (tool/session.c)  top-replay.c  --replay
 *   top-follow.c --follow: the newest segment of a lockstat serve
 *
 * Only top-live.c sees the collector; the drawing code sees snapshots.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"
#include "format/store.h"
#include "view/view_locks.h"

/* --- the model ------------------------------------------------------------ */

struct top_model {
	struct profile *iv;	/* the current interval */
	struct profile *cum;	/* since the start or the last reset */
	struct store_header hdr;
	bool have_hdr;
	uint8_t *pending;	/* bytes read, not yet a whole chunk */
	size_t npending;
	size_t cap;
	uint64_t file_pos;	/* where the next read starts */
	uint64_t base;		/* file offset of pending[0], for messages */
	struct store_chunk *saved;	/* this interval's counting chunks, copied: a reset feeds them again */
	size_t nsaved;
	size_t saved_cap;
	bool iv_any;		/* a bucket was fed this interval */
	uint64_t iv_t0, iv_t1;	/* its span, from the buckets' t0 and t1 */
	uint64_t cum_t0;	/* start of the cumulative span */
	bool was_reset;
	uint64_t last_t1;	/* end of the last bucket fed */
	uint64_t lost_at_iv;	/* lost events when the interval started */
	uint64_t lost_at_reset;
	bool iv_only;		/* no cumulative model (serve keeps its own totals) */
	/* Called with the bytes read from the file, before they are parsed (serve copies them). */
	void (*tee)(void *ctx, const void *bytes, size_t n);
	void *tee_ctx;
	char err[256];
};

int top_model__init(struct top_model *m);
void top_model__free(struct top_model *m);
/* The header of a whole file (replay) or of what was read. */
int top_model__set_header(struct top_model *m, const struct store_header *hdr);
/* Into both models; 0 or -errno with m->err set. */
int top_model__feed(struct top_model *m, const struct store_chunk *ch);
/*
 * Read what was appended to fd since the last call and feed its whole
 * chunks. truncate: the file is ours alone (a memfd): empty it once read,
 * so that it never holds more than one interval.
 */
int top_model__read_fd(struct top_model *m, int fd, bool truncate);
void top_model__next_interval(struct top_model *m);
/* 'r': the cumulative model starts again with the current interval. */
void top_model__reset(struct top_model *m);
uint64_t top_model__lost(const struct top_model *m);
/* A bucket chunk's span (LOCKSTAT, SAMPLES, TABLE); false for the others. */
bool chunk_span(const struct store_chunk *ch, uint64_t *t0, uint64_t *t1);

/* --- the snapshot --------------------------------------------------------- */

struct top_stat {		/* a lock, caller or total over one span */
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
};

struct top_caller {
	const char *name;
	struct top_stat iv, cum;
};

struct top_stack {		/* of the lock shown in detail */
	const char *caller;
	struct top_stat iv, cum;
	uint32_t nframes;
	const char **frames;
};

struct top_lock {
	const char *name;
	const char *type;
	uint32_t flags;
	struct top_stat iv, cum;
	const char *caller;	/* the caller that waited most, cumulatively */
	struct top_caller *callers;
	size_t ncallers;
	struct top_stack *stacks;
	size_t nstacks;
	bool detailed;		/* the lock of the detail view: stacks filled */
};

struct top_func {
	const char *function;
	const char *module;
	bool kernel;
	uint64_t iv, cum;
};

struct top_trow {
	const char **keys;
	uint64_t *iv, *cum;
	const uint64_t *src;	/* the model's row, while the snapshot is built; then NULL */
};

struct top_table {		/* a counter table of another family (fd, pagecache, ...) */
	const char *name;
	uint32_t nkeys, nvals;
	const char **key_names;
	const char **val_names;
	const uint8_t *val_kinds;
	struct top_trow *rows;
	size_t nrows;
	size_t total_rows;	/* before the cut to TOP_TABLE_ROWS */
};

#define TOP_TABLE_ROWS	100

struct arena_block;

/* What one interval looked like: plain data, nothing points into a model. */
struct top_snap {
	struct arena_block *mem;
	uint64_t elapsed_ns;	/* end of the last bucket, from the start */
	uint64_t iv_ns;		/* this interval's span */
	uint64_t cum_ns;	/* since the start or the last reset */
	unsigned int cpus;
	const char *target;
	const char *command;
	bool per_task;
	bool final;		/* the last one: the session ended */
	bool has_samples;
	/* the figures of the header, filled by the driver */
	double events_per_s;
	double probe_pct;	/* % of one CPU, NAN when not measured */
	double self_pct;	/* lockstat's own CPU, % of one */
	uint64_t lost_iv, lost_cum;
	struct top_stat locks_iv, locks_cum;
	uint64_t samples_iv, samples_cum;
	uint64_t ksamples_iv, ksamples_cum;
	struct top_lock *locks;
	size_t nlocks;
	struct top_func *funcs;
	size_t nfuncs;
	struct top_table *tables;
	size_t ntables;
	struct top_lock *detail;	/* the lock asked about, in locks[], or NULL */
};

/* What to build: the filters (globs; a word without one matches inside) and the lock to detail. */
struct top_query {
	char lock[128];
	char caller[128];
	char comm[128];
	char func[128];
	char key[128];		/* tables: any key column */
	bool tables;		/* build the tables section (shown, or printed) */
	bool detail;
	char detail_name[256];
	uint32_t detail_flags;
};

int top_snap__build(struct top_snap **out, const struct top_model *m, const struct top_query *q);
void top_snap__free(struct top_snap *s);

enum top_lock_key {
	TK_CONT_RATE, TK_WAIT_RATE, TK_AVG, TK_MAX, TK_CUM_CONT, TK_CUM_WAIT, TK_CUM_AVG,
	TK_CUM_MAX, TK_NAME, TK__COUNT,
};
enum top_func_key { TF_RATE, TF_CUM, TF_NAME, TF__COUNT };

void top_snap__sort_locks(struct top_snap *s, enum top_lock_key k);
void top_snap__sort_funcs(struct top_snap *s, enum top_func_key k);
const char *top_lock_key_name(enum top_lock_key k);
const char *top_func_key_name(enum top_func_key k);
int top_sort_parse(const char *s, int *lock_key, int *func_key);

/* Per second over a span; 0 for an empty span. */
double per_s(uint64_t v, uint64_t span_ns);
/* Waited as % of all CPUs' time over the span. */
double wait_pct(uint64_t wait_ns, uint64_t span_ns, unsigned int cpus);
uint64_t stat_avg(const struct top_stat *s);
/* "lock=GLOB caller=GLOB comm=GLOB func=GLOB key=GLOB", a bare word for the view's own name. */
int top_query__parse(struct top_query *q, const char *text, const char *bare_field, char *why, size_t len);
void top_query__describe(const struct top_query *q, char *buf, size_t len);

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
};

/* cmd-top.c: what both drivers share. */
/* Set up: lockstat's own CPU time is counted from here. */
void top__mark(struct top *t);
int top__rebuild(struct top *t);
/* A new interval is in the model: snapshot it and show it. */
int top__interval(struct top *t, double events_per_s, double probe_pct);
/* Act on the UI's requests; set_interval gets the new interval in seconds. */
void top__apply(struct top *t, void (*set_interval)(void *ctx, double secs), void *ctx);
void top__show(struct top *t);
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
