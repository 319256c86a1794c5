// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pprof's profile.proto (github.com/google/pprof, proto/profile.proto),
 * gzip-compressed, as pprof reads it.
 *
 * The protobuf is encoded by hand on top of lib/base/buf.h (whose varints are
 * protobuf's) rather than with protobuf-c: there is one message type with
 * about ten fields, it is only written, never decoded, and protobuf-c
 * would bring a code generator into the build and one more library into
 * every static link for what is a hundred lines of tags and varints.
 *
 * Repeated fields of the Profile may be interleaved on the wire, so every
 * Location and Function is encoded as soon as it is made, into a buffer
 * of its own; mappings wait for the end, when their address range (the
 * kernel's) and symbol flags are known. A Sample is its locations and
 * labels, encoded once, and its values: the samples of several profiles
 * (serve's windows, which span segments) add up into one when those are
 * the same.
 */
#include <errno.h>
#include "base/buf.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "format/locktype.h"
#include "out/pprof.h"

/* Field numbers of profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3 };
enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4 };

#define WIRE_VARINT	0
#define WIRE_LEN	2

#define PP_MAX_FRAMES	1024	/* per stack, as the profile reader allows */
#define KERNEL_MAPPING	"[kernel.kallsyms]"

/* --- wire format -------------------------------------------------------------- */

static void pb_key(struct buf *b, uint32_t field, uint32_t wire)
{
	buf_put_varint(b, (uint64_t)field << 3 | wire);
}

/* proto3 leaves a zero scalar out; int64 fields are plain varints, not zigzag. */
static void pb_varint(struct buf *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	buf_put_varint(b, v);
}

static void pb_bytes(struct buf *b, uint32_t field, const void *p, size_t n)
{
	pb_key(b, field, WIRE_LEN);
	buf_put_varint(b, n);
	buf_put(b, p, n);
}

/* A nested message is encoded into m first: its length goes before it. */
static void pb_msg(struct buf *b, uint32_t field, struct buf *m)
{
	pb_bytes(b, field, m->data, m->len);
	b->oom |= m->oom;
	buf_reset(m);
}

/* --- the builder ---------------------------------------------------------------- */

struct pp_mapping {
	uint64_t start;
	uint64_t limit;
	uint64_t offset;
	int64_t file;		/* string indexes */
	int64_t build_id;
	bool functions;
	bool filenames;
	bool lines;
	bool inlines;
};

struct pp_str_key {		/* a string's hash, and which of its collisions */
	uint64_t hash;
	uint32_t probe;
	uint32_t __pad;
};

struct pp_func_key {
	int64_t name;
	int64_t file;
};

/* A location: an address in a mapping, or a named pseudo-frame. */
struct pp_loc_key {
	uint64_t mapping;
	uint64_t addr;
	uint32_t tgid;		/* a user PC outside every captured mapping */
	uint32_t pseudo;	/* name of a frame that stands for a missing stack */
};

struct pp_map_key {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint32_t path;
	uint32_t build_id_len;
	uint8_t build_id[20];
	uint32_t __pad;
};

struct pp_line {
	uint64_t function;
	int64_t line;
};

struct pp_ident_key {		/* a sample's locations and labels: their hash, and which collision */
	uint64_t hash;
	uint32_t probe;
	uint32_t __pad;
};

struct pp_sample {
	size_t off;		/* its encoded locations and labels, in pprof.idents */
	size_t len;
	int64_t vals[2];
};

struct pprof {
	const struct profile *p;	/* the one being added */
	bool locks;
	struct buf locs;	/* encoded repeated fields, in order made */
	struct buf funcs;
	struct buf msg;		/* the message being built */
	struct buf sub;		/* a message nested in it */
	char **strs;
	size_t nstrs;
	size_t strs_cap;
	struct htab str_ids;	/* pp_str_key -> index + 1 */
	struct htab func_ids;	/* pp_func_key -> id */
	struct htab loc_ids;	/* pp_loc_key -> id */
	struct htab pc_locs;	/* usym_key -> location id of a user PC */
	struct htab map_ids;	/* pp_map_key -> id */
	uint64_t nfuncs;
	uint64_t nlocs;
	struct pp_mapping *maps;	/* id - 1 */
	size_t nmaps;
	size_t maps_cap;
	uint64_t kernel_map;	/* id, 0 until a kernel frame is seen */
	unsigned long freq;	/* samples per second, 0 when unknown */
	struct buf idents;	/* every sample's locations and labels, back to back */
	struct pp_sample *samples;
	size_t nsamples, samples_cap;
	struct htab ident_ids;	/* pp_ident_key -> index + 1 into samples */
	size_t max_samples;	/* 0: no limit */
	bool full;		/* max_samples reached: nothing new but the overflow */
	uint64_t overflow_loc;	/* the location that stands for what did not fit */
	int64_t overflow_str;
	int64_t comments[3];	/* strings: command, kernel and hostname of the profiles added */
	int64_t program;	/* string: the recorded command's program, 0 when none */
	bool oom;
};


/* The string table index of s, added on first use. */
static int64_t pp_str(struct pprof *pp, const char *s)
{
	struct pp_str_key k = { .hash = hash_bytes(s, strlen(s)) };
	uint64_t *slot;

	for (;; k.probe++) {
		slot = htab_get(&pp->str_ids, &k, NULL);
		if (!slot)
			goto oom;
		if (!*slot)
			break;
		if (!strcmp(pp->strs[*slot - 1], s))
			return *slot - 1;
	}
	if (pp->full)
		return pp->overflow_str;
	if (grow_array((void **)&pp->strs, &pp->strs_cap, pp->nstrs + 1, sizeof(*pp->strs)))
		goto oom;
	pp->strs[pp->nstrs] = strdup(s);
	if (!pp->strs[pp->nstrs])
		goto oom;
	*slot = ++pp->nstrs;
	return pp->nstrs - 1;
oom:
	pp->oom = true;
	return 0;
}

static void pp_init(struct pprof *pp, bool locks, size_t max_samples)
{
	memset(pp, 0, sizeof(*pp));
	pp->locks = locks;
	pp->max_samples = max_samples;
	htab_init(&pp->str_ids, sizeof(struct pp_str_key), sizeof(uint64_t));
	htab_init(&pp->func_ids, sizeof(struct pp_func_key), sizeof(uint64_t));
	htab_init(&pp->loc_ids, sizeof(struct pp_loc_key), sizeof(uint64_t));
	htab_init(&pp->pc_locs, sizeof(struct usym_key), sizeof(uint64_t));
	htab_init(&pp->map_ids, sizeof(struct pp_map_key), sizeof(uint64_t));
	htab_init(&pp->ident_ids, sizeof(struct pp_ident_key), sizeof(uint64_t));
	pp_str(pp, "");	/* index 0 must be the empty string */
}

static void pp_free(struct pprof *pp)
{
	size_t i;

	for (i = 0; i < pp->nstrs; i++)
		free(pp->strs[i]);
	free(pp->strs);
	free(pp->maps);
	htab_free(&pp->str_ids);
	htab_free(&pp->func_ids);
	htab_free(&pp->loc_ids);
	htab_free(&pp->pc_locs);
	htab_free(&pp->map_ids);
	htab_free(&pp->ident_ids);
	buf_free(&pp->idents);
	free(pp->samples);
	buf_free(&pp->locs);
	buf_free(&pp->funcs);
	buf_free(&pp->msg);
	buf_free(&pp->sub);
}

static bool pp_failed(const struct pprof *pp)
{
	return pp->oom || pp->idents.oom || pp->locs.oom || pp->funcs.oom;
}

/* --- functions, mappings, locations ---------------------------------------------- */

/* One Function per name and file. */
static uint64_t pp_function(struct pprof *pp, const char *name, const char *file)
{
	struct pp_func_key k = { pp_str(pp, name), pp_str(pp, file) };
	uint64_t *id;
	int inserted;

	id = htab_get(&pp->func_ids, &k, &inserted);
	if (!id) {
		pp->oom = true;
		return 0;
	}
	if (!inserted)
		return *id;
	*id = ++pp->nfuncs;
	pb_varint(&pp->msg, FUNCTION_ID, *id);
	pb_varint(&pp->msg, FUNCTION_NAME, k.name);
	pb_varint(&pp->msg, FUNCTION_SYSTEM_NAME, k.name);
	pb_varint(&pp->msg, FUNCTION_FILENAME, k.file);
	pb_msg(&pp->funcs, PROFILE_FUNCTION, &pp->msg);
	return *id;
}

static uint64_t new_mapping(struct pprof *pp, const struct pp_mapping *m)
{
	if (grow_array((void **)&pp->maps, &pp->maps_cap, pp->nmaps + 1, sizeof(*pp->maps))) {
		pp->oom = true;
		return 0;
	}
	pp->maps[pp->nmaps++] = *m;
	return pp->nmaps;
}

/* pprof wants build ids as text: lower-case hex, as `file` and perf print them. */
static int64_t build_id_str(struct pprof *pp, const struct mapping *m)
{
	char hex[2 * sizeof(m->build_id) + 1] = "";
	uint32_t i;

	for (i = 0; i < m->build_id_len && i < sizeof(m->build_id); i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	return pp_str(pp, hex);
}

/* The same file mapped alike by several processes is one Mapping. */
static uint64_t user_mapping(struct pprof *pp, const struct mapping *m)
{
	struct pp_map_key k;
	struct pp_mapping pm = { .start = m->start, .limit = m->end, .offset = m->pgoff };
	uint64_t *id;
	int inserted;

	memset(&k, 0, sizeof(k));
	k.start = m->start;
	k.end = m->end;
	k.pgoff = m->pgoff;
	/* The pprof string, not the profile's: the same in every profile added. */
	k.path = (uint32_t)pp_str(pp, profile__str(pp->p, m->path));
	k.build_id_len = m->build_id_len;
	memcpy(k.build_id, m->build_id, sizeof(k.build_id));
	id = htab_get(&pp->map_ids, &k, &inserted);
	if (!id) {
		pp->oom = true;
		return 0;
	}
	if (!inserted)
		return *id;
	pm.file = k.path;
	pm.build_id = build_id_str(pp, m);
	*id = new_mapping(pp, &pm);
	return *id;
}

/* One Mapping for the kernel and its modules, as wide as the PCs seen. */
static uint64_t kernel_mapping(struct pprof *pp, uint64_t pc)
{
	struct pp_mapping pm = { .start = pc, .limit = pc + 1, .functions = true };
	struct pp_mapping *m;

	if (!pp->kernel_map) {
		pm.file = pp_str(pp, KERNEL_MAPPING);
		pp->kernel_map = new_mapping(pp, &pm);
		return pp->kernel_map;
	}
	m = &pp->maps[pp->kernel_map - 1];
	if (pc < m->start)
		m->start = pc;
	if (pc >= m->limit && pc != UINT64_MAX)
		m->limit = pc + 1;
	return pp->kernel_map;
}

/* The id of k's location; *fresh when it is new and must be described now. */
static uint64_t loc_id(struct pprof *pp, const struct pp_loc_key *k, bool *fresh)
{
	uint64_t *id;
	int inserted;

	*fresh = false;
	if (pp->full) {
		id = htab_find(&pp->loc_ids, k);
		return id ? *id : pp->overflow_loc;
	}
	id = htab_get(&pp->loc_ids, k, &inserted);
	if (!id) {
		pp->oom = true;
		return 0;
	}
	if (inserted) {
		*id = ++pp->nlocs;
		*fresh = true;
	}
	return *id;
}

/* lines[0] is the innermost inline frame, as profile.proto wants. */
static void loc_emit(struct pprof *pp, uint64_t id, const struct pp_loc_key *k,
		     const struct pp_line *lines, int n)
{
	int i;

	pb_varint(&pp->msg, LOCATION_ID, id);
	pb_varint(&pp->msg, LOCATION_MAPPING_ID, k->mapping);
	pb_varint(&pp->msg, LOCATION_ADDRESS, k->addr);
	for (i = 0; i < n; i++) {
		pb_varint(&pp->sub, LINE_FUNCTION_ID, lines[i].function);
		pb_varint(&pp->sub, LINE_LINE, lines[i].line);
		pb_msg(&pp->msg, LOCATION_LINE, &pp->sub);
	}
	pb_msg(&pp->locs, PROFILE_LOCATION, &pp->msg);
}

static uint64_t kernel_loc(struct pprof *pp, uint64_t pc)
{
	struct pp_loc_key k = { .mapping = kernel_mapping(pp, pc), .addr = pc };
	const struct ksym *sym;
	struct pp_line line = { 0 };
	bool fresh;
	uint64_t id = loc_id(pp, &k, &fresh);

	if (!fresh)
		return id;
	/* Without a symbol the location keeps its address, which pprof shows. */
	sym = ksyms_find(&pp->p->ksyms, pc);
	if (sym)
		line.function = pp_function(pp, sym->name, "");
	loc_emit(pp, id, &k, &line, sym ? 1 : 0);
	return id;
}

/* The recorded symbols of a user PC; the mapping's flags say what they hold. */
static int user_lines(struct pprof *pp, const struct usym_val *u, uint64_t map_id,
		      struct pp_line *lines)
{
	struct pp_mapping *m;
	uint32_t j;
	int n = 0;

	for (j = 0; u && j < u->nframes && j < USYM_MAX_FRAMES; j++) {
		const struct ufile_frame *f = &pp->p->uframes[u->first + j];
		const char *name = profile__str(pp->p, f->function);
		const char *file = profile__str(pp->p, f->file);

		if (!*name)
			continue;
		lines[n++] = (struct pp_line){ pp_function(pp, name, file), f->line };
		if (!map_id || pp->oom)
			continue;
		m = &pp->maps[map_id - 1];
		m->functions = true;
		m->filenames |= *file != '\0';
		m->lines |= f->line != 0;
		m->inlines |= n > 1;
	}
	return n;
}

static uint64_t user_loc_new(struct pprof *pp, uint32_t tgid, uint64_t pc)
{
	const struct mapping *m = profile__mapping(pp->p, tgid, pc);
	struct pp_loc_key k = { .mapping = m ? user_mapping(pp, m) : 0, .addr = pc,
				.tgid = m ? 0 : tgid };
	struct pp_line lines[USYM_MAX_FRAMES];
	bool fresh;
	uint64_t id = loc_id(pp, &k, &fresh);
	int n;

	if (!fresh)
		return id;
	n = user_lines(pp, profile__usym(pp->p, tgid, pc), k.mapping, lines);
	loc_emit(pp, id, &k, lines, n);
	return id;
}

/* User PCs are looked up per process first: finding a mapping is a scan. */
static uint64_t user_loc(struct pprof *pp, uint32_t tgid, uint64_t pc)
{
	struct usym_key pk = { .tgid = tgid, .addr = pc };
	uint64_t *cached, id;
	int inserted;

	cached = htab_get(&pp->pc_locs, &pk, &inserted);
	if (!cached) {
		pp->oom = true;
		return 0;
	}
	if (!inserted)
		return *cached;
	id = user_loc_new(pp, tgid, pc);
	cached = htab_find(&pp->pc_locs, &pk);
	if (cached)
		*cached = id;
	return id;
}

/* A frame that stands for a stack the profile does not have ("[stack lost]"). */
static uint64_t pseudo_loc(struct pprof *pp, const char *name)
{
	struct pp_loc_key k = { .pseudo = (uint32_t)pp_str(pp, *name ? name : "[unknown]") };
	struct pp_line line = { 0 };
	bool fresh;
	uint64_t id = loc_id(pp, &k, &fresh);

	if (!fresh)
		return id;
	line.function = pp_function(pp, pp->strs[k.pseudo], "");
	loc_emit(pp, id, &k, &line, 1);
	return id;
}

/* --- samples -------------------------------------------------------------------- */

static void sample_begin(struct pprof *pp, const uint64_t *locs, int nlocs)
{
	int i;

	for (i = 0; i < nlocs; i++)
		buf_put_varint(&pp->sub, locs[i]);
	if (nlocs)
		pb_msg(&pp->msg, SAMPLE_LOCATION_ID, &pp->sub);
}

static void label_str(struct pprof *pp, const char *key, const char *s)
{
	if (!s || !*s)
		return;
	pb_varint(&pp->sub, LABEL_KEY, pp_str(pp, key));
	pb_varint(&pp->sub, LABEL_STR, pp_str(pp, s));
	pb_msg(&pp->msg, SAMPLE_LABEL, &pp->sub);
}

/* A zero would read back as no label at all: leave it out. */
static void label_num(struct pprof *pp, const char *key, int64_t v)
{
	if (!v)
		return;
	pb_varint(&pp->sub, LABEL_KEY, pp_str(pp, key));
	pb_varint(&pp->sub, LABEL_NUM, (uint64_t)v);
	pb_msg(&pp->msg, SAMPLE_LABEL, &pp->sub);
}

/* The sample with these locations and labels (pp->msg), made when new and add; else NULL. */
static struct pp_sample *sample_of(struct pprof *pp, bool add)
{
	struct pp_ident_key k = { .hash = hash_bytes(pp->msg.data, pp->msg.len) };
	struct pp_sample *sm;
	uint64_t *slot;

	for (;; k.probe++) {
		slot = htab_get(&pp->ident_ids, &k, NULL);
		if (!slot || !*slot)
			break;
		sm = &pp->samples[*slot - 1];
		if (sm->len == pp->msg.len && !memcmp(pp->idents.data + sm->off, pp->msg.data, sm->len))
			return sm;
	}
	if (!add)
		return NULL;
	if (!slot || grow_array((void **)&pp->samples, &pp->samples_cap, pp->nsamples + 1, sizeof(*sm))) {
		pp->oom = true;
		return NULL;
	}
	sm = &pp->samples[pp->nsamples];
	*sm = (struct pp_sample){ .off = pp->idents.len, .len = pp->msg.len };
	buf_put(&pp->idents, pp->msg.data, pp->msg.len);
	*slot = ++pp->nsamples;
	return sm;
}

/* What no longer fits: one sample, on a frame that says so. */
static struct pp_sample *overflow_sample(struct pprof *pp, bool add)
{
	buf_reset(&pp->msg);
	buf_put_varint(&pp->sub, pp->overflow_loc);
	pb_msg(&pp->msg, SAMPLE_LOCATION_ID, &pp->sub);
	return sample_of(pp, add);
}

/*
 * At max_samples, the overflow frame and its sample are made, and from
 * then on nothing new is: no sample, location, function nor string.
 */
static void check_full(struct pprof *pp)
{
	const char *what = "[more stacks than lockstat keeps]";

	if (!pp->max_samples || pp->full || pp->nsamples < pp->max_samples)
		return;
	pp->overflow_str = pp_str(pp, what);
	pp->overflow_loc = pseudo_loc(pp, what);
	overflow_sample(pp, true);
	buf_reset(&pp->msg);
	pp->full = true;
}

static void sample_end(struct pprof *pp, const int64_t *vals, int nvals)
{
	struct pp_sample *sm = sample_of(pp, !pp->full);
	int i;

	if (!sm && pp->full && !pp->oom)
		sm = overflow_sample(pp, false);
	if (!sm) {
		pp->oom = true;
		return;
	}
	for (i = 0; i < nvals && i < 2; i++)
		sm->vals[i] += vals[i];
	buf_reset(&pp->msg);
	buf_reset(&pp->sub);
}

/* count x the sampling period, rounded: plain arithmetic, the tool links no libm. */
static int64_t cpu_ns(uint64_t count, unsigned long freq)
{
	return freq ? (int64_t)((double)count * 1e9 / freq + 0.5) : 0;
}

static int kernel_locs(struct pprof *pp, const struct stack *st, uint64_t *locs, int n)
{
	uint32_t i;

	for (i = 0; st && i < st->nframes && n < PP_MAX_FRAMES; i++)
		locs[n++] = kernel_loc(pp, st->frames[i]);
	return n;
}

static void add_sample_row(struct pprof *pp, const struct sample_row_key *k, uint64_t count,
			   uint64_t *locs)
{
	const struct stack *us = k->ustack < 0 ? NULL : profile__stack(pp->p, k->ustack);
	int64_t vals[2] = { (int64_t)count, cpu_ns(count, pp->freq) };
	uint32_t i;
	int n;

	check_full(pp);
	/* The leaf first: the kernel frames sit on top of the user ones. */
	n = kernel_locs(pp, k->kstack < 0 ? NULL : profile__stack(pp->p, k->kstack), locs, 0);
	for (i = 0; us && i < us->nframes && n < 2 * PP_MAX_FRAMES; i++)
		locs[n++] = user_loc(pp, k->tgid, us->frames[i]);
	sample_begin(pp, locs, n);
	label_num(pp, "pid", k->tgid);
	label_num(pp, "tid", k->tid);
	label_str(pp, "comm", profile__str(pp->p, k->comm));
	sample_end(pp, vals, pp->freq ? 2 : 1);
}

static void add_samples(struct pprof *pp, const struct hits_filter *f)
{
	uint64_t *locs = calloc(2 * PP_MAX_FRAMES, sizeof(*locs));
	const struct sample_row_key *k;
	const uint64_t *count;
	size_t it = 0;

	if (!locs) {
		pp->oom = true;
		return;
	}
	while (!pp_failed(pp) && (count = htab_next(&pp->p->samples, &it, (const void **)&k)))
		if (sample_passes(pp->p, k, f))
			add_sample_row(pp, k, *count, locs);
	free(locs);
}

/* A user lock's stack: the user frames of its process, leaf first. */
static int user_locs(struct pprof *pp, uint32_t tgid, const struct stack *st, uint64_t *locs)
{
	uint32_t i;
	int n = 0;

	for (i = 0; st && i < st->nframes && n < PP_MAX_FRAMES; i++)
		locs[n++] = user_loc(pp, tgid, st->frames[i]);
	return n;
}

static void add_lock_row(struct pprof *pp, const struct lock_view *lv, const struct lock_row_key *k,
			 const struct lock_row_val *v, uint64_t *locs)
{
	const struct stack *st = k->stack_id < 0 ? NULL : profile__stack(pp->p, k->stack_id);
	int64_t vals[2] = { (int64_t)v->count, (int64_t)v->total_ns };
	int n;

	check_full(pp);
	n = export_row_is_user(k) ? user_locs(pp, k->tgid, st, locs) : kernel_locs(pp, st, locs, 0);

	if (!n)
		locs[n++] = pseudo_loc(pp, lock_view__str(lv, k->caller));
	sample_begin(pp, locs, n);
	label_str(pp, "lock", lock_view__str(lv, k->name));
	label_str(pp, "lock type", lock_type_name(k->flags));
	label_num(pp, "pid", k->tgid);
	label_num(pp, "tid", k->tid);
	label_str(pp, "comm", profile__str(pp->p, k->comm));
	sample_end(pp, vals, 2);
}

/* The rows of report's locks view, kernel and user locks, as export's other formats. */
static void add_locks(struct pprof *pp, const struct hits_filter *f)
{
	uint64_t *locs = calloc(PP_MAX_FRAMES, sizeof(*locs));
	struct lock_view lv;
	size_t i;

	if (!locs || export_lock_view(&lv, pp->p, f)) {
		pp->oom = true;
		free(locs);
		return;
	}
	for (i = 0; !pp_failed(pp) && i < lv.nrows; i++)
		add_lock_row(pp, &lv, &lv.rows[i].k, &lv.rows[i].v, locs);
	lock_view__free(&lv);
	free(locs);
}

/* --- the Profile message ---------------------------------------------------------- */

static void put_value_type(struct pprof *pp, struct buf *b, uint32_t field,
			   const char *type, const char *unit)
{
	pb_varint(&pp->sub, VALUE_TYPE_TYPE, pp_str(pp, type));
	pb_varint(&pp->sub, VALUE_TYPE_UNIT, pp_str(pp, unit));
	pb_msg(b, field, &pp->sub);
}

static void put_mapping(struct pprof *pp, struct buf *b, size_t i)
{
	const struct pp_mapping *m = &pp->maps[i];

	pb_varint(&pp->msg, MAPPING_ID, i + 1);
	pb_varint(&pp->msg, MAPPING_MEMORY_START, m->start);
	pb_varint(&pp->msg, MAPPING_MEMORY_LIMIT, m->limit);
	pb_varint(&pp->msg, MAPPING_FILE_OFFSET, m->offset);
	pb_varint(&pp->msg, MAPPING_FILENAME, m->file);
	pb_varint(&pp->msg, MAPPING_BUILD_ID, m->build_id);
	pb_varint(&pp->msg, MAPPING_HAS_FUNCTIONS, m->functions);
	pb_varint(&pp->msg, MAPPING_HAS_FILENAMES, m->filenames);
	pb_varint(&pp->msg, MAPPING_HAS_LINE_NUMBERS, m->lines);
	pb_varint(&pp->msg, MAPPING_HAS_INLINE_FRAMES, m->inlines);
	pb_msg(b, PROFILE_MAPPING, &pp->msg);
}

static const char *base_name(const char *path, size_t len)
{
	const char *slash = memrchr(path, '/', len);

	return slash ? slash + 1 : path;
}

/* The mapping of the recorded command's program, or nmaps. */
static size_t main_mapping(const struct pprof *pp)
{
	const char *exe = pp->strs[pp->program];
	size_t i, len = strlen(exe);

	if (!len)
		return pp->nmaps;
	for (i = 0; i < pp->nmaps; i++) {
		const char *file = pp->strs[pp->maps[i].file];
		const char *base = base_name(file, strlen(file));

		if (i + 1 != pp->kernel_map && strlen(base) == len && !strncmp(base, exe, len))
			return i;
	}
	return pp->nmaps;
}

/* pprof calls a profile after its first Mapping ("File:"): the program first, the kernel last. */
static void put_mappings(struct pprof *pp, struct buf *b)
{
	size_t i, first = main_mapping(pp);

	if (first < pp->nmaps)
		put_mapping(pp, b, first);
	for (i = 0; i < pp->nmaps; i++)
		if (i != first && i + 1 != pp->kernel_map)
			put_mapping(pp, b, i);
	if (pp->kernel_map)
		put_mapping(pp, b, pp->kernel_map - 1);
}

/* What the first profile added says of itself, kept: the profiles may go before the writing. */
static void note_profile(struct pprof *pp, const struct profile *p)
{
	static const char *const keys[] = { "command", "kernel", "hostname" };
	const char *cmd = profile__meta(p, "command"), *exe;
	char line[512];
	size_t i, len;

	if (pp->comments[0] || pp->comments[1] || pp->comments[2] || pp->program)
		return;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = profile__meta(p, keys[i]);

		if (!v || !*v)
			continue;
		snprintf(line, sizeof(line), "%s: %s", keys[i], v);
		pp->comments[i] = pp_str(pp, line);
	}
	if (!cmd || !*cmd)
		return;
	len = strcspn(cmd, " ");
	exe = base_name(cmd, len);
	snprintf(line, sizeof(line), "%.*s", (int)(len - (exe - cmd)), exe);
	pp->program = pp_str(pp, line);
}

static void put_comments(struct pprof *pp, struct buf *b)
{
	size_t i;

	for (i = 0; i < sizeof(pp->comments) / sizeof(pp->comments[0]); i++)
		pb_varint(b, PROFILE_COMMENT, pp->comments[i]);
}

static void put_samples(struct pprof *pp, struct buf *b, int nvals)
{
	size_t i;
	int j;

	for (i = 0; i < pp->nsamples; i++) {
		const struct pp_sample *sm = &pp->samples[i];

		for (j = 0; j < nvals; j++)
			buf_put_varint(&pp->sub, (uint64_t)sm->vals[j]);
		pb_msg(&pp->msg, SAMPLE_VALUE, &pp->sub);
		buf_put(&pp->msg, pp->idents.data + sm->off, sm->len);
		pb_msg(b, PROFILE_SAMPLE, &pp->msg);
	}
}

/* The header fields, then the tables; the strings last, once all are interned. */
static void put_profile(struct pprof *pp, struct buf *b, uint64_t time_ns, uint64_t duration_ns)
{
	bool locks = pp->locks;
	size_t i;

	if (locks) {
		put_value_type(pp, b, PROFILE_SAMPLE_TYPE, "contentions", "count");
		put_value_type(pp, b, PROFILE_SAMPLE_TYPE, "delay", "nanoseconds");
	} else {
		put_value_type(pp, b, PROFILE_SAMPLE_TYPE, "samples", "count");
		if (pp->freq)
			put_value_type(pp, b, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	}
	put_samples(pp, b, locks || pp->freq ? 2 : 1);
	put_mappings(pp, b);
	buf_put(b, pp->locs.data, pp->locs.len);
	buf_put(b, pp->funcs.data, pp->funcs.len);
	pb_varint(b, PROFILE_TIME_NANOS, time_ns);
	pb_varint(b, PROFILE_DURATION_NANOS, duration_ns);
	if (!locks && pp->freq) {
		put_value_type(pp, b, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
		pb_varint(b, PROFILE_PERIOD, cpu_ns(1, pp->freq));
	}
	put_comments(pp, b);
	for (i = 0; i < pp->nstrs; i++)
		pb_bytes(b, PROFILE_STRING_TABLE, pp->strs[i], strlen(pp->strs[i]));
}

/* windowBits 15 + 16: zlib writes a gzip header and trailer, as pprof expects. */
static int gzip(const struct buf *in, struct buf *out)
{
	uint8_t chunk[16384];
	z_stream zs;
	int rc;

	if (in->len > UINT_MAX)
		return -EFBIG;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = in->data;
	zs.avail_in = in->len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		rc = deflate(&zs, Z_FINISH);
		buf_put(out, chunk, sizeof(chunk) - zs.avail_out);
	} while (rc == Z_OK);
	deflateEnd(&zs);
	if (rc != Z_STREAM_END)
		return -EIO;
	return out->oom ? -ENOMEM : 0;
}

/* One profile's rows into pp: its lock waits or its samples, those that pass f. */
static void add_profile(struct pprof *pp, const struct profile *p, const struct hits_filter *f)
{
	const char *freq = profile__meta(p, "sample_freq");

	pp->p = p;
	if (!pp->freq && freq)
		pp->freq = strtoul(freq, NULL, 10);
	note_profile(pp, p);
	/* A user PC's location is its process's, in this profile. */
	htab_free(&pp->pc_locs);
	htab_init(&pp->pc_locs, sizeof(struct usym_key), sizeof(uint64_t));
	if (pp->locks)
		add_locks(pp, f);
	else
		add_samples(pp, f);
	pp->p = NULL;
}

/* The strings the header needs are made even when full: there are a few, always the same. */
static int encode(struct pprof *pp, struct buf *out, uint64_t time_ns, uint64_t duration_ns)
{
	bool full = pp->full;
	struct buf raw;
	int err;

	pp->full = false;
	buf_init(&raw);
	put_profile(pp, &raw, time_ns, duration_ns);
	pp->full = full;
	err = pp_failed(pp) || raw.oom ? -ENOMEM : gzip(&raw, out);
	buf_free(&raw);
	return err;
}

int pprof__write(struct buf *out, const struct profile *p, const struct export_opts *o)
{
	struct pprof pp;
	int err;

	pp_init(&pp, o->what == EXPORT_LOCKS, 0);
	add_profile(&pp, p, &o->filter);
	err = encode(&pp, out, p->hdr.created_ns, profile__duration_ns(p));
	pp_free(&pp);
	return err;
}

/* --- accumulated over several profiles (serve) -------------------------------------- */

struct pprof_acc {
	struct pprof pp;
};

int pprof_acc__new(struct pprof_acc **a, bool locks, size_t max_samples)
{
	*a = calloc(1, sizeof(**a));
	if (!*a)
		return -ENOMEM;
	pp_init(&(*a)->pp, locks, max_samples);
	return 0;
}

void pprof_acc__free(struct pprof_acc *a)
{
	if (!a)
		return;
	pp_free(&a->pp);
	free(a);
}

int pprof_acc__add(struct pprof_acc *a, const struct profile *p, const struct hits_filter *f)
{
	add_profile(&a->pp, p, f);
	return pp_failed(&a->pp) ? -ENOMEM : 0;
}

int pprof_acc__write(struct pprof_acc *a, struct buf *out, uint64_t time_ns, uint64_t duration_ns)
{
	return encode(&a->pp, out, time_ns, duration_ns);
}

size_t pprof_acc__samples(const struct pprof_acc *a)
{
	return a->pp.nsamples;
}
