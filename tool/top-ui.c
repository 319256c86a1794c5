// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The full-screen view: a header, then one of the locks table, the hit
 * list, the other families' tables, the detail of one lock or the help,
 * and a status line. It draws the current snapshot and nothing else.
 *
 * Tables are laid out from a column list, htop style: each column has a
 * priority, and the columns that do not fit the terminal's width are left
 * out, lowest priority first, rather than cut in the middle.
 */
#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "out/output.h"
#include "top.h"

#define MAX_COLS	16
#define CELL		256
#define HEADER_LINES	6	/* title, figures, totals, views, group labels, column names */

struct col {
	const char *head;
	int width;		/* 0: takes what is left, at least min */
	int min;
	int key;		/* the sort key it shows, -1: none */
	int prio;		/* 0 always shown; higher ones go first when narrow */
	bool left;
	int group;		/* 0: none, 1: this interval, 2: cumulative */
};

enum { LC_RATE, LC_WRATE, LC_AVG, LC_MAX, LC_PCT, LC_CONT, LC_WAIT, LC_CAVG, LC_CMAX, LC_CPCT,
       LC_TYPE, LC_NAME, LC_CALLER, LC__N };

static const struct col lock_cols[LC__N] = {
	[LC_RATE] = { "CONT/s", 8, 0, TK_CONT_RATE, 0, false, 1 },
	[LC_WRATE] = { "WAIT/s", 9, 0, TK_WAIT_RATE, 0, false, 1 },
	[LC_AVG] = { "AVG", 9, 0, TK_AVG, 1, false, 1 },
	[LC_MAX] = { "MAX", 9, 0, TK_MAX, 1, false, 1 },
	[LC_PCT] = { "%CPU", 6, 0, -1, 0, false, 1 },
	[LC_CONT] = { "CONT", 10, 0, TK_CUM_CONT, 2, false, 2 },
	[LC_WAIT] = { "WAIT", 9, 0, TK_CUM_WAIT, 2, false, 2 },
	[LC_CAVG] = { "AVG", 9, 0, TK_CUM_AVG, 3, false, 2 },
	[LC_CMAX] = { "MAX", 9, 0, TK_CUM_MAX, 3, false, 2 },
	[LC_CPCT] = { "%CPU", 6, 0, -1, 2, false, 2 },
	[LC_TYPE] = { "TYPE", 10, 0, -1, 1, true, 0 },
	[LC_NAME] = { "LOCK", 0, 24, TK_NAME, 0, true, 0 },
	[LC_CALLER] = { "CALLER", 0, 20, -1, 1, true, 0 },
};

enum { FC_RATE, FC_PCT, FC_TOTAL, FC_TPCT, FC_SPACE, FC_NAME, FC_MODULE, FC__N };

static const struct col func_cols[FC__N] = {
	[FC_RATE] = { "HITS/s", 8, 0, TF_RATE, 0, false, 1 },
	[FC_PCT] = { "%", 6, 0, -1, 0, false, 1 },
	[FC_TOTAL] = { "HITS", 10, 0, TF_CUM, 1, false, 2 },
	[FC_TPCT] = { "%", 6, 0, -1, 1, false, 2 },
	[FC_SPACE] = { "", 1, 0, -1, 0, true, 0 },
	[FC_NAME] = { "FUNCTION", 0, 30, TF_NAME, 0, true, 0 },
	[FC_MODULE] = { "MODULE", 0, 16, -1, 1, true, 0 },
};

struct layout {
	const struct col *cols;
	int n;
	int idx[MAX_COLS];	/* visible columns, in order */
	int x[MAX_COLS];
	int width[MAX_COLS];
};

/* --- numbers ------------------------------------------------------------- */

/* Four or five digits: 0.5, 12, 99999, 1765k, 2300M. */
static void fmt_rate(char *b, size_t n, double v)
{
	if (v < 9.95 && fabs(v - round(v)) >= 0.05)
		snprintf(b, n, "%.1f", v);
	else if (v < 99999.5)
		snprintf(b, n, "%.0f", v);
	else if (v < 9999.5e3)
		snprintf(b, n, "%.0fk", v / 1e3);
	else if (v < 9999.5e6)
		snprintf(b, n, "%.0fM", v / 1e6);
	else
		snprintf(b, n, "%.0fG", v / 1e9);
}

