// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The recording options' table (lib/run/opts.h) and what a command's
 * --help and getopt tables are made from it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/optval.h"
#include "format/families.h"
#include "record/collector.h"
#include "run/opts.h"

/* --- the parsers ---------------------------------------------------------- */

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

static int parse_output(struct session_opts *o, const char *arg)
{
	return parse_path("--output", arg, &o->output);
}

static int parse_all_cpus(struct session_opts *o, const char *arg)
{
	(void)arg;
	o->system_wide = true;
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

static int parse_cgroup(struct session_opts *o, const char *arg)
{
	if (!*arg) {
		pr_err("--cgroup: an empty path\n");
		return -EINVAL;
	}
	o->cgroup = arg;
	return 0;
}

static int parse_duration(struct session_opts *o, const char *arg)
{
	return parse_seconds("--duration", arg, DURATION_MIN_S, DURATION_MAX_S, &o->duration);
}

static int parse_per_thread(struct session_opts *o, const char *arg)
{
	(void)arg;
	o->per_task = true;
	return 0;
}

static int parse_hold(struct session_opts *o, const char *arg)
{
	(void)arg;
	o->families |= FAMILY_HOLD;
	return 0;
}

static int parse_uprobes(struct session_opts *o, const char *arg)
{
	(void)arg;
	o->families |= FAMILY_ULOCKS | FAMILY_UPROBES;
	return 0;
}

static int parse_event_budget(struct session_opts *o, const char *arg)
{
	o->budget_set = true;
	return parse_ulong("--event-budget", arg, 1, 100000000UL, &o->event_budget);
}

static int parse_force(struct session_opts *o, const char *arg)
{
	(void)arg;
	o->force = true;
	return 0;
}

static int parse_freq(struct session_opts *o, const char *arg)
{
	o->freq_set = true;
	return parse_ulong("--freq", arg, 1, 100000, &o->sample_freq);
}

static int parse_attach(struct session_opts *o, const char *arg)
{
	if (attach_mode_parse(arg, &o->mode)) {
		pr_err("--attach: '%s' is not one of auto, tp, tp_btf, tracepoint, fentry, kprobe\n", arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_bucket(struct session_opts *o, const char *arg)
{
	return parse_seconds("--bucket", arg, BUCKET_MIN_S, BUCKET_MAX_S, &o->bucket);
}

static int parse_stack_rate(struct session_opts *o, const char *arg)
{
	return parse_ulong("--stack-rate", arg, 0, 1000000UL, &o->stack_rate);
}

static int parse_stack_thin(struct session_opts *o, const char *arg)
{
	return parse_ulong("--stack-thin", arg, 0, 1UL << 30, &o->stack_thin);
}

static int parse_map_entries(struct session_opts *o, const char *arg)
{
	unsigned long v;

	if (parse_ulong("--map-entries", arg, 64, 1UL << 24, &v))
		return -EINVAL;
	o->map_entries = v;
	return 0;
}

/* -v and -q set the log level itself: the messages of option parsing follow it at once. */
static int parse_verbose(struct session_opts *o, const char *arg)
{
	(void)o;
	(void)arg;
	log_verbosity++;
	return 0;
}

static int parse_quiet(struct session_opts *o, const char *arg)
{
	(void)o;
	(void)arg;
	log_verbosity = -1;
	return 0;
}

/* --- the table ------------------------------------------------------------ */

/* The column the texts begin in; a longer head is followed by two spaces. */
#define HELP_COLUMN	25
#define HELP_WIDTH	81

/*
 * -e's text from the family table: its lines wrapped for the help's
 * column, without the indent that put_row() adds after each newline.
 */
static const char *events_text(bool brief)
{
	static char text[1024];
	const char *help;
	size_t n = 0;

	if (brief) {
		snprintf(text, sizeof(text), "probe families, as for record (default %s)",
			 family_default_names());
		return text;
	}
	for (help = family_events_help(HELP_COLUMN, HELP_WIDTH); *help && n + 1 < sizeof(text); help++) {
		text[n++] = *help;
		if (*help == '\n')
			help += strspn(help + 1, " ");
	}
	text[n] = '\0';
	return text;
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

/*
 * record's --help says it all; top and serve say less where record's
 * text is long and point to it (brief).
 */
static const struct run_opt shared_opts[] = {
	{ "output", 'o', "FILE", "profile to write (default lockstat.data); the one it\n"
	  "replaces is kept as FILE.old", NULL, false, parse_output },
	{ "all-cpus", 'a', NULL, "the whole system (with a COMMAND: while it runs)", NULL, true,
	  parse_all_cpus },
	{ "pid", 'p', "PID", "process PID and the processes it forks", NULL, true, parse_pid },
	{ "cgroup", SESSION_OPT_CGROUP, "PATH", "the tasks of cgroup v2 PATH and its descendants", NULL,
	  true, parse_cgroup },
	{ "duration", 'd', "SECS", "stop after SECS seconds (at least 0.01)", "stop after SECS seconds",
	  false, parse_duration },
	{ "events", 'e', "LIST", NULL, NULL, false, parse_events, events_text },
	{ "hold", SESSION_OPT_HOLD, NULL, "add hold times of kernel mutexes, rwsems and spinlocks\n"
	  "(fentry only: kprobes there are refused; costly: the\ncost is printed)",
	  "add hold times of kernel locks (costly, see lockstat-record(1))", false, parse_hold },
	{ "uprobes", SESSION_OPT_UPROBES, NULL, "user locks with uprobes on glibc's lock functions: every\n"
	  "acquisition and hold (-e ulocks,uprobes; each call traps:\nthe measured cost is printed)",
	  NULL, false, parse_uprobes },
	{ "event-budget", SESSION_OPT_EVENT_BUDGET, "N",
	  "uprobe hits per second before they are detached (10000)", NULL, false, parse_event_budget },
	{ "force", SESSION_OPT_FORCE, NULL, "keep uprobes over the budget, or put them on every process",
	  NULL, false, parse_force },
	{ "freq", 'F', "HZ", "samples per second per CPU (default 99)", NULL, false, parse_freq },
	{ "user-stack", SESSION_OPT_USER_STACK, "MODE", "the sampler's user stacks: fp (frame pointers, the\n"
	  "default) or dwarf (copied and unwound with the CFI)", NULL, false, parse_user_stack },
	{ "user-stack-size", SESSION_OPT_USER_STACK_SIZE, "N", "dwarf: bytes of user stack copied a sample (8192)",
	  NULL, false, parse_user_stack_size },
	{ "per-thread", 't', NULL, "aggregate lock waits per task too (pid, tid, comm)", NULL, false,
	  parse_per_thread },
	{ "attach", SESSION_OPT_ATTACH, "MODE", "auto, tp, tp_btf, tracepoint, fentry or kprobe (default\n"
	  "auto); fentry/kprobe choose how fd attaches",
	  "auto, tp, tp_btf, tracepoint, fentry or kprobe (default auto)", false, parse_attach },
	{ "bucket", SESSION_OPT_BUCKET, "SECS", "drain the kernel maps every SECS (default 1; 0.01 to 3600)",
	  NULL, false, parse_bucket },
	{ "stack-rate", SESSION_OPT_STACK_RATE, "N", "kernel stacks taken per second per CPU (default 250;\n"
	  "0: one for every wait); waits are always all counted",
	  "kernel stacks taken per second per CPU (default 250)", false, parse_stack_rate },
	{ "stack-thin", SESSION_OPT_STACK_THIN, "NS", "a sampled wait shorter than NS keeps its stack in\n"
	  "proportion to its length (default 65536; 0: always)", NULL, false, parse_stack_thin },
	{ "map-entries", 'M', "N", "lock rows the kernel holds at once (default 16384;\n"
	  "the sampler: 2N rows, N stacks of each kind)", NULL, false, parse_map_entries },
	{ "verbose", 'v', NULL, "say more (-vvv: libbpf's own messages)", "say more", false, parse_verbose },
	{ "quiet", 'q', NULL, "only errors", NULL, false, parse_quiet },
	{ "help", 'h', NULL, "this help", NULL, false, NULL },
	{ NULL, 0, NULL, NULL, NULL, false, NULL },
};

int session__parse_opt(struct session_opts *o, int opt, const char *arg)
{
	const struct run_opt *r;

	for (r = shared_opts; r->name; r++)
		if (r->id == opt && r->parse)
			return r->parse(o, arg);
	return -ENOENT;
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

/* --- --help and getopt's tables ------------------------------------------- */

static const struct run_opt *find_in(const struct run_opt *t, const char *name, size_t len)
{
	for (; t && t->name; t++)
		if (strlen(t->name) == len && !strncmp(t->name, name, len))
			return t;
	return NULL;
}

/* A row's option: the command's own first, then the shared one. */
static const struct run_opt *find_row(const struct run_cmd *c, const char *name, size_t len)
{
	const struct run_opt *r = find_in(c->own, name, len);

	return r ? r : find_in(shared_opts, name, len);
}

/* The next row's name in rows from *pos on; false at the end. */
static bool next_row(const char *rows, size_t *pos, const char **name, size_t *len)
{
	size_t skip = strspn(rows + *pos, " ");

	*name = rows + *pos + skip;
	*len = strcspn(*name, " ");
	*pos += skip + *len;
	return *len > 0;
}

/* The text a command gives the option: its own wording, brief or record's. */
static const char *row_text(const struct run_cmd *c, const struct run_opt *r, bool *verb)
{
	const struct run_text *t;

	*verb = false;
	for (t = c->texts; t && t->name; t++)
		if (!strcmp(t->name, r->name))
			return t->help;
	*verb = r->verb;
	if (r->text)
		return r->text(c->brief);
	return c->brief && r->brief ? r->brief : r->help;
}

static void put_row(FILE *f, const struct run_cmd *c, const struct run_opt *r)
{
	bool verb;
	const char *text = row_text(c, r, &verb);
	int n;

	if (r->id < 256)
		n = fprintf(f, "  -%c, --%s%s%s", r->id, r->name, r->arg ? " " : "", r->arg ? r->arg : "");
	else
		n = fprintf(f, "      --%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
	fprintf(f, "%*s", n + 2 > HELP_COLUMN ? 2 : HELP_COLUMN - n, "");
	if (verb)
		fprintf(f, "%s ", c->verb);
	for (; *text; text++) {
		fputc(*text, f);
		if (*text == '\n')
			fprintf(f, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', f);
}

char *run_cmd__help(const struct run_cmd *c)
{
	const struct run_opt *r = NULL;
	const char *name;
	size_t pos = 0, len, size;
	char *text = NULL;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	fprintf(f, "%s\n", c->synopsis);
	while (next_row(c->rows, &pos, &name, &len)) {
		r = find_row(c, name, len);
		if (!r)
			break;
		put_row(f, c, r);
	}
	fprintf(f, "\n%s", c->footer);
	if (fclose(f) || (len && !r)) {
		free(text);
		return NULL;
	}
	return text;
}

static int add_getopt(struct run_getopt *g, size_t *n, size_t *ns, const struct run_opt *r)
{
	if (*n == RUN_MAX_OPTS)
		return -EINVAL;
	g->longopts[(*n)++] = (struct option){ r->name, r->arg ? required_argument : no_argument, NULL,
					       r->id };
	if (r->id >= 256)
		return 0;
	g->shortopts[(*ns)++] = r->id;
	if (r->arg)
		g->shortopts[(*ns)++] = ':';
	return 0;
}

int run_cmd__getopt(const struct run_cmd *c, struct run_getopt *g)
{
	const struct run_opt *r;
	const char *name;
	size_t pos = 0, len, n = 0, ns = 0;

	memset(g, 0, sizeof(*g));
	/* '+': the options end at the COMMAND, whose own options are its. */
	g->shortopts[ns++] = '+';
	while (next_row(c->rows, &pos, &name, &len)) {
		r = find_row(c, name, len);
		if (!r || add_getopt(g, &n, &ns, r)) {
			/* The command's table is wrong: no option can be trusted. */
			pr_err("the options' table: '%.*s' is unknown or one too many\n", (int)len, name);
			return -EINVAL;
		}
	}
	return 0;
}
