// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "sym/ksyms.h"

/* The whole of kallsyms is held for a recording: keep its entries small. */
_Static_assert(sizeof(struct ksym) == 24, "struct ksym grew");

void ksyms_init(struct ksyms *ks)
{
	memset(ks, 0, sizeof(*ks));
}

/*
 * Names packed one after the other in blocks that never move: kallsyms
 * has over 100 000 names, and a strdup() of each, with an array of their
 * pointers, takes a third more memory.
 */
#define KSYMS_BLOCK	(64 * 1024)

struct ksyms_block {
	struct ksyms_block *next;
	size_t used, cap;
	char data[];
};

void ksyms_free(struct ksyms *ks)
{
	struct ksyms_block *b, *next;

	for (b = ks->strings; b; b = next) {
		next = b->next;
		free(b);
	}
	free(ks->syms);
	free(ks->modules);
	ksyms_init(ks);
}

/* A copy of s, packed. */
static const char *keep_string(struct ksyms *ks, const char *s)
{
	size_t len = strlen(s) + 1;
	struct ksyms_block *b = ks->strings;
	char *copy;

	if (len == 1)
		return "";
	if (!b || b->cap - b->used < len) {
		size_t cap = len > KSYMS_BLOCK ? len : KSYMS_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = ks->strings;
		b->used = 0;
		b->cap = cap;
		ks->strings = b;
	}
	copy = memcpy(b->data + b->used, s, len);
	b->used += len;
	return copy;
}

#define KSYMS_MODULES_MAX	UINT16_MAX

/*
 * The index of module name in ks->modules, added if new. A module's
 * symbols come together, so the last one added is tried first; the
 * search over the others happens once a module (a few hundred at most).
 */
static int module_index(struct ksyms *ks, const char *module)
{
	const char **grown;
	size_t i;

	if (!ks->nmodules) {
		ks->modules = malloc(sizeof(*ks->modules));
		if (!ks->modules)
			return -ENOMEM;
		ks->modules[0] = "";
		ks->nmodules = 1;
	}
	if (!module || !*module)
		return 0;
	if (!strcmp(ks->modules[ks->nmodules - 1], module))
		return ks->nmodules - 1;
	for (i = 1; i < ks->nmodules; i++)
		if (!strcmp(ks->modules[i], module))
			return i;
	if (ks->nmodules > KSYMS_MODULES_MAX)
		return -E2BIG;
	grown = realloc(ks->modules, (ks->nmodules + 1) * sizeof(*ks->modules));
	if (!grown)
		return -ENOMEM;
	ks->modules = grown;
	ks->modules[ks->nmodules] = keep_string(ks, module);
	if (!ks->modules[ks->nmodules])
		return -ENOMEM;
	return ks->nmodules++;
}

const char *ksyms_module(const struct ksyms *ks, const struct ksym *k)
{
	return k->module < ks->nmodules ? ks->modules[k->module] : "";
}

