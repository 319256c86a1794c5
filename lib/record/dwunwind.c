// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User stacks unwound from a copy of the stack with libdw (see
 * dwunwind.h). libdw asks for the thread's registers and memory through
 * Dwfl_Thread_Callbacks: both come from the sample, and memory outside
 * the copy is unreadable, which ends the unwinding there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>
#include "base/htab.h"
#include "record/dwunwind.h"

/*
 * The processes whose modules are kept at once: each holds its own copy
 * of every library's CFI (libdw shares no module between Dwfls), a few
 * MiB; -a over a machine building software made 257 in 3 s (686 MiB).
 * The least recently used one goes.
 */
#define DWUNWIND_MAX_PROCS	32

/* One process's modules, as its mappings were when they were reported. */
struct dwproc {
	Dwfl *dwfl;
	const struct proc_maps *pm;	/* what they were reported from */
	size_t nmaps;		/* the mappings reported: more since, and it is rebuilt */
	uint64_t used;		/* the unwinder's clock at its last use */
	bool attached;		/* dwfl_attach_state succeeded */
	bool read_failed;	/* the walk asked for memory outside the copy */
	const struct dwunwind_sample *cur;	/* the sample being unwound */
};

struct dwunwind {
	const struct maps_cache *mc;
	struct htab procs;	/* uint32 tgid -> struct dwproc * */
	uint64_t builds;
	struct dwunwind_why why;
	uint64_t clock;		/* unwinds so far */
	size_t live;		/* processes with modules */
};

/* Where the walk is: frames so far, whether it stopped at max or went through code of no module. */
struct walk {
	Dwfl *dwfl;
	uint64_t *ips;
	int n, max;
	bool full;
	bool unknown;
};

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* The process has one thread to libdw: the sample's. */
static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	struct dwproc *p = dwfl_arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return p->cur->tid;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	const struct dwproc *p = thread_arg;
	Dwarf_Word regs[DWUNWIND_NREGS];
	int i;

	for (i = 0; i < DWUNWIND_NREGS; i++)
		regs[i] = p->cur->regs[i];
	dwfl_thread_state_register_pc(thread, regs[DWUNWIND_IP]);
	return dwfl_thread_state_registers(thread, 0, DWUNWIND_NREGS, regs);
}

/* Only the stack copy is readable: a word outside it ends the walk. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct dwproc *p = dwfl_arg;
	uint64_t sp = p->cur->regs[DWUNWIND_SP];

	(void)dwfl;
	if (addr < sp || addr - sp > p->cur->size || p->cur->size - (addr - sp) < sizeof(*result)) {
		p->read_failed = true;
		return false;
	}
	memcpy(result, p->cur->stack + (addr - sp), sizeof(*result));
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct dwunwind *dwunwind_new(const struct maps_cache *mc)
{
	struct dwunwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->mc = mc;
	htab_init(&u->procs, sizeof(uint32_t), sizeof(struct dwproc *));
	return u;
}

static void proc_end(struct dwunwind *u, struct dwproc *p)
{
	if (p->dwfl) {
		dwfl_end(p->dwfl);
		u->live--;
	}
	p->dwfl = NULL;
	p->pm = NULL;
	p->nmaps = 0;
	p->attached = false;
}

void dwunwind_free(struct dwunwind *u)
{
	struct dwproc **p;
	size_t it = 0;

	if (!u)
		return;
	while ((p = htab_next(&u->procs, &it, NULL))) {
		if (*p)
			proc_end(u, *p);
		free(*p);
	}
	htab_free(&u->procs);
	free(u);
}

uint64_t dwunwind_builds(const struct dwunwind *u)
{
	return u->builds;
}

const struct dwunwind_why *dwunwind_why(const struct dwunwind *u)
{
	return &u->why;
}

void dwunwind_forget(struct dwunwind *u, uint32_t tgid)
{
	struct dwproc **p = u ? htab_find(&u->procs, &tgid) : NULL;

	/* The table has no deletion: the entry stays, empty, and is rebuilt if the PID comes back. */
	if (p && *p)
		proc_end(u, *p);
}

