// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The keys of the full-screen view. A key only changes the UI's state
 * (struct top_ui) and the query; what needs the model or the session (a
 * new snapshot, a reset, another interval, quitting) is a request that
 * the driver carries out after the keys are read (top__apply()).
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "top.h"

#define KEY_ESC		27
#define KEY_CTRL(c)	((c) & 0x1f)

static size_t list_len(const struct top *t)
{
	if (!t->snap)
		return 0;
	return t->ui.view == TV_FUNCS ? t->snap->nfuncs : t->ui.view == TV_LOCKS ? t->snap->nlocks : 0;
}

/* Remember what is selected by name: the next snapshot may order it elsewhere. */
static void note_selection(struct top *t)
{
	const struct top_snap *s = t->snap;

	if (!s)
		return;
	if (t->ui.view == TV_LOCKS && t->ui.sel < s->nlocks) {
		snprintf(t->ui.sel_name, sizeof(t->ui.sel_name), "%s", s->locks[t->ui.sel].name);
		t->ui.sel_flags = s->locks[t->ui.sel].flags;
	} else if (t->ui.view == TV_FUNCS && t->ui.sel < s->nfuncs) {
		snprintf(t->ui.sel_name, sizeof(t->ui.sel_name), "%s", s->funcs[t->ui.sel].function);
		t->ui.sel_flags = 0;
	}
}

void top_ui__follow(struct top *t)
{
	const struct top_snap *s = t->snap;
	size_t i;

	if (!s || !t->ui.sel_name[0])
		return;
	for (i = 0; t->ui.view == TV_LOCKS && i < s->nlocks; i++)
		if (s->locks[i].flags == t->ui.sel_flags && !strcmp(s->locks[i].name, t->ui.sel_name))
			t->ui.sel = i;
	for (i = 0; t->ui.view == TV_FUNCS && i < s->nfuncs; i++)
		if (!strcmp(s->funcs[i].function, t->ui.sel_name))
			t->ui.sel = i;
}

/* Up, down, pages: the selection in lists, the first line in pages. */
static bool move_key(struct top *t, int key)
{
	size_t page = top_ui__rows(t) > 1 ? top_ui__rows(t) - 1 : 1, n = list_len(t);
	bool list = t->ui.view == TV_LOCKS || t->ui.view == TV_FUNCS;
	size_t *pos = list ? &t->ui.sel : &t->ui.scroll;

	switch (key) {
	case KEY_UP: case 'k': *pos = *pos ? *pos - 1 : 0; break;
	case KEY_DOWN: case 'j': (*pos)++; break;
	case KEY_PPAGE: *pos = *pos > page ? *pos - page : 0; break;
	case KEY_NPAGE: *pos += page; break;
	case KEY_HOME: case 'g': *pos = 0; break;
	case KEY_END: case 'G': *pos = list ? (n ? n - 1 : 0) : (size_t)-1 / 2; break;
	default: return false;
	}
	if (list && *pos >= n)
		*pos = n ? n - 1 : 0;
	note_selection(t);
	return true;
}

static void set_view(struct top *t, enum top_view v)
{
	if (t->ui.view == v)
		return;
	if (v >= TV__MAIN && t->ui.view < TV__MAIN)
		t->ui.back = t->ui.view;
	t->ui.view = v;
	t->ui.sel = 0;
	t->ui.scroll = 0;
	t->ui.sel_name[0] = '\0';
	t->q.detail = false;
	t->ui.rebuild = true;	/* each view builds only what it shows */
}

static void go_back(struct top *t)
{
	if (t->ui.view >= TV__MAIN)
		set_view(t, t->ui.back);
	t->ui.message[0] = '\0';
}

static void open_detail(struct top *t)
{
	const struct top_snap *s = t->snap;
	const struct top_lock *l;

	if (t->ui.view != TV_LOCKS || !s || t->ui.sel >= s->nlocks)
		return;
	l = &s->locks[t->ui.sel];
	snprintf(t->q.detail_name, sizeof(t->q.detail_name), "%s", l->name);
	t->q.detail_flags = l->flags;
	t->q.detail = true;
	t->ui.back = TV_LOCKS;
	t->ui.view = TV_DETAIL;
	t->ui.scroll = 0;
	t->ui.rebuild = true;
}