static void fmt_count(char *b, size_t n, uint64_t v)
{
	if (v < 10000000000ULL)
		snprintf(b, n, "%llu", (unsigned long long)v);
	else
		fmt_rate(b, n, v);
}

static void fmt_pct(char *b, size_t n, double v)
{
	snprintf(b, n, isnan(v) ? "-" : v < 9.995 ? "%.2f" : "%.1f", v);
}

static void fmt_secs(char *b, size_t n, uint64_t ns)
{
	unsigned long long s = ns / 1000000000ULL;

	snprintf(b, n, "%02llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
}

/* --- layout -------------------------------------------------------------- */

static int layout_need(const struct col *cols, int n, int prio)
{
	int i, need = 0;

	for (i = 0; i < n; i++)
		if (cols[i].prio <= prio)
			need += (cols[i].width ? cols[i].width : cols[i].min) + 1;
	return need;
}

/* The most columns that fit; the flexible ones share what is left. */
static void layout_build(struct layout *L, const struct col *cols, int n, int screen_w)
{
	int prio = 3, i, x = 0, fixed = 0, flex = 0, left;

	while (prio > 0 && layout_need(cols, n, prio) > screen_w)
		prio--;
	L->cols = cols;
	L->n = 0;
	for (i = 0; i < n; i++) {
		if (cols[i].prio > prio)
			continue;
		L->idx[L->n++] = i;
		fixed += cols[i].width ? cols[i].width + 1 : 0;
		flex += !cols[i].width;
	}
	left = screen_w - fixed;
	for (i = 0; i < L->n; i++) {
		const struct col *c = &cols[L->idx[i]];
		int w = c->width;

		if (!w) {
			/* The first flexible column (the name) gets 45 % of what is left, or all. */
			w = flex > 1 ? left * 45 / 100 : left - 1;
			if (w < c->min)
				w = c->min;
			left -= w + 1;
			flex--;
		}
		L->x[i] = x;
		L->width[i] = w;
		x += w + 1;
	}
}

static void layout_line(const struct layout *L, char cells[][CELL], char *out, size_t len)
{
	size_t used = 0;
	int i;

	for (i = 0; i < L->n && used < len; i++) {
		const struct col *c = &L->cols[L->idx[i]];
		const char *s = cells[L->idx[i]];

		used += snprintf(out + used, len - used, c->left ? "%-*.*s " : "%*.*s ", L->width[i],
				 L->width[i], s);
	}
	while (used > 0 && out[used - 1] == ' ')
		out[--used] = '\0';
}

static void put_line(int y, int attr, const char *s)
{
	if (y < 0 || y >= LINES)
		return;
	attrset(attr);
	move(y, 0);
	clrtoeol();
	if (attr != A_NORMAL)	/* a bar as wide as the screen */
		mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, s, COLS);
	attrset(A_NORMAL);
}

static int title_attr(void)
{
	return has_colors() ? COLOR_PAIR(1) : A_REVERSE;
}

static void header_row(int y, const struct layout *L, int sort_key)
{
	char cells[MAX_COLS][CELL], line[1024];
	int i;

	for (i = 0; i < L->n; i++)
		snprintf(cells[L->idx[i]], CELL, "%s", L->cols[L->idx[i]].head);
	layout_line(L, cells, line, sizeof(line));
	attrset(title_attr());
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, line, COLS);
	for (i = 0; i < L->n; i++) {
		const struct col *c = &L->cols[L->idx[i]];
		int off = c->left ? 0 : L->width[i] - (int)strlen(c->head);

		if (c->key == sort_key && c->head[0] && L->x[i] + off < COLS) {
			attron(A_BOLD | A_UNDERLINE);
			mvaddnstr(y, L->x[i] + off, c->head, COLS - L->x[i] - off);
			attroff(A_BOLD | A_UNDERLINE);
		}
	}
	attrset(A_NORMAL);
}

/* "---- interval 1.00 s ----" over the interval columns, and so on; shorter when narrow. */
static void group_labels(int y, const struct layout *L, const char *g1, const char *g2)
{
	int g, i;

	move(y, 0);
	clrtoeol();
	for (g = 1; g <= 2; g++) {
		int x0 = -1, x1 = -1, len;
		const char *label = g == 1 ? g1 : g2, *brief = g == 1 ? "interval" : "in all";

		for (i = 0; i < L->n; i++) {
			if (L->cols[L->idx[i]].group != g)
				continue;
			if (x0 < 0)
				x0 = L->x[i];
			x1 = L->x[i] + L->width[i];
		}
		if (x0 < 0 || x0 >= COLS)
			continue;
		if (x1 > COLS)
			x1 = COLS;
		mvhline(y, x0, '-', x1 - x0);
		if ((int)strlen(label) + 2 > x1 - x0)
			label = brief;
		len = strlen(label);
		if (len + 2 <= x1 - x0)
			mvprintw(y, x0 + (x1 - x0 - len) / 2 - 1, " %s ", label);
	}
}