/* Room for one more process's modules: the least recently used one's go. */
static void make_room(struct dwunwind *u)
{
	struct dwproc **p, *lru = NULL;
	size_t it = 0;

	if (u->live < DWUNWIND_MAX_PROCS)
		return;
	while ((p = htab_next(&u->procs, &it, NULL)))
		if (*p && (*p)->dwfl && (!lru || (*p)->used < lru->used))
			lru = *p;
	if (lru)
		proc_end(u, lru);
}

/*
 * One file mapping as a module, where its file offset 0 would be (as
 * perf reports them: the usual layouts load file offset 0 at p_vaddr
 * 0). Anonymous memory and [vdso] have no file: code there has no CFI
 * here, and its samples end at their ip, counted as incomplete.
 */
static void report_map(Dwfl *dwfl, const struct proc_map *m)
{
	const char *base = strrchr(m->path, '/');
	char fdpath[32];

	if (m->path[0] != '/')
		return;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", m->fd);
	/* Two mappings over one address (an exec, a dlclose then dlopen): the first reported wins. */
	dwfl_report_elf(dwfl, base + 1, m->fd >= 0 ? fdpath : m->path, -1, m->start - m->pgoff, false);
}

/* p's Dwfl from tgid's mappings now known, the latest ones first. */
static int proc_build(struct dwunwind *u, struct dwproc *p, const struct proc_maps *pm, uint32_t tgid)
{
	size_t i;

	proc_end(u, p);
	make_room(u);
	p->dwfl = dwfl_begin(&dwfl_cbs);
	if (!p->dwfl)
		return -ENOMEM;
	u->live++;
	p->pm = pm;
	dwfl_report_begin(p->dwfl);
	for (i = pm->n; i > 0; i--)
		report_map(p->dwfl, &pm->maps[i - 1]);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->nmaps = pm->n;
	u->builds++;
	p->attached = dwfl_attach_state(p->dwfl, NULL, tgid, &thread_cbs, p);
	return 0;
}

/* tgid's Dwfl, as of its mappings now; NULL when none can be had. */
static struct dwproc *proc_of(struct dwunwind *u, uint32_t tgid)
{
	struct proc_maps *const *pm = htab_find(&u->mc->procs, &tgid);
	struct dwproc **p;

	if (!pm || !*pm || !(*pm)->n)
		return NULL;
	p = htab_get(&u->procs, &tgid, NULL);
	if (!p)
		return NULL;
	if (!*p && !(*p = calloc(1, sizeof(**p))))
		return NULL;
	/* A process forgotten and its PID reused has another proc_maps. */
	if ((!(*p)->dwfl || (*p)->pm != *pm || (*p)->nmaps != (*pm)->n) && proc_build(u, *p, *pm, tgid))
		return NULL;
	(*p)->used = ++u->clock;
	return (*p)->attached ? *p : NULL;
}

static int take_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (w->n >= w->max) {
		w->full = true;
		return DWARF_CB_ABORT;
	}
	/* No module, no CFI: a frame found past it is libdw's frame-pointer guess. */
	if (!dwfl_addrmodule(w->dwfl, activation ? pc : pc - 1))
		w->unknown = true;
	w->ips[w->n++] = pc;
	return DWARF_CB_OK;
}

int dwunwind_stack(struct dwunwind *u, const struct dwunwind_sample *s, uint64_t *ips, int max,
		   enum dwunwind_end *end)
{
	struct walk w = { .ips = ips, .max = max };
	struct dwproc *p;
	int err;

	*end = DWUNWIND_INCOMPLETE;
	if (max < 1)
		return 0;
	p = proc_of(u, s->tgid);
	if (p) {
		p->cur = s;
		p->read_failed = false;
		w.dwfl = p->dwfl;
		err = dwfl_getthread_frames(p->dwfl, s->tid, take_frame, &w);
		p->cur = NULL;
		/*
		 * libdw ends a walk as at the outermost frame when a return
		 * address could not be read: only a walk that read nothing
		 * outside the copy and knew every frame's module is complete.
		 */
		if (w.full)
			*end = DWUNWIND_DEPTH;
		else if (!err && w.n && !p->read_failed && !w.unknown)
			*end = DWUNWIND_COMPLETE;
		else if (p->read_failed)
			u->why.short_copy++;
		else if (w.unknown)
			u->why.no_module++;
		else
			u->why.libdw++;
	} else {
		u->why.no_process++;
	}
	if (!w.n)
		ips[w.n++] = s->regs[DWUNWIND_IP];
	return w.n;
}
