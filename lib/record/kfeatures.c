// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * All run-time feature probing lives here; each probe family decides its
 * attach mode from these features (choose_mode in lib/collect_*.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "record/kfeatures.h"
#include "base/log.h"
#include "kfeatures.skel.h"

static const char *tracefs;

const char *feature_name(enum feature f)
{
	static const char *const names[FEAT__COUNT] = {
		[FEAT_BTF] = "btf", [FEAT_TRACEFS] = "tracefs",
		[FEAT_TP_LOCK] = "tracepoint:lock", [FEAT_TP_BTF_LOCK] = "tp_btf:lock",
		[FEAT_TP_SCHED] = "tracepoint:sched", [FEAT_TP_MMAP_LOCK] = "tracepoint:mmap_lock",
		[FEAT_TP_FILEMAP] = "tracepoint:filemap", [FEAT_TP_READAHEAD] = "tracepoint:readahead",
		[FEAT_TP_SYSCALLS] = "tracepoint:syscalls", [FEAT_FENTRY] = "fentry",
		[FEAT_KPROBE] = "kprobe", [FEAT_PERF_EVENT] = "perf_event",
		[FEAT_UPROBE] = "uprobe",
	};

	return f < FEAT__COUNT ? names[f] : "?";
}

static const char *const mode_names[] = {
	[ATTACH_AUTO] = "auto", [ATTACH_TP] = "tp", [ATTACH_TP_BTF] = "tp_btf",
	[ATTACH_TP_CLASSIC] = "tracepoint", [ATTACH_FENTRY] = "fentry",
	[ATTACH_KPROBE] = "kprobe",
};

int attach_mode_parse(const char *s, enum attach_mode *mode)
{
	size_t i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (!strcmp(s, mode_names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *attach_mode_name(enum attach_mode mode)
{
	return mode_names[mode];
}

static bool has_events_dir(const char *root)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/events", root);
	return access(path, F_OK) == 0;
}

int tracefs_mount(void)
{
	if (tracefs)
		return 0;
	if (has_events_dir("/sys/kernel/tracing")) {
		tracefs = "/sys/kernel/tracing";
		return 0;
	}
	if (has_events_dir("/sys/kernel/debug/tracing")) {
		tracefs = "/sys/kernel/debug/tracing";
		return 0;
	}
	/* As perf does: mount it where libbpf will look for it. */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0)
		return -errno;
	tracefs = "/sys/kernel/tracing";
	pr_info("mounted tracefs on %s\n", tracefs);
	return 0;
}

const char *tracefs_path(void)
{
	return tracefs;
}

static void set(struct feature_result *r, bool ok, const char *fmt, const char *arg)
{
	r->ok = ok;
	snprintf(r->detail, sizeof(r->detail), fmt, arg);
}

static void probe_tracepoint(struct features *f, enum feature feat, const char *event)
{
	char path[256];

	if (!tracefs) {
		set(&f->r[feat], false, "%s", "tracefs not available");
		return;
	}
	snprintf(path, sizeof(path), "%s/events/%s/id", tracefs, event);
	if (access(path, R_OK) == 0)
		set(&f->r[feat], true, "%s", event);
	else
		set(&f->r[feat], false, "no %s tracepoint in this kernel", event);
}

/* The kept BTF (vmlinux_btf()): the families parse it again otherwise. */
static void probe_btf(struct features *f, const struct btf **btf)
{
	*btf = vmlinux_btf();
	if (!*btf) {
		set(&f->r[FEAT_BTF], false, "no kernel BTF (%s): needs CONFIG_DEBUG_INFO_BTF",
		    strerror(errno));
		return;
	}
	set(&f->r[FEAT_BTF], true, "%s", "/sys/kernel/btf/vmlinux");
}

static void probe_tp_btf(struct features *f, const struct btf *btf)
{
	struct feature_result *r = &f->r[FEAT_TP_BTF_LOCK];

	if (!btf) {
		set(r, false, "%s", "needs kernel BTF");
		return;
	}
	if (btf__find_by_name_kind(btf, "btf_trace_contention_begin", BTF_KIND_TYPEDEF) < 0 ||
	    btf__find_by_name_kind(btf, "btf_trace_contention_end", BTF_KIND_TYPEDEF) < 0) {
		set(r, false, "%s", "no contention_begin/end raw tracepoints in BTF (kernel < 5.19)");
		return;
	}
	set(r, true, "%s", "contention_begin, contention_end");
}

/* A kernel function that exists on every kernel we support, for test loads. */
static const char *probe_target(const struct btf *btf)
{
	static const char *const candidates[] = { "fget", "do_sys_openat2", "vfs_read" };
	size_t i;

	for (i = 0; btf && i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (btf__find_by_name_kind(btf, candidates[i], BTF_KIND_FUNC) >= 0)
			return candidates[i];
	return "vfs_read";
}

static int try_program(bool fentry, const char *target)
{
	struct kfeatures_bpf *skel = kfeatures_bpf__open();
	struct bpf_program *keep, *drop;
	int err;

	if (!skel)
		return -errno;
	keep = fentry ? skel->progs.probe_fentry : skel->progs.probe_kprobe;
	drop = fentry ? skel->progs.probe_kprobe : skel->progs.probe_fentry;
	bpf_program__set_autoload(drop, false);
	if (fentry)
		err = bpf_program__set_attach_target(keep, 0, target);
	else
		err = 0;
	if (!err)
		err = kfeatures_bpf__load(skel);
	if (!err && fentry)
		err = kfeatures_bpf__attach(skel);
	if (!err && !fentry) {
		struct bpf_link *l = bpf_program__attach_kprobe(keep, false, target);

		err = l ? 0 : -errno;
		bpf_link__destroy(l);
	}
	kfeatures_bpf__destroy(skel);
	return err;
}

static void probe_fentry(struct features *f, const struct btf *btf)
{
	const char *target = probe_target(btf);
	int err;

	if (!btf) {
		set(&f->r[FEAT_FENTRY], false, "%s", "needs kernel BTF");
		return;
	}
	err = try_program(true, target);
	if (err)
		snprintf(f->r[FEAT_FENTRY].detail, sizeof(f->r[FEAT_FENTRY].detail),
			 "loading fentry/%s failed: %s%s", target, strerror(-err),
			 err == -EPERM ? " (kernel refuses trampolines here)" : "");
	else
		set(&f->r[FEAT_FENTRY], true, "fentry/%s loads and attaches", target);
	f->r[FEAT_FENTRY].ok = !err;
}

static void probe_kprobe(struct features *f, const struct btf *btf)
{
	const char *target = probe_target(btf);
	int err;

	char events[128];

	snprintf(events, sizeof(events), "%s/kprobe_events", tracefs ? tracefs : "/sys/kernel/tracing");
	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) && access(events, F_OK)) {
		set(&f->r[FEAT_KPROBE], false, "%s", "no kprobe PMU nor kprobe_events: kernel built without CONFIG_KPROBES");
		return;
	}
	err = try_program(false, target);
	if (err)
		snprintf(f->r[FEAT_KPROBE].detail, sizeof(f->r[FEAT_KPROBE].detail),
			 "kprobe on %s failed: %s", target, strerror(-err));
	else
		set(&f->r[FEAT_KPROBE], true, "kprobe/%s attaches", target);
	f->r[FEAT_KPROBE].ok = !err;
}

static void probe_perf_event(struct features *f)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_freq = 99, .freq = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		set(&f->r[FEAT_PERF_EVENT], false, "perf_event_open(cpu-clock): %s", strerror(errno));
		return;
	}
	close(fd);
	set(&f->r[FEAT_PERF_EVENT], true, "%s", "cpu-clock sampling");
}