/* --- the header ------------------------------------------------------------ */

static const char *state_text(const struct top *t, char *buf, size_t len)
{
	if (t->ui.paused)
		return "PAUSED";
	if (t->snap && t->snap->final)
		return t->o.replay ? "REPLAY FINISHED" : "FINISHED";
	if (t->o.follow)
		snprintf(buf, len, "FOLLOW");
	else if (t->o.replay && t->o.speed > 0)
		snprintf(buf, len, "REPLAY x%g", t->o.speed);
	else if (t->o.replay)
		snprintf(buf, len, "REPLAY");
	else
		snprintf(buf, len, "LIVE");
	return buf;
}

static void draw_title(const struct top *t, const struct top_snap *s)
{
	char up[32], state[32], line[1024], shown[1024];

	fmt_secs(up, sizeof(up), s->elapsed_ns);
	snprintf(line, sizeof(line), " lockstat top  %s  up %s  %u CPUs  every %g s  %s%s%s",
		 state_text(t, state, sizeof(state)), up, s->cpus, t->o.interval, s->target[0] ? s->target : "no data yet",
		 s->command[0] ? ": " : "", s->command);
	/* The workload's argv, escaped: a newline or an escape sequence would break the screen. */
	put_line(0, title_attr() | A_BOLD, fmt_printable(shown, sizeof(shown), line));
}

/* "1.23 % of a CPU", or "-" when not measured (replay, no kernel.bpf_stats). */
static void fmt_cpu(char *b, size_t n, double pct)
{
	char num[32];

	fmt_pct(num, sizeof(num), pct);
	snprintf(b, n, isnan(pct) ? "-" : "%s %% of a CPU", num);
}

static void draw_figures(const struct top_snap *s)
{
	char ev[32], lost[32], lost_total[32], cost[48], self[48], steal[64] = "", line[512];

	fmt_rate(ev, sizeof(ev), s->events_per_s);
	fmt_rate(lost, sizeof(lost), per_s(s->lost_iv, s->iv_ns));
	fmt_count(lost_total, sizeof(lost_total), s->lost_cum);
	fmt_cpu(cost, sizeof(cost), s->probe_pct);
	fmt_cpu(self, sizeof(self), s->self_pct);
	if (s->steal_known)
		top_steal_text(steal, sizeof(steal), s);
	snprintf(line, sizeof(line), " events %s/s   lost %s/s (%s in all)   probe cost %s   lockstat itself %s%s%s",
		 ev, lost, lost_total, cost, self, s->steal_known ? "   steal " : "", steal);
	put_line(1, (s->lost_iv ? A_BOLD : A_NORMAL), line);
}

static void draw_totals(const struct top_snap *s)
{
	char rate[32], wait[32], pct[32], hits[32], line[512];
	size_t used;

	fmt_rate(rate, sizeof(rate), per_s(s->locks_iv.count, s->iv_ns));
	fmt_ns(wait, sizeof(wait), per_s(s->locks_iv.total_ns, s->iv_ns));
	fmt_pct(pct, sizeof(pct), wait_pct(s->locks_iv.total_ns, s->iv_ns, s->cpus));
	used = snprintf(line, sizeof(line), " locks %s contended/s, %s wait/s, %s %% of CPU time waiting",
			rate, wait, pct);
	if (s->has_samples) {
		fmt_rate(hits, sizeof(hits), per_s(s->samples_iv, s->iv_ns));
		snprintf(line + used, sizeof(line) - used, "   samples %s/s, %.0f %% kernel", hits,
			 s->samples_iv ? 100.0 * s->ksamples_iv / s->samples_iv : 0.0);
	}
	put_line(2, A_NORMAL, line);
}

static const char *const view_names[TV__MAIN] = { "locks", "functions", "tables" };

