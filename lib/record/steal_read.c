// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Steal time from /proc/stat, per CPU, over a recording
 * (lib/record/steal_read.h). The file is read whole at each reading:
 * its interrupt lines make it some KiB, a few times a second at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/steal_read.h"

/* user nice system idle iowait irq softirq steal: steal is the 8th. */
#define STEAL_FIELD	8

/* The number after n fields of line (past "cpuN"), or -EINVAL. */
static int nth_field(const char *line, int n, uint64_t *v)
{
	const char *p = line;
	char *end;
	int i;

	for (i = 1; i <= n; i++) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		*v = strtoull(p, &end, 10);
		p = end;
	}
	return 0;
}

static const char *next_line(const char *line)
{
	const char *nl = strchr(line, '\n');

	return nl ? nl + 1 : NULL;
}

long steal_parse(const char *text, uint64_t *ticks, size_t max)
{
	const char *line = text;
	unsigned long cpu;
	long slots = 0;
	uint64_t v;
	size_t i;
	char *end;

	for (i = 0; i < max; i++)
		ticks[i] = STEAL_ABSENT;
	for (; line && *line; line = next_line(line)) {
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;	/* the "cpu " total, and every other line */
		cpu = strtoul(line + 3, &end, 10);
		if (*end != ' ' || cpu >= 1UL << 20 || nth_field(end, STEAL_FIELD, &v))
			return -EINVAL;
		if (cpu < max)
			ticks[cpu] = v;
		if ((long)cpu >= slots)
			slots = cpu + 1;
	}
	return slots ? slots : -ENOENT;
}

static int read_text(struct steal_tracker *st)
{
	size_t used = 0;
	ssize_t n;
	char *p;
	int fd = open(st->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		if (used + 1 >= st->text_size) {
			p = realloc(st->text, st->text_size ? 2 * st->text_size : 16384);
			if (!p) {
				close(fd);
				return -ENOMEM;
			}
			st->text = p;
			st->text_size = st->text_size ? 2 * st->text_size : 16384;
		}
		n = read(fd, st->text + used, st->text_size - used - 1);
		if (n <= 0)
			break;
		used += n;
	}
	close(fd);
	if (n < 0)
		return -errno;
	st->text[used] = '\0';
	return 0;
}

/* The slots for n CPUs, the new ones unseen. */
static int grow(struct steal_tracker *st, size_t n)
{
	struct steal_cpu *c;
	uint64_t *t;

	if (n <= st->ncpu)
		return 0;
	c = realloc(st->cpu, n * sizeof(*c));
	if (c)
		st->cpu = c;
	t = realloc(st->ticks, n * sizeof(*t));
	if (t)
		st->ticks = t;
	if (!c || !t)
		return -ENOMEM;
	memset(c + st->ncpu, 0, (n - st->ncpu) * sizeof(*c));
	st->ncpu = n;
	return 0;
}

/* The file into st->ticks, every CPU it lists in a slot. */
static int read_ticks(struct steal_tracker *st)
{
	long n;
	int err = read_text(st);

	if (err)
		return err;
	n = steal_parse(st->text, st->ticks, st->ncpu);
	if (n > (long)st->ncpu) {	/* a CPU more than the slots: parsed again */
		err = grow(st, n);
		if (err)
			return err;
		n = steal_parse(st->text, st->ticks, st->ncpu);
	}
	return n < 0 ? n : 0;
}

int steal_tracker__sample(struct steal_tracker *st, uint64_t now)
{
	struct steal_cpu *c;
	size_t i;
	int err = read_ticks(st);

	if (err)
		return err;
	for (i = 0; i < st->ncpu; i++) {
		c = &st->cpu[i];
		if (st->ticks[i] == STEAL_ABSENT)
			continue;	/* offline now: what it had stays */
		if (!c->seen) {	/* from its first reading on (online since the last) */
			*c = (struct steal_cpu){ .seen = true, .first = st->ticks[i], .last = st->ticks[i] };
			continue;
		}
		if (st->ticks[i] >= c->last && st->ticks[i] - c->last > c->max_iv)
			c->max_iv = st->ticks[i] - c->last;
		if (st->ticks[i] >= c->last)
			c->last = st->ticks[i];
	}
	st->t_last = now;
	return 0;
}

int steal_tracker__init(struct steal_tracker *st, const char *path, uint64_t interval_ns, uint64_t now)
{
	long hz = sysconf(_SC_CLK_TCK);
	int err;

	memset(st, 0, sizeof(*st));
	st->path = path;
	st->interval_ns = interval_ns;
	st->tick_ns = hz > 0 ? 1000000000ULL / hz : 10000000ULL;
	st->t_first = now;
	err = grow(st, 64);
	if (!err)
		err = steal_tracker__sample(st, now);
	if (err)
		steal_tracker__free(st);
	return err;
}

void steal_tracker__restart(struct steal_tracker *st)
{
	size_t i;

	for (i = 0; i < st->ncpu; i++) {
		st->cpu[i].first = st->cpu[i].last;
		st->cpu[i].max_iv = 0;
	}
	st->t_first = st->t_last;
}

/* "CPU:TOTAL_NS:MAX_INTERVAL_NS" of each CPU seen, space-separated. */
static void format_per_cpu(struct steal_tracker *st)
{
	size_t i, used = 0, need = st->ncpu * 64 + 1;
	const struct steal_cpu *c;
	char *p;

	if (need > st->per_cpu_size) {
		p = realloc(st->per_cpu, need);
		if (!p) {
			if (st->per_cpu)
				st->per_cpu[0] = '\0';
			return;	/* the totals are still written */
		}
		st->per_cpu = p;
		st->per_cpu_size = need;
	}
	st->per_cpu[0] = '\0';
	for (i = 0; i < st->ncpu; i++) {
		c = &st->cpu[i];
		if (c->seen)
			used += snprintf(st->per_cpu + used, st->per_cpu_size - used, "%s%zu:%" PRIu64 ":%" PRIu64,
					 used ? " " : "", i, (c->last - c->first) * st->tick_ns,
					 c->max_iv * st->tick_ns);
	}
}

void steal_tracker__summary(struct steal_tracker *st, struct steal_summary *s)
{
	const struct steal_cpu *c;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->recorded = true;
	s->tick_ns = st->tick_ns;
	s->interval_ns = st->interval_ns;
	s->max_iv_cpu = -1;
	for (i = 0; i < st->ncpu; i++) {
		c = &st->cpu[i];
		if (!c->seen)
			continue;
		s->ncpus++;
		s->total_ns += (c->last - c->first) * st->tick_ns;
		s->boot_ns += c->last * st->tick_ns;
		if (c->max_iv && c->max_iv * st->tick_ns > s->max_iv_ns) {
			s->max_iv_ns = c->max_iv * st->tick_ns;
			s->max_iv_cpu = i;
		}
	}
	s->cpu_time_ns = (st->t_last - st->t_first) * s->ncpus;
	format_per_cpu(st);
	s->per_cpu = st->per_cpu;
}

void steal_tracker__free(struct steal_tracker *st)
{
	free(st->cpu);
	free(st->ticks);
	free(st->text);
	free(st->per_cpu);
	memset(st, 0, sizeof(*st));
}