static void next_sort(struct top *t, int dir)
{
	bool funcs = t->ui.view == TV_FUNCS || (t->ui.view >= TV__MAIN && t->ui.back == TV_FUNCS);

	if (funcs)
		t->o.func_key = (t->o.func_key + TF__COUNT + dir) % TF__COUNT;
	else
		t->o.lock_key = (t->o.lock_key + TK__COUNT + dir) % TK__COUNT;
	snprintf(t->ui.message, sizeof(t->ui.message), "sorted by %s",
		 funcs ? top_func_key_name(t->o.func_key) : top_lock_key_name(t->o.lock_key));
	t->ui.rebuild = true;
}

static const char *bare_field(const struct top *t)
{
	enum top_view v = t->ui.view >= TV__MAIN ? t->ui.back : t->ui.view;

	return v == TV_FUNCS ? "func" : v == TV_TABLES ? "key" : "lock";
}

static void apply_filter(struct top *t)
{
	char why[128];

	t->ui.prompting = false;
	if (top_query__parse(&t->q, t->ui.prompt, bare_field(t), why, sizeof(why))) {
		snprintf(t->ui.message, sizeof(t->ui.message), "%s", why);
		return;
	}
	t->ui.message[0] = '\0';
	t->ui.sel = t->ui.scroll = 0;
	t->ui.rebuild = true;
}

static void prompt_key(struct top *t, int key)
{
	size_t *n = &t->ui.prompt_len;

	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		apply_filter(t);
	} else if (key == KEY_ESC) {
		t->ui.prompting = false;
	} else if (key == KEY_BACKSPACE || key == 127 || key == KEY_CTRL('h')) {
		if (*n)
			t->ui.prompt[--*n] = '\0';
	} else if (key == KEY_CTRL('u')) {
		*n = 0;
		t->ui.prompt[0] = '\0';
	} else if (key >= ' ' && key < 127 && *n + 1 < sizeof(t->ui.prompt)) {
		t->ui.prompt[(*n)++] = key;
		t->ui.prompt[*n] = '\0';
	}
}

static void start_prompt(struct top *t)
{
	top_query__describe(&t->q, t->ui.prompt, sizeof(t->ui.prompt));
	t->ui.prompt_len = strlen(t->ui.prompt);
	t->ui.prompting = true;
}

static void toggle_pause(struct top *t)
{
	t->ui.paused = !t->ui.paused;
	snprintf(t->ui.message, sizeof(t->ui.message), "%s", t->ui.paused ?
		 "paused: the probes keep counting; space resumes" : "");
}

/* Tab and Shift-Tab: the main views in turn; from detail or help, back. */
static enum top_view next_view(const struct top *t, int step)
{
	return t->ui.view >= TV__MAIN ? t->ui.back : (t->ui.view + step) % TV__MAIN;
}

/* The keys that are not moves. */
static void command_key(struct top *t, int key)
{
	switch (key) {
	case 'q': case 'Q': case KEY_F(10): t->ui.quit = true; break;
	case 'h': case '?': case KEY_F(1):
		if (t->ui.view == TV_HELP)
			go_back(t);
		else
			set_view(t, TV_HELP);
		break;
	case KEY_ESC: case KEY_LEFT: case KEY_BACKSPACE: case 127: go_back(t); break;
	case '1': set_view(t, TV_LOCKS); break;
	case '2': set_view(t, TV_FUNCS); break;
	case '3': set_view(t, TV_TABLES); break;
	case '\t': set_view(t, next_view(t, 1)); break;
	case KEY_BTAB: set_view(t, next_view(t, TV__MAIN - 1)); break;
	case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT: open_detail(t); break;
	case '<': case ',': next_sort(t, -1); break;
	case '>': case '.': case 's': next_sort(t, 1); break;
	case '/': start_prompt(t); break;
	case ' ': case 'p': toggle_pause(t); break;
	case 'r': t->ui.reset = true; snprintf(t->ui.message, sizeof(t->ui.message), "counters reset"); break;
	case '+': case '=': t->ui.interval_step = 1; break;
	case '-': case '_': t->ui.interval_step = -1; break;
	case KEY_CTRL('l'): clearok(curscr, TRUE); break;
	case KEY_RESIZE: break;	/* resizeterm() queued it: the size is known, redraw */
	default: return;
	}
}

void top_ui__key(struct top *t, int key)
{
	t->ui.redraw = true;
	if (t->ui.prompting) {
		prompt_key(t, key);
		return;
	}
	if (key != 'p' && key != ' ')
		t->ui.message[0] = '\0';
	if (!move_key(t, key))
		command_key(t, key);
}

void top_ui__keys(struct top *t)
{
	int key;

	if (!term__active())
		return;
	while ((key = getch()) != ERR)
		top_ui__key(t, key);
}
