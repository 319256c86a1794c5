// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Report side of the profile: walks the chunks of an LKST file and builds
 * the in-memory model. Everything read from the file is bounds-checked;
 * a chunk whose CRC holds but whose payload does not parse is refused
 * with its offset, a short or damaged tail ends the walk with what came
 * before it kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "format/profile.h"

#define MAX_FRAMES	1024
#define TABLE_MAX_COLS	64

static int kv_set(struct kv **list, size_t *n, char *key, char *value)
{
	struct kv *grown;
	size_t i;

	for (i = 0; i < *n; i++) {
		if (!strcmp((*list)[i].key, key)) {
			free(key);
			free((*list)[i].value);
			(*list)[i].value = value;
			return 0;
		}
	}
	grown = realloc(*list, (*n + 1) * sizeof(**list));
	if (!grown) {
		free(key);
		free(value);
		return -ENOMEM;
	}
	*list = grown;
	(*list)[*n].key = key;
	(*list)[(*n)++].value = value;
	return 0;
}

static void kv_free(struct kv *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(list[i].key);
		free(list[i].value);
	}
	free(list);
}

static int read_kv(struct cursor *c, struct kv **list, size_t *n)
{
	uint64_t i, count = cursor_varint(c);

	for (i = 0; i < count && !c->err; i++) {
		char *k = cursor_str(c), *v = cursor_str(c);

		if (c->err) {
			free(k);
			free(v);
			break;
		}
		if (kv_set(list, n, k, v))
			return -ENOMEM;
	}
	return c->err ? -EBADMSG : 0;
}