static void draw_views(const struct top *t)
{
	enum top_view v = t->ui.view >= TV__MAIN ? t->ui.back : t->ui.view;
	char filter[512], sort[64];
	int i, x = 1;

	move(3, 0);
	clrtoeol();
	for (i = 0; i < TV__MAIN; i++) {
		bool on = (int)v == i;

		if (on)
			attron(A_REVERSE | A_BOLD);
		mvprintw(3, x, " %d %s ", i + 1, view_names[i]);
		if (on)
			attroff(A_REVERSE | A_BOLD);
		x += strlen(view_names[i]) + 5;
	}
	top_query__describe(&t->q, filter, sizeof(filter));
	snprintf(sort, sizeof(sort), "%s", v == TV_FUNCS ? top_func_key_name(t->o.func_key) :
		 top_lock_key_name(t->o.lock_key));
	mvprintw(3, x + 1, "sort: %s   filter: %s", sort, filter[0] ? filter : "none");
}

/* --- locks ---------------------------------------------------------------------- */

static void lock_cells(const struct top_snap *s, char cells[][CELL], const struct top_stat *iv,
		       const struct top_stat *cum, const char *type, const char *name, const char *caller)
{
	fmt_rate(cells[LC_RATE], CELL, per_s(iv->count, s->iv_ns));
	fmt_ns(cells[LC_WRATE], CELL, per_s(iv->total_ns, s->iv_ns));
	fmt_ns(cells[LC_AVG], CELL, stat_avg(iv));
	fmt_ns(cells[LC_MAX], CELL, iv->max_ns);
	fmt_pct(cells[LC_PCT], CELL, wait_pct(iv->total_ns, s->iv_ns, s->cpus));
	fmt_count(cells[LC_CONT], CELL, cum->count);
	fmt_ns(cells[LC_WAIT], CELL, cum->total_ns);
	fmt_ns(cells[LC_CAVG], CELL, stat_avg(cum));
	fmt_ns(cells[LC_CMAX], CELL, cum->max_ns);
	fmt_pct(cells[LC_CPCT], CELL, wait_pct(cum->total_ns, s->cum_ns, s->cpus));
	snprintf(cells[LC_TYPE], CELL, "%s", type);
	snprintf(cells[LC_NAME], CELL, "%s", name);
	snprintf(cells[LC_CALLER], CELL, "%s", caller ? caller : "");
	if (!iv->count) {	/* quiet this interval: dots, not a wall of zeros */
		strcpy(cells[LC_RATE], ".");
		strcpy(cells[LC_WRATE], ".");
		strcpy(cells[LC_AVG], ".");
		strcpy(cells[LC_MAX], ".");
		strcpy(cells[LC_PCT], ".");
	}
}

static void list_window(struct top *t, size_t n, size_t height)
{
	if (t->ui.sel >= n)
		t->ui.sel = n ? n - 1 : 0;
	if (t->ui.sel < t->ui.scroll)
		t->ui.scroll = t->ui.sel;
	if (height && t->ui.sel >= t->ui.scroll + height)
		t->ui.scroll = t->ui.sel - height + 1;
	if (t->ui.scroll + height > n)
		t->ui.scroll = n > height ? n - height : 0;
}

size_t top_ui__rows(const struct top *t)
{
	(void)t;
	return LINES > HEADER_LINES + 1 ? LINES - HEADER_LINES - 1 : 0;
}

static void interval_labels(const struct top *t, char *g1, char *g2, size_t len)
{
	char up[32], iv[32];

	fmt_secs(up, sizeof(up), t->snap->cum_ns);
	fmt_ns(iv, sizeof(iv), t->snap->iv_ns);
	snprintf(g1, len, "interval %s", iv);
	snprintf(g2, len, "%s %s", t->model.was_reset ? "since reset" : "since start", up);
}

static void draw_locks(struct top *t)
{
	const struct top_snap *s = t->snap;
	char cells[MAX_COLS][CELL], line[1024], g1[64], g2[64];
	size_t i, height = top_ui__rows(t);
	struct layout L;

	layout_build(&L, lock_cols, LC__N, COLS);
	interval_labels(t, g1, g2, sizeof(g1));
	group_labels(HEADER_LINES - 2, &L, g1, g2);
	header_row(HEADER_LINES - 1, &L, t->o.lock_key);
	list_window(t, s->nlocks, height);
	for (i = t->ui.scroll; i < s->nlocks && i < t->ui.scroll + height; i++) {
		const struct top_lock *l = &s->locks[i];

		lock_cells(s, cells, &l->iv, &l->cum, l->type, l->name, l->caller);
		layout_line(&L, cells, line, sizeof(line));
		put_line(HEADER_LINES + i - t->ui.scroll, i == t->ui.sel ? A_REVERSE : A_NORMAL, line);
	}
	if (!s->nlocks)
		put_line(HEADER_LINES + 1, A_NORMAL, t->q.lock[0] || t->q.caller[0] || t->q.comm[0] ?
			 "   no lock waits match the filter (/ and an empty line clear it)" :
			 "   no lock waits yet");
}