static void probe_uprobe(struct features *f)
{
	if (access("/sys/bus/event_source/devices/uprobe/type", F_OK))
		set(&f->r[FEAT_UPROBE], false, "%s", "no uprobe PMU: kernel built without CONFIG_UPROBES");
	else
		set(&f->r[FEAT_UPROBE], true, "%s", "uprobe PMU");
}

void features_probe(struct features *f)
{
	features_probe_some(f, true);
}

/*
 * Whether fentry and kprobes work is only known by loading a program of
 * each (a verification, and libbpf parsing the kernel's BTF once more):
 * done only for a caller that may use them.
 */
static void skip_program_probes(struct features *f)
{
	set(&f->r[FEAT_FENTRY], false, "%s", "not probed: no family asked for needs it");
	set(&f->r[FEAT_KPROBE], false, "%s", "not probed: no family asked for needs it");
}

void features_probe_some(struct features *f, bool programs)
{
	const struct btf *btf = NULL;
	int err;

	memset(f, 0, sizeof(*f));
	err = tracefs_mount();
	if (err)
		set(&f->r[FEAT_TRACEFS], false, "cannot mount tracefs: %s", strerror(-err));
	else
		set(&f->r[FEAT_TRACEFS], true, "%s", tracefs);
	probe_btf(f, &btf);
	probe_tracepoint(f, FEAT_TP_LOCK, "lock/contention_begin");
	probe_tp_btf(f, btf);
	probe_tracepoint(f, FEAT_TP_SCHED, "sched/sched_process_fork");
	probe_tracepoint(f, FEAT_TP_MMAP_LOCK, "mmap_lock/mmap_lock_start_locking");
	probe_tracepoint(f, FEAT_TP_FILEMAP, "filemap/mm_filemap_add_to_page_cache");
	probe_tracepoint(f, FEAT_TP_READAHEAD, "readahead/page_cache_sync_ra");
	probe_tracepoint(f, FEAT_TP_SYSCALLS, "raw_syscalls/sys_enter");
	if (programs) {
		probe_fentry(f, btf);
		probe_kprobe(f, btf);
	} else {
		skip_program_probes(f);
	}
	probe_perf_event(f);
	probe_uprobe(f);
}

static struct btf *kbtf;

static void free_vmlinux_btf(void)
{
	btf__free(kbtf);
}

const struct btf *vmlinux_btf(void)
{
	if (!kbtf) {
		kbtf = btf__load_vmlinux_btf();
		if (kbtf)
			atexit(free_vmlinux_btf);
	}
	return kbtf;
}

int tp_btf_nargs(const char *name)
{
	const struct btf *btf = vmlinux_btf();
	const struct btf_type *t;
	char tname[128];
	int id;

	if (!btf)
		return -ENOENT;
	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, btf__resolve_type(btf, id));	/* the pointer */
	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	return btf_vlen(t) - 1;	/* the first is the tracepoint's own context */
}

bool kfunc_in_btf(const char *name)
{
	const struct btf *btf = vmlinux_btf();

	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) >= 0;
}