int ksyms_add(struct ksyms *ks, uint64_t addr, uint64_t size, const char *name,
	      const char *module, char type)
{
	int mod = module_index(ks, module);
	struct ksym *k;

	if (mod < 0)
		return mod;
	if (ks->count == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 4096;
		struct ksym *n = realloc(ks->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ks->syms = n;
		ks->cap = cap;
	}
	k = &ks->syms[ks->count];
	k->addr = addr;
	k->size = size < UINT32_MAX ? size : UINT32_MAX;
	k->type = tolower((unsigned char)type);
	k->module = mod;
	k->name = keep_string(ks, name);
	if (!k->name)
		return -ENOMEM;
	ks->count++;
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The image's end, best first: _end, then the end of .bss or of brk. */
static void note_image(struct ksyms *ks, const struct ksym *k)
{
	static const char *const ends[] = { "_end", "__bss_stop", "__brk_limit" };
	size_t i;

	if (k->module) {
		if (!ks->first_module || k->addr < ks->first_module)
			ks->first_module = k->addr;
		return;
	}
	if (!strcmp(k->name, "_text") || (!strcmp(k->name, "_stext") && !ks->text))
		ks->text = k->addr;
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (!strcmp(k->name, ends[i]) && k->addr > ks->end)
			ks->end = k->addr;
}

static void note_lock_text(struct ksyms *ks, const struct ksym *k)
{
	note_image(ks, k);
	if (!strcmp(k->name, "__lock_text_start"))
		ks->lock_text_start = k->addr;
	else if (!strcmp(k->name, "__lock_text_end"))
		ks->lock_text_end = k->addr;
	else if (!strcmp(k->name, "__sched_text_start"))
		ks->sched_text_start = k->addr;
	else if (!strcmp(k->name, "__sched_text_end"))
		ks->sched_text_end = k->addr;
}

#define LAST_SYMBOL_SIZE	4096

/* Sizes run to the next symbol of the same module, for symbols that lack one. */
void ksyms_sort(struct ksyms *ks)
{
	size_t i;

	struct ksym *fitted;

	ks->text = ks->end = ks->first_module = 0;
	if (!ks->count)
		return;
	/* The doubling's room back (up to half the array), kept for the whole recording. */
	fitted = ks->cap > ks->count ? realloc(ks->syms, ks->count * sizeof(*ks->syms)) : NULL;
	if (fitted) {
		ks->syms = fitted;
		ks->cap = ks->count;
	}
	qsort(ks->syms, ks->count, sizeof(*ks->syms), cmp_ksym);
	for (i = 0; i < ks->count; i++) {
		struct ksym *k = &ks->syms[i], *next = i + 1 < ks->count ? k + 1 : NULL;

		note_lock_text(ks, k);
		if (k->size)
			continue;
		/* The last symbol of a module (or of the core) ends nobody knows where. */
		if (!next || next->module != k->module)
			k->size = LAST_SYMBOL_SIZE;
		else
			k->size = next->addr <= k->addr ? 1 :
				  next->addr - k->addr < UINT32_MAX ? next->addr - k->addr : UINT32_MAX;
	}
}

static int parse_line(struct ksyms *ks, char *line, bool *nonzero)
{
	char *name, *module = NULL, *end, type;
	uint64_t addr;

	addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return -EINVAL;
	type = end[1];
	name = end + 3;
	name[strcspn(name, "\n")] = '\0';
	end = strchr(name, '\t');
	if (end) {
		*end = '\0';
		module = strchr(end + 1, '[');
		if (module) {
			module++;
			module[strcspn(module, "]")] = '\0';
		}
	}
	if (addr)
		*nonzero = true;
	return ksyms_add(ks, addr, 0, name, module, type);
}

int ksyms_load_file(struct ksyms *ks, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	bool nonzero = false;
	int err = 0;

	/* getline: symbol names may be 512 bytes long since 6.1 (Rust). */
	while (getline(&line, &cap, f) > 0) {
		err = parse_line(ks, line, &nonzero);
		if (err)
			break;
	}
	free(line);
	if (err)
		return err;
	if (ferror(f))
		return -EIO;
	if (ks->count && !nonzero)
		return -EPERM;
	ksyms_sort(ks);
	return 0;
}

int ksyms_load(struct ksyms *ks)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	int err;

	if (!f)
		return -errno;
	err = ksyms_load_file(ks, f);
	fclose(f);
	return err;
}

const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->count;
	const struct ksym *k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	k = &ks->syms[lo - 1];
	return addr - k->addr < k->size ? k : NULL;
}

/*
 * Without CONFIG_KALLSYMS_ALL kallsyms lists few data symbols, and a lock
 * would be named after whatever variable precedes it by a megabyte. A
 * static lock sits at the start of its variable or inside a static
 * structure, so a name is only given within DATA_OFFSET_MAX of the symbol.
 */
#define DATA_OFFSET_MAX	(64 * 1024)

/*
 * The linker's section bounds (__start_rodata, __stop___param, _edata...)
 * are all the data symbols such a kernel lists: a lock after one is not
 * inside it, and "__start_init_stack+0x8080" would name nothing.
 */
static bool is_section_bound(const char *name)
{
	static const char *const bounds[] = {
		"_sdata", "_edata", "__bss_start", "__bss_stop", "_end", "__init_begin", "__init_end",
		"__per_cpu_start", "__per_cpu_end", "__brk_base", "__brk_limit",
	};
	size_t i;

	if (!strncmp(name, "__start_", 8) || !strncmp(name, "__stop_", 7) || !strncmp(name, "__end_", 6))
		return true;
	for (i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++)
		if (!strcmp(name, bounds[i]))
			return true;
	return false;
}

const struct ksym *ksyms_find_data(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *k = ksyms_find(ks, addr);

	/* A variable that starts where a section does (init_stack, __start_init_stack). */
	while (k && k > ks->syms && is_section_bound(k->name) && k[-1].addr == k->addr)
		k--;

	if (!k || !k->type || !strchr("dbr", k->type) || addr - k->addr >= DATA_OFFSET_MAX ||
	    is_section_bound(k->name))
		return NULL;
	return k;
}