/* --- functions ------------------------------------------------------------------- */

static void draw_funcs(struct top *t)
{
	const struct top_snap *s = t->snap;
	char cells[MAX_COLS][CELL], line[1024], g1[64], g2[64];
	size_t i, height = top_ui__rows(t);
	struct layout L;

	layout_build(&L, func_cols, FC__N, COLS);
	interval_labels(t, g1, g2, sizeof(g1));
	group_labels(HEADER_LINES - 2, &L, g1, g2);
	header_row(HEADER_LINES - 1, &L, t->o.func_key);
	list_window(t, s->nfuncs, height);
	for (i = t->ui.scroll; i < s->nfuncs && i < t->ui.scroll + height; i++) {
		const struct top_func *f = &s->funcs[i];

		fmt_rate(cells[FC_RATE], CELL, per_s(f->iv, s->iv_ns));
		fmt_pct(cells[FC_PCT], CELL, s->samples_iv ? 100.0 * f->iv / s->samples_iv : 0);
		fmt_count(cells[FC_TOTAL], CELL, f->cum);
		fmt_pct(cells[FC_TPCT], CELL, s->samples_cum ? 100.0 * f->cum / s->samples_cum : 0);
		snprintf(cells[FC_SPACE], CELL, "%s", f->kernel ? "k" : "u");
		snprintf(cells[FC_NAME], CELL, "%s", f->function);
		snprintf(cells[FC_MODULE], CELL, "%s", f->module);
		layout_line(&L, cells, line, sizeof(line));
		put_line(HEADER_LINES + i - t->ui.scroll, i == t->ui.sel ? A_REVERSE : A_NORMAL, line);
	}
	if (!s->nfuncs) {
		snprintf(line, sizeof(line), "   the sampler was not recorded (-e %s)", family_name(FAMILY_SAMPLE));
		put_line(HEADER_LINES + 1, A_NORMAL, s->has_samples ? "   no samples yet" : line);
	}
}

/* --- pages: detail, tables, help --------------------------------------------------- */

struct pager {
	int y0;
	size_t height;
	size_t line;
	size_t scroll;
};

static void pager_put(struct pager *p, int attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (p->line >= p->scroll && p->line < p->scroll + p->height) {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		put_line(p->y0 + (p->line - p->scroll), attr, buf);
	}
	p->line++;
}

static void pager_begin(struct pager *p, struct top *t, int y0)
{
	*p = (struct pager){ .y0 = y0, .height = LINES > y0 + 1 ? LINES - y0 - 1 : 0, .scroll = t->ui.scroll };
}

static void pager_end(struct pager *p, struct top *t)
{
	if (p->line <= p->height)
		t->ui.scroll = 0;
	else if (t->ui.scroll > p->line - p->height)
		t->ui.scroll = p->line - p->height;
}

static int section_attr(void)
{
	return A_BOLD | (has_colors() ? COLOR_PAIR(3) : 0);
}

static void detail_stacks(struct pager *p, const struct top_lock *l)
{
	char total[32], iv[32];
	size_t i;
	uint32_t f;

	pager_put(p, A_NORMAL, "");
	pager_put(p, section_attr(), " kernel stacks, most waited first (%zu):", l->nstacks);
	for (i = 0; i < l->nstacks; i++) {
		const struct top_stack *st = &l->stacks[i];

		fmt_ns(total, sizeof(total), st->cum.total_ns);
		fmt_ns(iv, sizeof(iv), st->iv.total_ns);
		pager_put(p, A_BOLD, "   %llu contended, %s waited (this interval: %llu, %s)  from %s",
			  (unsigned long long)st->cum.count, total, (unsigned long long)st->iv.count, iv, st->caller);
		for (f = 0; f < st->nframes; f++)
			pager_put(p, A_NORMAL, "       %s", st->frames[f]);
		if (!st->nframes)
			pager_put(p, A_NORMAL, "       [stack not captured]");
	}
}