static int read_strtab(struct profile *p, struct cursor *c)
{
	uint64_t first = cursor_varint(c), count = cursor_varint(c), i;
	char **grown;

	if (c->err || first != p->nstrs || count > (uint64_t)(c->end - c->p))
		return -EBADMSG;
	grown = realloc(p->strs, (p->nstrs + count + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->strs = grown;
	for (i = 0; i < count; i++) {
		char *s = cursor_str(c);

		if (!s)
			return -EBADMSG;
		p->strs[p->nstrs++] = s;
	}
	return 0;
}

static bool valid_str(const struct profile *p, uint64_t id)
{
	return id < p->nstrs;
}

static int read_ksyms(struct profile *p, struct cursor *c)
{
	uint64_t n = cursor_varint(c), i;

	for (i = 0; i < n && !c->err; i++) {
		uint64_t addr = cursor_varint(c), size = cursor_varint(c);
		uint64_t name = cursor_varint(c), module = cursor_varint(c);
		uint64_t type = cursor_varint(c);

		if (c->err || !valid_str(p, name) || !valid_str(p, module))
			return -EBADMSG;
		if (ksyms_add(&p->ksyms, addr, size, p->strs[name], p->strs[module], (char)type))
			return -ENOMEM;
	}
	return c->err ? -EBADMSG : 0;
}

static int read_one_stack(struct profile *p, struct cursor *c)
{
	int32_t id = (int32_t)cursor_svarint(c);
	uint64_t n = cursor_varint(c), prev = 0, i;
	struct stack *s;
	int inserted;

	if (c->err || n > MAX_FRAMES)
		return -EBADMSG;
	s = htab_get(&p->stacks, &id, &inserted);
	if (!s)
		return -ENOMEM;
	if (!inserted)
		return -EBADMSG;	/* a stack id is written once */
	s->frames = calloc(n ? n : 1, sizeof(*s->frames));
	if (!s->frames)
		return -ENOMEM;
	s->nframes = n;
	for (i = 0; i < n; i++) {
		prev += (uint64_t)cursor_svarint(c);
		s->frames[i] = prev;
	}
	return c->err ? -EBADMSG : 0;
}

static int read_stacks(struct profile *p, struct cursor *c)
{
	uint64_t n = cursor_varint(c), i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = read_one_stack(p, c);
	return err ? err : (c->err ? -EBADMSG : 0);
}

void lock_row_merge(struct lock_row_val *dst, const struct lock_row_val *src)
{
	size_t i;

	if (!src->count)
		return;
	if (!dst->count || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->count = sat_add(dst->count, src->count);
	dst->total_ns = sat_add(dst->total_ns, src->total_ns);
	dst->sumsq += src->sumsq;
	for (i = 0; i < LS_HIST_SLOTS; i++)
		dst->hist[i] = sat_add(dst->hist[i], src->hist[i]);
}

static int read_row_hist(struct cursor *c, struct lock_row_val *v)
{
	uint64_t n = cursor_varint(c), i;

	if (n > LS_HIST_SLOTS)
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		uint64_t slot = cursor_varint(c), count = cursor_varint(c);

		if (slot >= LS_HIST_SLOTS)
			return -EBADMSG;
		v->hist[slot] += count;
	}
	return c->err ? -EBADMSG : 0;
}

static int parse_row(const struct profile *p, struct cursor *c, struct lock_row_key *k,
		     struct lock_row_val *v)
{
	memset(k, 0, sizeof(*k));
	memset(v, 0, sizeof(*v));
	k->lock_addr = cursor_varint(c);
	k->flags = cursor_varint(c);
	k->stack_id = (int32_t)cursor_svarint(c);
	k->tgid = cursor_varint(c);
	k->tid = cursor_varint(c);
	k->name = cursor_varint(c);
	k->caller = cursor_varint(c);
	k->comm = cursor_varint(c);
	v->count = cursor_varint(c);
	v->total_ns = cursor_varint(c);
	v->min_ns = cursor_varint(c);
	v->max_ns = cursor_varint(c);
	if (c->err || !valid_str(p, k->name) || !valid_str(p, k->caller) || !valid_str(p, k->comm))
		return -EBADMSG;
	return read_row_hist(c, v);
}

static int merge_row(struct profile *p, const struct lock_row_key *k, const struct lock_row_val *v)
{
	struct lock_row_val *dst;

	if (!v->count)
		return 0;
	dst = htab_get(&p->rows, k, NULL);
	if (!dst)
		return -ENOMEM;
	lock_row_merge(dst, v);
	return 0;
}

/* How a row was sampled and how its waits ended (format 1.1, after the rows). */
struct row_sampling {
	uint64_t shift;
	uint64_t err;
	uint64_t sumsq_lo;
	uint64_t sumsq_hi;
};

#define MAX_ERRNO	4095

static int read_sampling(struct cursor *c, uint64_t n, struct row_sampling **out)
{
	uint64_t i, nx = cursor_varint(c);
	struct row_sampling *rs;

	if (c->err || nx != n || n > (uint64_t)(c->end - c->p))
		return -EBADMSG;
	rs = calloc(n ? n : 1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rs[i].shift = cursor_varint(c);
		rs[i].err = cursor_varint(c);
		rs[i].sumsq_lo = cursor_varint(c);
		rs[i].sumsq_hi = cursor_varint(c);
		if (c->err || rs[i].shift > LS_MAX_SHIFT || rs[i].err > MAX_ERRNO) {
			free(rs);
			return -EBADMSG;
		}
	}
	*out = rs;
	return 0;
}

/*
 * The rows are read twice: once to find what follows them, once to add
 * them up with it. Without it (format 1.0) *rs stays NULL.
 */
static int read_rows_sampling(const struct profile *p, struct cursor c, uint64_t n,
			      struct row_sampling **rs)
{
	struct lock_row_key k;
	struct lock_row_val v;
	uint64_t i;
	int err = 0;

	*rs = NULL;
	for (i = 0; i < n && !err; i++)
		err = parse_row(p, &c, &k, &v);
	if (err || c.p == c.end)
		return err;
	return read_sampling(&c, n, rs);
}

static void apply_sampling(const struct row_sampling *rs, struct lock_row_key *k, struct lock_row_val *v)
{
	k->shift = rs->shift;
	k->err = rs->err;
	v->sumsq = ldexp((double)rs->sumsq_hi, 64) + (double)rs->sumsq_lo;
}

static int read_lock_bucket(struct profile *p, struct cursor *c)
{
	uint64_t t0 = cursor_varint(c), t1 = cursor_varint(c), n = cursor_varint(c), i;
	struct row_sampling *rs;
	struct lock_row_key k;
	struct lock_row_val v;
	int err;

	if (c->err || t1 < t0 || n > (uint64_t)(c->end - c->p))
		return -EBADMSG;
	err = read_rows_sampling(p, *c, n, &rs);
	for (i = 0; i < n && !err; i++) {
		err = parse_row(p, c, &k, &v);
		if (!err && rs)
			apply_sampling(&rs[i], &k, &v);
		if (!err)
			err = merge_row(p, &k, &v);
	}
	if (rs)
		p->lock_sampling = true;
	free(rs);
	if (err)
		return err;
	p->nbuckets++;
	if (t1 > p->last_bucket_end_ns)
		p->last_bucket_end_ns = t1;
	return 0;
}

/* A bucket of rows (LOCKSTAT, SAMPLES): its time span, then the rows. */
static int read_bucket(struct profile *p, struct cursor *c,
		       int (*read_one)(struct profile *, struct cursor *), uint64_t *nbuckets)
{
	uint64_t t0 = cursor_varint(c), t1 = cursor_varint(c);
	uint64_t n = cursor_varint(c), i;
	int err = 0;

	if (c->err || t1 < t0)
		return -EBADMSG;
	for (i = 0; i < n && !err; i++)
		err = read_one(p, c);
	if (err)
		return err;
	(*nbuckets)++;
	if (t1 > p->last_bucket_end_ns)
		p->last_bucket_end_ns = t1;
	return c->err ? -EBADMSG : 0;
}

static int read_sample_row(struct profile *p, struct cursor *c)
{
	struct sample_row_key k = { 0 };
	uint64_t count, *dst;

	k.tgid = cursor_varint(c);
	k.tid = cursor_varint(c);
	k.comm = cursor_varint(c);
	k.kstack = (int32_t)cursor_svarint(c);
	k.ustack = (int32_t)cursor_svarint(c);
	count = cursor_varint(c);
	if (c->err || !valid_str(p, k.comm))
		return -EBADMSG;
	if (!count)
		return 0;
	dst = htab_get(&p->samples, &k, NULL);
	if (!dst)
		return -ENOMEM;
	*dst += count;
	return 0;
}


static int read_one_mapping(struct profile *p, struct cursor *c, struct mapping *m)
{
	uint64_t bid_len;

	m->tgid = cursor_varint(c);
	m->start = cursor_varint(c);
	m->end = cursor_varint(c);
	m->pgoff = cursor_varint(c);
	m->path = cursor_varint(c);
	bid_len = cursor_varint(c);
	if (c->err || !valid_str(p, m->path) || bid_len > sizeof(m->build_id) ||
	    bid_len > (uint64_t)(c->end - c->p) || m->end < m->start)
		return -EBADMSG;
	memcpy(m->build_id, c->p, bid_len);
	m->build_id_len = bid_len;
	c->p += bid_len;
	return 0;
}

static int read_mappings(struct profile *p, struct cursor *c)
{
	uint64_t n = cursor_varint(c), i;
	struct mapping *grown;

	if (c->err || n > (uint64_t)(c->end - c->p))
		return -EBADMSG;
	grown = realloc(p->maps, (p->nmaps + n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->maps = grown;
	for (i = 0; i < n; i++) {
		if (read_one_mapping(p, c, &p->maps[p->nmaps]))
			return -EBADMSG;
		p->nmaps++;
	}
	return 0;
}

static int read_uframes(struct profile *p, struct cursor *c, struct usym_val *v)
{
	uint64_t n = cursor_varint(c), i;
	struct ufile_frame *grown;

	if (c->err || n > USYM_MAX_FRAMES)
		return -EBADMSG;
	grown = realloc(p->uframes, (p->nuframes + n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->uframes = grown;
	v->first = p->nuframes;
	v->nframes = n;
	for (i = 0; i < n; i++) {
		struct ufile_frame *f = &p->uframes[p->nuframes++];

		f->function = cursor_varint(c);
		f->file = cursor_varint(c);
		f->line = cursor_varint(c);
		if (c->err || !valid_str(p, f->function) || !valid_str(p, f->file))
			return -EBADMSG;
	}
	return 0;
}

static int read_usyms(struct profile *p, struct cursor *c)
{
	uint64_t n = cursor_varint(c), i;
	int err = 0;

	for (i = 0; i < n && !err && !c->err; i++) {
		struct usym_key k = { 0 };
		struct usym_val v = { 0 }, *dst;

		k.tgid = cursor_varint(c);
		k.addr = cursor_varint(c);
		v.why = cursor_varint(c);
		v.module = cursor_varint(c);
		v.func_addr = cursor_varint(c);
		if (c->err || !valid_str(p, v.module))
			return -EBADMSG;
		err = read_uframes(p, c, &v);
		if (!err && !(dst = htab_get(&p->usyms, &k, NULL)))
			err = -ENOMEM;
		if (!err)
			*dst = v;
	}
	return err ? err : (c->err ? -EBADMSG : 0);
}

/* Where the family table's columns are in t, found by name: files of any version. */
static int map_ls_columns(struct ptable *t)
{
	const struct tschema *s;
	uint32_t i;

	t->ls_id = ls_table_of(t->name);
	if (t->ls_id < 0)
		return 0;
	s = ls_schema(t->ls_id);
	t->lcol = calloc(s->ncols, sizeof(*t->lcol));
	if (!t->lcol)
		return -ENOMEM;
	for (i = 0; i < s->ncols; i++)
		t->lcol[i] = ptable__col(t, s->cols[i].name);
	return 0;
}

/* The table's schema: a new table, or the same columns as before. */
static struct ptable *table_schema(struct profile *p, struct cursor *c)
{
	uint64_t name = cursor_varint(c), ncols = cursor_varint(c), i;
	uint64_t cols[TABLE_MAX_COLS], kinds[TABLE_MAX_COLS];
	struct ptable *t = NULL;
	uint32_t nkeys = 0;
	size_t j;

	if (c->err || !valid_str(p, name) || !ncols || ncols > TABLE_MAX_COLS)
		return NULL;
	for (i = 0; i < ncols; i++) {
		cols[i] = cursor_varint(c);
		kinds[i] = cursor_varint(c);
		if (c->err || !valid_str(p, cols[i]) || !tcol_kind_valid(kinds[i]))
			return NULL;
		nkeys += tcol_is_key(kinds[i]);
	}
	for (j = 0; j < p->ntables; j++)
		if (!strcmp(p->tables[j].name, p->strs[name]))
			t = &p->tables[j];
	if (t) {
		if (t->ncols != ncols)
			return NULL;
		for (i = 0; i < ncols; i++)
			if (t->kinds[i] != kinds[i] || strcmp(t->cols[i], p->strs[cols[i]]))
				return NULL;
		return t;
	}
	t = realloc(p->tables, (p->ntables + 1) * sizeof(*t));
	if (!t)
		return NULL;
	p->tables = t;
	t = memset(&p->tables[p->ntables], 0, sizeof(*t));
	t->name = strdup(p->strs[name]);
	t->cols = calloc(ncols, sizeof(*t->cols));
	t->kinds = calloc(ncols, 1);
	htab_init(&t->rows, (nkeys ? nkeys : 1) * sizeof(uint64_t), ncols * sizeof(uint64_t));
	p->ntables++;	/* from here on freed with the profile */
	if (!t->name || !t->cols || !t->kinds)
		return NULL;
	t->ncols = ncols;
	t->nkeys = nkeys;
	for (i = 0; i < ncols; i++) {
		t->cols[i] = strdup(p->strs[cols[i]]);
		t->kinds[i] = kinds[i];
		if (!t->cols[i])
			return NULL;
	}
	return map_ls_columns(t) ? NULL : t;
}

static int read_table_row(struct profile *p, struct ptable *t, struct cursor *c)
{
	uint64_t v[TABLE_MAX_COLS], key[TABLE_MAX_COLS] = { 0 }, *dst;
	uint32_t i, k = 0;

	for (i = 0; i < t->ncols; i++) {
		if (t->kinds[i] == TCOL_KEY_KSTACK || t->kinds[i] == TCOL_KEY_USTACK) {
			int32_t id = (int32_t)cursor_svarint(c);

			if (id >= 0 && !profile__stack(p, id))
				return -EBADMSG;
			v[i] = (uint64_t)(int64_t)id;
		} else {
			v[i] = cursor_varint(c);
		}
		if (c->err || (t->kinds[i] == TCOL_KEY_STR && !valid_str(p, v[i])))
			return -EBADMSG;
		if (tcol_is_key(t->kinds[i]))
			key[k++] = v[i];
	}
	dst = htab_get(&t->rows, key, NULL);
	if (!dst)
		return -ENOMEM;
	for (i = 0; i < t->ncols; i++)
		if (tcol_is_key(t->kinds[i]))
			dst[i] = v[i];
	trow_merge(dst, v, t->kinds, t->ncols);
	return 0;
}

static int read_table(struct profile *p, struct cursor *c)
{
	uint64_t t0 = cursor_varint(c), t1 = cursor_varint(c), n, i;
	struct ptable *t;
	int err = 0;

	if (c->err || t1 < t0 || !(t = table_schema(p, c)))
		return -EBADMSG;
	n = cursor_varint(c);
	for (i = 0; i < n && !err && !c->err; i++)
		err = read_table_row(p, t, c);
	if (err || c->err)
		return err ? err : -EBADMSG;
	t->nbuckets++;
	if (t1 > p->last_bucket_end_ns)
		p->last_bucket_end_ns = t1;
	return 0;
}

const struct ptable *profile__table(const struct profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ntables; i++)
		if (!strcmp(p->tables[i].name, name))
			return &p->tables[i];
	return NULL;
}

int ptable__col(const struct ptable *t, const char *name)
{
	uint32_t i;

	for (i = 0; t && i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return i;
	return -1;
}

const struct ptable *profile__ltable(const struct profile *p, enum ls_table id)
{
	size_t i;

	for (i = 0; i < p->ntables; i++)
		if (p->tables[i].ls_id == (int)id)
			return &p->tables[i];
	return NULL;
}

int ptable__lcol(const struct ptable *t, enum ls_table id, unsigned int col)
{
	if (!t || t->ls_id != (int)id || !t->lcol || col >= ls_schema(id)->ncols)
		return -1;
	return t->lcol[col];
}

const char *profile__caller(const struct profile *p, int32_t stack_id, char *buf, size_t len)
{
	const struct stack *s = stack_id >= 0 ? profile__stack(p, stack_id) : NULL;
	uint32_t i;

	snprintf(buf, len, "%s", s ? "[unknown]" : "[no stack]");
	for (i = 0; s && i < s->nframes; i++) {
		if (ksyms_is_lock_function(&p->ksyms, s->frames[i]))
			continue;
		ksyms_format(&p->ksyms, s->frames[i], buf, len);
		break;
	}
	return buf;
}

static int read_end(struct profile *p, struct cursor *c)
{
	p->end_duration_ns = cursor_varint(c);
	p->end_exit_status = cursor_svarint(c);
	p->end_flags = cursor_varint(c);
	if (c->err)
		return -EBADMSG;
	p->has_end = true;
	return 0;
}

static int read_chunk(struct profile *p, const struct store_chunk *ch)
{
	struct cursor c;

	cursor_init(&c, ch->payload, ch->len);
	switch (ch->type) {
	case CHUNK_META:
		return read_kv(&c, &p->meta, &p->nmeta);
	case CHUNK_LOST:
		return read_kv(&c, &p->lost, &p->nlost);
	case CHUNK_STRTAB:
		return read_strtab(p, &c);
	case CHUNK_KSYMS:
		return read_ksyms(p, &c);
	case CHUNK_STACKS:
		return read_stacks(p, &c);
	case CHUNK_LOCKSTAT:
		return read_lock_bucket(p, &c);
	case CHUNK_END:
		return read_end(p, &c);
	case CHUNK_SAMPLES:
		return read_bucket(p, &c, read_sample_row, &p->nsample_buckets);
	case CHUNK_MAPPING:
		return read_mappings(p, &c);
	case CHUNK_USYMS:
		return read_usyms(p, &c);
	case CHUNK_TABLE:
		return read_table(p, &c);
	default:
		return (ch->flags & CHUNK_F_CRITICAL) ? -EPROTONOSUPPORT : 0;
	}
}

static int walk(struct profile *p, const struct store_file *f, char *errmsg, size_t errlen)
{
	uint64_t pos = f->hdr.header_len;
	struct store_chunk ch;
	enum walk_status st;
	int err;

	while ((st = store_next_chunk(f, &pos, &ch)) == WALK_CHUNK) {
		err = read_chunk(p, &ch);
		if (err == -EPROTONOSUPPORT) {
			snprintf(errmsg, errlen, "chunk type %" PRIu32 " at byte %" PRIu64 " is critical and unknown: it needs a newer lockstat", ch.type, ch.offset);
			return err;
		}
		if (err) {
			snprintf(errmsg, errlen, "malformed %s chunk at byte %" PRIu64, chunk_type_name(ch.type), ch.offset);
			return err;
		}
	}
	p->stop = st;
	p->stop_offset = pos;
	ksyms_sort(&p->ksyms);
	return 0;
}

static struct profile *profile_new(void);

struct profile *profile__new(const struct store_header *hdr)
{
	struct profile *p = profile_new();

	if (p)
		p->hdr = *hdr;
	return p;
}

int profile__add_chunk(struct profile *p, const struct store_chunk *ch, char *errmsg, size_t errlen)
{
	int err = read_chunk(p, ch);

	if (err == -EPROTONOSUPPORT)
		snprintf(errmsg, errlen, "chunk type %" PRIu32 " at byte %" PRIu64 " is critical and unknown: it needs a newer lockstat", ch->type, ch->offset);
	else if (err)
		snprintf(errmsg, errlen, "malformed %s chunk at byte %" PRIu64, chunk_type_name(ch->type), ch->offset);
	else if (ch->type == CHUNK_KSYMS)
		ksyms_sort(&p->ksyms);
	return err;
}

/* Value columns back to nothing: 0 is none for SUM, MAX and MIN alike. */
static void ptable_clear_values(struct ptable *t)
{
	uint64_t *row;
	size_t it = 0;
	uint32_t i;

	while ((row = htab_next(&t->rows, &it, NULL)))
		for (i = 0; i < t->ncols; i++)
			if (!tcol_is_key(t->kinds[i]))
				row[i] = 0;
	t->nbuckets = 0;
}

void profile__clear_counts(struct profile *p)
{
	size_t i;

	htab_free(&p->rows);
	htab_init(&p->rows, sizeof(struct lock_row_key), sizeof(struct lock_row_val));
	htab_free(&p->samples);
	htab_init(&p->samples, sizeof(struct sample_row_key), sizeof(uint64_t));
	for (i = 0; i < p->ntables; i++)
		ptable_clear_values(&p->tables[i]);
	p->nbuckets = 0;
	p->nsample_buckets = 0;
}

static struct profile *profile_new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	htab_init(&p->stacks, sizeof(int32_t), sizeof(struct stack));
	htab_init(&p->rows, sizeof(struct lock_row_key), sizeof(struct lock_row_val));
	htab_init(&p->samples, sizeof(struct sample_row_key), sizeof(uint64_t));
	htab_init(&p->usyms, sizeof(struct usym_key), sizeof(struct usym_val));
	ksyms_init(&p->ksyms);
	return p;
}

static int read_file(struct store_file *f, struct profile **pp, char *errmsg, size_t errlen)
{
	struct profile *p;
	const char *why = NULL;
	int err;

	err = store_parse(f, &why);
	if (err) {
		snprintf(errmsg, errlen, "%s", why);
		return err;
	}
	p = profile_new();
	if (!p)
		return -ENOMEM;
	p->hdr = f->hdr;
	err = walk(p, f, errmsg, errlen);
	if (err) {
		profile__free(p);
		return err;
	}
	*pp = p;
	return 0;
}

int profile__read_mem(const void *data, size_t size, struct profile **pp, char *errmsg, size_t errlen)
{
	struct store_file f = { .data = (uint8_t *)data, .size = size };

	return read_file(&f, pp, errmsg, errlen);
}

int profile__read(const char *path, struct profile **pp, char *errmsg, size_t errlen)
{
	struct store_file f;
	const char *why;
	int err;

	err = store_open(path, &f, &why);
	if (err) {
		snprintf(errmsg, errlen, "%s", why ? why : strerror(-err));
		return err;
	}
	err = read_file(&f, pp, errmsg, errlen);
	store_close(&f);
	return err;
}

void profile__free(struct profile *p)
{
	size_t it = 0, i;
	struct stack *s;

	if (!p)
		return;
	while ((s = htab_next(&p->stacks, &it, NULL)))
		free(s->frames);
	htab_free(&p->stacks);
	htab_free(&p->rows);
	htab_free(&p->samples);
	htab_free(&p->usyms);
	for (i = 0; i < p->ntables; i++) {
		struct ptable *t = &p->tables[i];

		for (it = 0; it < t->ncols; it++)
			free(t->cols[it]);
		free(t->cols);
		free(t->kinds);
		free(t->lcol);
		free(t->name);
		htab_free(&t->rows);
	}
	free(p->tables);
	free(p->maps);
	free(p->uframes);
	ksyms_free(&p->ksyms);
	kv_free(p->meta, p->nmeta);
	kv_free(p->lost, p->nlost);
	for (i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p);
}

const char *profile__meta(const struct profile *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nmeta; i++)
		if (!strcmp(p->meta[i].key, key))
			return p->meta[i].value;
	return NULL;
}

const char *profile__meta_or(const struct profile *p, const char *key, const char *dflt)
{
	const char *v = profile__meta(p, key);

	return v && *v ? v : dflt;
}

int profile__meta_u64(const struct profile *p, const char *key, uint64_t *v)
{
	const char *s = profile__meta(p, key);
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 10);
	return *end ? -1 : 0;
}

const char *profile__str(const struct profile *p, uint32_t id)
{
	return id < p->nstrs ? p->strs[id] : "";
}

uint64_t profile__duration_ns(const struct profile *p)
{
	return p->has_end ? p->end_duration_ns : p->last_bucket_end_ns;
}

const struct stack *profile__stack(const struct profile *p, int32_t id)
{
	return htab_find(&p->stacks, &id);
}

const struct usym_val *profile__usym(const struct profile *p, uint32_t tgid, uint64_t addr)
{
	struct usym_key k = { .tgid = tgid, .addr = addr };

	return htab_find(&p->usyms, &k);
}

const struct mapping *profile__mapping(const struct profile *p, uint32_t tgid, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].tgid == tgid && addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

const char *usym_why_str(uint32_t why)
{
	static const char *const names[USYM__COUNT] = {
		[USYM_OK] = "resolved", [USYM_NO_FILE] = "file gone or unreadable",
		[USYM_BUILD_ID_MISMATCH] = "build id mismatch", [USYM_NOT_ELF] = "not ELF",
		[USYM_NO_SYMTAB] = "no symbol table", [USYM_NO_SYMBOL] = "no symbol",
		[USYM_NO_MAPPING] = "no mapping", [USYM_JIT_NO_MAP] = "JIT without perf map",
		[USYM_NO_STACK] = "no user stack",
	};

	return why < USYM__COUNT ? names[why] : "unknown";
}