/* x86-64's kernel text mapping: the image and nothing else, modules after it. */
#define X86_64_KERNEL_MAP	0xffffffff80000000ULL
#define X86_64_MODULES		0xffffffffc0000000ULL

bool ksyms_image_offset(const struct ksyms *ks, uint64_t addr, uint64_t *off)
{
	uint64_t end = ks->end;

	if (!ks->text || addr < ks->text)
		return false;
	if (!end && ks->text >= X86_64_KERNEL_MAP && ks->text < X86_64_MODULES)
		end = ks->first_module && ks->first_module < X86_64_MODULES ? ks->first_module : X86_64_MODULES;
	if (addr >= end)
		return false;
	*off = addr - ks->text;
	return true;
}

static bool is_data(const struct ksym *k)
{
	return k->type && strchr("dbr", k->type) && !is_section_bound(k->name);
}

size_t ksyms_count_data(const struct ksyms *ks)
{
	size_t i, n = 0;

	for (i = 0; i < ks->count; i++)
		n += !ks->syms[i].module && is_data(&ks->syms[i]);
	return n;
}

/* For kallsyms' symbols only: their sizes are measured again. */
void ksyms_drop_data(struct ksyms *ks)
{
	size_t i, n = 0;

	for (i = 0; i < ks->count; i++)
		if (ks->syms[i].module || !is_data(&ks->syms[i]))
			ks->syms[n++] = ks->syms[i];
	ks->count = n;
	/* kallsyms has no sizes: they ran to the next symbol, which may be gone. */
	for (i = 0; i < n; i++)
		ks->syms[i].size = 0;
	ksyms_sort(ks);
}

/*
 * Lock primitives: everything the kernel places in .spinlock.text, the
 * scheduler's .sched.text (mutex and rwsem slow paths, schedule() and the
 * functions that sleep through it: a wait there, the run queue's lock
 * above all, is the caller of schedule()'s, as perf lock contention says),
 * plus the slow paths that live outside both.
 */
bool ksyms_is_lock_function(const struct ksyms *ks, uint64_t addr)
{
	static const char *const prefixes[] = {
		"queued_spin_lock", "__pv_queued_spin", "native_queued_spin",
		"queued_read_lock", "queued_write_lock", "_raw_", "__raw_",
		"mutex_lock", "__mutex_lock", "mutex_trylock", "ww_mutex",
		"down_read", "down_write", "__down", "rwsem_", "up_read",
		"percpu_down", "__percpu_down", "rt_mutex", "__rt_mutex",
		"rt_spin", "rwbase_", "osq_lock", "lock_sock_nested",
		"do_raw_spin", "spin_lock", "mmap_read_lock", "mmap_write_lock",
		"__mmap_lock", "raw_spin_rq_lock", "_raw_spin_rq_lock", "__task_rq_lock",
		"task_rq_lock", "double_rq_lock", "_double_lock_balance",
	};
	const struct ksym *k;
	size_t i;

	if (ks->lock_text_start && addr >= ks->lock_text_start && addr < ks->lock_text_end)
		return true;
	if (ks->sched_text_start && addr >= ks->sched_text_start && addr < ks->sched_text_end)
		return true;
	k = ksyms_find(ks, addr);
	if (!k)
		return false;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(k->name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

void ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *k = ksyms_find(ks, addr);

	if (!k)
		snprintf(buf, len, "0x%" PRIx64, addr);
	else if (addr == k->addr)
		snprintf(buf, len, "%s", k->name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, k->name, addr - k->addr);
}

static bool is_tracing_frame(const struct ksyms *ks, const struct ksym *k)
{
	static const char *const prefixes[] = {
		"bpf_trace_run", "__bpf_trace_", "perf_trace_", "perf_tp_event",
		"trace_call_bpf", "__traceiter_", "bpf_prog_", "__bpf_prog_enter",
		"trace_event_raw_event_", "__bpf_tramp",
	};
	size_t i;

	if (!k || !strcmp(ksyms_module(ks, k), "bpf"))
		return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(k->name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Only the first few frames can be tracing machinery. */
#define TRACING_FRAMES_MAX	8

int ksyms_trim_tracing(const struct ksyms *ks, uint64_t *frames, int n)
{
	int i, cut = 0;

	for (i = 0; i < n && i < TRACING_FRAMES_MAX; i++)
		if (is_tracing_frame(ks, ksyms_find(ks, frames[i])))
			cut = i + 1;
	if (cut == n)	/* nothing we recognise: keep it all rather than nothing */
		return n;
	memmove(frames, frames + cut, (n - cut) * sizeof(*frames));
	return n - cut;
}