static void draw_detail(struct top *t)
{
	const struct top_snap *s = t->snap;
	const struct top_lock *l = s->detail;
	char cells[MAX_COLS][CELL], line[1024], g1[64], g2[64];
	struct layout L;
	struct pager p;
	size_t i;

	layout_build(&L, lock_cols, LC__N, COLS);
	pager_begin(&p, t, HEADER_LINES);
	if (!l) {
		move(HEADER_LINES - 2, 0);
		clrtoeol();
		put_line(HEADER_LINES - 1, A_BOLD, " callers and stacks of a lock");
		pager_put(&p, A_NORMAL, "   %s is not in the view (filtered out, or reset): Esc goes back", t->q.detail_name);
		pager_end(&p, t);
		return;
	}
	interval_labels(t, g1, g2, sizeof(g1));
	group_labels(HEADER_LINES - 2, &L, g1, g2);
	header_row(HEADER_LINES - 1, &L, -2);
	lock_cells(s, cells, &l->iv, &l->cum, l->type, l->name, "");
	snprintf(cells[LC_CALLER], CELL, "(the lock: %zu callers)", l->ncallers);
	layout_line(&L, cells, line, sizeof(line));
	pager_put(&p, A_BOLD, "%s", line);
	for (i = 0; i < l->ncallers; i++) {
		const struct top_caller *c = &l->callers[i];

		lock_cells(s, cells, &c->iv, &c->cum, "", "", c->name);
		snprintf(cells[LC_NAME], CELL, c->estimated ? "  caller (~)" : "  caller");
		layout_line(&L, cells, line, sizeof(line));
		pager_put(&p, A_NORMAL, "%s", line);
	}
	detail_stacks(&p, l);
	pager_end(&p, t);
}

static void table_header(struct pager *p, const struct top_table *tt)
{
	char line[1024];
	size_t used = 0;
	uint32_t k, v;

	for (k = 0; k < tt->nkeys && used < sizeof(line); k++)
		used += snprintf(line + used, sizeof(line) - used, "%-24.24s ", tt->key_names[k]);
	for (v = 0; v < tt->nvals && used < sizeof(line); v++) {
		char head[64];

		snprintf(head, sizeof(head), "%s%s", tt->val_names[v], tt->val_kinds[v] == TCOL_SUM ? "/s" : "");
		used += snprintf(line + used, sizeof(line) - used, "%14.14s %12.12s ", head, tt->val_names[v]);
	}
	pager_put(p, title_attr(), "  %s", line);
}

static void value_text(char *b, size_t n, const struct top_table *tt, uint32_t v, uint64_t x,
		       uint64_t span, bool rate)
{
	size_t len = strlen(tt->val_names[v]);
	bool ns = len > 3 && !strcmp(tt->val_names[v] + len - 3, "_ns");

	if (rate && tt->val_kinds[v] == TCOL_SUM) {
		if (ns)
			fmt_ns(b, n, per_s(x, span));
		else
			fmt_rate(b, n, per_s(x, span));
	} else if (ns) {
		fmt_ns(b, n, x);
	} else {
		fmt_count(b, n, x);
	}
}

static void draw_table(struct pager *p, const struct top_snap *s, const struct top_table *tt)
{
	char line[1024], a[32], b[32];
	size_t r, used;
	uint32_t k, v;

	pager_put(p, section_attr(), " %s: %zu rows%s", tt->name, tt->total_rows,
		  tt->total_rows > tt->nrows ? " (the busiest shown)" : "");
	table_header(p, tt);
	for (r = 0; r < tt->nrows; r++) {
		const struct top_trow *row = &tt->rows[r];

		used = 0;
		for (k = 0; k < tt->nkeys && used < sizeof(line); k++)
			used += snprintf(line + used, sizeof(line) - used, "%-24.24s ", row->keys[k]);
		for (v = 0; v < tt->nvals && used < sizeof(line); v++) {
			value_text(a, sizeof(a), tt, v, row->iv[v], s->iv_ns, true);
			value_text(b, sizeof(b), tt, v, row->cum[v], s->cum_ns, false);
			used += snprintf(line + used, sizeof(line) - used, "%14s %12s ", a, b);
		}
		pager_put(p, A_NORMAL, "  %s", line);
	}
	pager_put(p, A_NORMAL, "");
}

