// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * top's model: the profile that the session writes (or --replay reads),
 * fed chunk by chunk into two in-memory profiles, the one report reads.
 * The interval model forgets its counts at every interval and the
 * cumulative one at a reset; both keep the strings, stacks and symbols,
 * so a lock or a function has the same name in both and the snapshot
 * joins them by name. Only the chunks appended since the last interval
 * are parsed: the cost of an interval does not grow with the session.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "view/top_model.h"

int top_model__init(struct top_model *m)
{
	memset(m, 0, sizeof(*m));
	return 0;
}

static void drop_saved(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->nsaved; i++)
		free((void *)m->saved[i].payload);
	m->nsaved = 0;
}

void top_model__free(struct top_model *m)
{
	drop_saved(m);
	free(m->saved);
	profile__free(m->iv);
	profile__free(m->cum);
	free(m->pending);
	memset(m, 0, sizeof(*m));
}

int top_model__set_header(struct top_model *m, const struct store_header *hdr)
{
	m->hdr = *hdr;
	m->iv = profile__new(hdr);
	m->cum = m->iv_only ? NULL : profile__new(hdr);
	if (!m->iv || (!m->iv_only && !m->cum)) {
		snprintf(m->err, sizeof(m->err), "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	m->have_hdr = true;
	return 0;
}

bool chunk_span(const struct store_chunk *ch, uint64_t *t0, uint64_t *t1)
{
	struct cursor c;

	if (ch->type != CHUNK_LOCKSTAT && ch->type != CHUNK_SAMPLES && ch->type != CHUNK_TABLE)
		return false;
	cursor_init(&c, ch->payload, ch->len);
	*t0 = cursor_varint(&c);
	*t1 = cursor_varint(&c);
	return !c.err && *t1 >= *t0;
}

static void note_span(struct top_model *m, const struct store_chunk *ch)
{
	uint64_t t0, t1;

	if (!chunk_span(ch, &t0, &t1))
		return;
	if (!m->iv_any || t0 < m->iv_t0)
		m->iv_t0 = t0;
	if (!m->iv_any || t1 > m->iv_t1)
		m->iv_t1 = t1;
	m->iv_any = true;
	if (t1 > m->last_t1)
		m->last_t1 = t1;
}

/* The chunks that count: what the cumulative model needs again after a reset. */
static int save_chunk(struct top_model *m, const struct store_chunk *ch)
{
	uint64_t t0, t1;
	void *copy;

	if (ch->type != CHUNK_LOST && !chunk_span(ch, &t0, &t1))
		return 0;
	if (grow_array((void **)&m->saved, &m->saved_cap, m->nsaved + 1, sizeof(*m->saved)) ||
	    !(copy = malloc(ch->len ? ch->len : 1))) {
		snprintf(m->err, sizeof(m->err), "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	memcpy(copy, ch->payload, ch->len);
	m->saved[m->nsaved] = *ch;
	m->saved[m->nsaved++].payload = copy;
	return 0;
}

int top_model__feed(struct top_model *m, const struct store_chunk *ch)
{
	int err = profile__add_chunk(m->iv, ch, m->err, sizeof(m->err));

	if (!err && m->cum)
		err = profile__add_chunk(m->cum, ch, m->err, sizeof(m->err));
	if (!err && m->cum)
		err = save_chunk(m, ch);
	if (!err)
		note_span(m, ch);
	return err;
}

/* Append whatever the file grew by to the pending bytes. */
static int read_new(struct top_model *m, int fd)
{
	for (;;) {
		ssize_t n;

		if (grow_array((void **)&m->pending, &m->cap, m->npending + 65536, 1))
			return -ENOMEM;
		n = pread(fd, m->pending + m->npending, m->cap - m->npending, m->file_pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (m->tee)
			m->tee(m->tee_ctx, m->pending + m->npending, n);
		m->npending += n;
		m->file_pos += n;
	}
}

static int parse_header(struct top_model *m, struct store_file *f, uint64_t *pos)
{
	const char *why = NULL;
	int err;

	if (f->size < LKST_HEADER_LEN)
		return -EAGAIN;
	err = store_parse(f, &why);
	if (err) {
		snprintf(m->err, sizeof(m->err), "%s", why);
		return err;
	}
	*pos = f->hdr.header_len;
	return top_model__set_header(m, &f->hdr);
}

/* Feed the whole chunks of the pending bytes, keep a partial one. */
static int feed_pending(struct top_model *m)
{
	struct store_file f = { .data = m->pending, .size = m->npending };
	struct store_chunk ch;
	enum walk_status st;
	uint64_t pos = 0;
	int err = 0;

	if (!m->have_hdr && (err = parse_header(m, &f, &pos)))
		return err == -EAGAIN ? 0 : err;
	while ((st = store_next_chunk(&f, &pos, &ch)) == WALK_CHUNK) {
		ch.offset += m->base;
		if ((err = top_model__feed(m, &ch)))
			return err;
	}
	if (st == WALK_BAD_CRC) {
		snprintf(m->err, sizeof(m->err), "damaged chunk at byte %llu", (unsigned long long)(m->base + pos));
		return -EBADMSG;
	}
	memmove(m->pending, m->pending + pos, m->npending - pos);
	m->npending -= pos;
	m->base += pos;
	return 0;
}

int top_model__read_fd(struct top_model *m, int fd, bool truncate)
{
	int err = read_new(m, fd);

	if (err) {
		snprintf(m->err, sizeof(m->err), "reading the profile back: %s", strerror(-err));
		return err;
	}
	err = feed_pending(m);
	if (err || !truncate || m->npending || !m->have_hdr)
		return err;
	/* Everything is in the models: the writer starts again at byte 0. */
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) < 0) {
		snprintf(m->err, sizeof(m->err), "emptying the in-memory profile: %s", strerror(errno));
		return -errno;
	}
	m->file_pos = 0;
	return 0;
}

uint64_t top_model__lost(const struct top_model *m)
{
	const struct profile *p = m->cum ? m->cum : m->iv;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; p && i < p->nlost; i++)
		sum += strtoull(p->lost[i].value, NULL, 10);
	return sum;
}

void top_model__next_interval(struct top_model *m)
{
	drop_saved(m);
	if (m->iv)
		profile__clear_counts(m->iv);
	m->iv_any = false;
	m->iv_t0 = m->iv_t1 = m->last_t1;
	m->lost_at_iv = top_model__lost(m);
}

/*
 * Since the start of the current interval: the cumulative model always
 * holds every row of the interval model, so the snapshot walks it alone.
 */
void top_model__reset(struct top_model *m)
{
	size_t i;

	if (!m->cum)
		return;
	profile__clear_counts(m->cum);
	for (i = 0; i < m->nsaved; i++)
		profile__add_chunk(m->cum, &m->saved[i], m->err, sizeof(m->err));
	m->cum_t0 = m->iv_any ? m->iv_t0 : m->last_t1;
	m->lost_at_reset = m->lost_at_iv;
	m->was_reset = true;
}