static void draw_tables(struct top *t)
{
	const struct top_snap *s = t->snap;
	char line[256], names[128];
	struct pager p;
	size_t i;

	move(HEADER_LINES - 2, 0);
	clrtoeol();
	put_line(HEADER_LINES - 1, A_BOLD, " the other families' counters: per second this interval, and in all");
	pager_begin(&p, t, HEADER_LINES);
	for (i = 0; i < s->ntables; i++)
		draw_table(&p, s, &s->tables[i]);
	if (!s->ntables) {
		snprintf(line, sizeof(line), "   no counter tables: record them with -e %s",
			 family_names_or(FAM_TABLES, names, sizeof(names)));
		pager_put(&p, A_NORMAL, line);
	}
	pager_end(&p, t);
}

static const char *const help_lines[] = {
	"lockstat top: the locks a workload waits on, and where its CPU time goes, live",
	"",
	"  1 2 3, Tab      the locks, functions (sampled CPU time) and tables views",
	"  Up Down j k     choose a row (PgUp PgDn Home End too)",
	"  Enter           the callers and kernel stacks of the chosen lock",
	"  Esc, Left       back from the callers or this help",
	"  < >             sort by the column to the left or right (the underlined one)",
	"  /               filter: lock=GLOB caller=GLOB comm=GLOB func=GLOB key=GLOB;",
	"                  a bare word filters the view's names; a word without * matches",
	"                  inside a name; an empty line clears the filter",
	"  space, p        pause (the probes keep counting)",
	"  r               reset the cumulative counters",
	"  + -             a longer or shorter interval",
	"  h, ?            this help",
	"  q               quit (Ctrl-C too); a COMMAND started by top is stopped",
	"",
	"columns: CONT/s contended acquisitions per second, WAIT/s time waited per",
	"second, AVG and MAX per wait, %CPU time waited as a share of all CPUs' time;",
	"the right-hand group is the same since the start (or the last reset).",
	"'.': no wait this interval. FUNCTIONS: k kernel, u user space.",
	"",
	"header: events/s the probes ran, lost events, probe cost (kernel.bpf_stats,",
	"in % of one CPU) and lockstat's own CPU time.",
};

static void draw_help(struct top *t)
{
	struct pager p;
	size_t i;

	move(HEADER_LINES - 2, 0);
	clrtoeol();
	move(HEADER_LINES - 1, 0);
	clrtoeol();
	pager_begin(&p, t, HEADER_LINES - 2);
	for (i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]); i++)
		pager_put(&p, i ? A_NORMAL : A_BOLD, " %s", help_lines[i]);
	pager_end(&p, t);
}

/* --- the status line --------------------------------------------------------------- */

static void draw_status(const struct top *t)
{
	const char *last = term__last_message();
	char line[512];
	int y = LINES - 1;

	if (t->ui.prompting) {
		snprintf(line, sizeof(line), "filter (lock= caller= comm= func= key=, Enter applies, Esc cancels): %s", t->ui.prompt);
		put_line(y, A_BOLD, line);
		curs_set(1);
		move(y, strlen(line) < (size_t)COLS ? (int)strlen(line) : COLS - 1);
		return;
	}
	curs_set(0);
	if (t->ui.message[0])
		snprintf(line, sizeof(line), " %s", t->ui.message);
	else if (last[0])
		snprintf(line, sizeof(line), " ! %s", last);
	else
		snprintf(line, sizeof(line), " h help  q quit  1-3 views  < > sort  / filter  Enter callers  space pause  r reset  + - interval");
	put_line(y, title_attr(), line);
}

void top_ui__draw(struct top *t)
{
	static const struct top_snap empty = { .target = "", .command = "", .probe_pct = NAN, .self_pct = NAN };
	const struct top_snap *s = t->snap ? t->snap : &empty;

	if (!term__active())
		return;
	erase();
	draw_title(t, s);
	draw_figures(s);
	draw_totals(s);
	draw_views(t);
	if (t->snap) {
		switch (t->ui.view) {
		case TV_LOCKS: draw_locks(t); break;
		case TV_FUNCS: draw_funcs(t); break;
		case TV_TABLES: draw_tables(t); break;
		case TV_DETAIL: draw_detail(t); break;
		case TV_HELP: draw_help(t); break;
		}
	} else if (t->ui.view == TV_HELP) {
		draw_help(t);
	}
	draw_status(t);
	refresh();
	t->ui.redraw = false;
}
