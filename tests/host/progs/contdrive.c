// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Drives the contention programs (bpf/contention.bpf.c) by hand: loads
 * the object without attaching it and runs its raw_tp twins of
 * contention_begin/end through BPF_PROG_TEST_RUN, with the lock address,
 * flags and ret that each command gives, as the current task on CPU 0.
 * Then prints the rows, the loss counters and the waits in progress, for
 * a host test to compare with what the accounting should have made of
 * that sequence. Commands, one a line on stdin:
 *
 *   begin ADDR FLAGS      a contention_begin
 *   end ADDR RET          a contention_end
 *   sleep MS
 *   shift ADDR MS         the start of ADDR's open waits (this thread's, CPU 0's) moved by MS
 *   comm NAME             this thread's command name (prctl)
 *   other CMD...          CMD run by another process, not a target (-f)
 *   thread CMD...         CMD run by another thread of this process (not with -n)
 *   rows                  "row addr= flags= err= tid= count= total= max=", summed over CPUs
 *   lost                  "lost NAME=N ..."
 *   inflight              "inflight addr= flags= age=" for each wait the iterator
 *                         finds open, "spinning addr= age=" for each on the CPU's stack
 *   comms                 "comm tid= tgid= name="
 *
 * Options: -t (per_task), -f (filter targets: this process only), -n
 * (lockstat's PID namespace: a new one, as when it runs in a container),
 * -T SLOT (thin_slot: sampled waits shorter than 2^SLOT ns keep their
 * stack in proportion to their length; every wait is sampled here).
 *   ns CMD...             CMD run by a process of that namespace, its second (tid 2)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "contention.h"
#include "contention.skel.h"

static const char *const lost_names[] = {
	"missing_begin", "nested_dropped", "stale_begin", "pending_full", "map_full_sampled",
	"stacks_full", "stack_error", "map_full", "targets_full", "in_probe",
	"end_before_begin",
};
_Static_assert(sizeof(lost_names) / sizeof(lost_names[0]) == sizeof(struct cont_lost) / sizeof(__u64),
	       "one name per loss counter");

/* A spinning wait on a CPU's stack. */
#define SPIN_SLOT(ps, d)	((ps)->slot[d].p)

static struct contention_bpf *skel;
static int ncpus;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int run(struct bpf_program *prog, uint64_t a, uint64_t b)
{
	__u64 args[2] = { a, b };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);

	if (err)
		fprintf(stderr, "contdrive: test run of %s: %s\n", bpf_program__name(prog), strerror(errno));
	return err;
}

static void print_rows(void)
{
	struct cont_key key, next;
	struct cont_val *v = calloc(ncpus, sizeof(*v));
	const void *prev = NULL;
	int cpu;

	if (!v)
		return;
	while (!bpf_map__get_next_key(skel->maps.stats, prev, &next, sizeof(next))) {
		uint64_t count = 0, total = 0, max = 0;

		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(skel->maps.stats, &key, sizeof(key), v, sizeof(*v) * ncpus, 0))
			continue;
		for (cpu = 0; cpu < ncpus; cpu++) {
			count += v[cpu].count;
			total += v[cpu].total_ns;
			if (v[cpu].max_ns > max)
				max = v[cpu].max_ns;
		}
		if (count)
			printf("row addr=%#llx flags=%#x err=%u tid=%u count=%" PRIu64 " total=%" PRIu64
			       " max=%" PRIu64 " shift=%u stack=%s\n", (unsigned long long)key.lock_addr,
			       cont_key_flags(key.bits), cont_key_err(key.bits), key.tid, count, total, max,
			       cont_key_shift(key.bits), key.stack == LS_STACK_NONE ? "none" : "some");
	}
	free(v);
}

static void print_lost(void)
{
	const __u64 *c = (const __u64 *)&skel->bss->lost;
	size_t i;

	printf("lost");
	for (i = 0; i < sizeof(lost_names) / sizeof(lost_names[0]); i++)
		printf(" %s=%llu", lost_names[i], (unsigned long long)c[i]);
	printf("\n");
}

static void print_inflight(void)
{
	struct bpf_link *link = bpf_program__attach_iter(skel->progs.waiting_tasks, NULL);
	struct cont_pending_spin *ps = calloc(ncpus, sizeof(*ps));
	struct cont_pending p;
	uint64_t now = now_ns();
	__u32 zero = 0, d;
	int fd;

	if (link && (fd = bpf_iter_create(bpf_link__fd(link))) >= 0) {
		while (read(fd, &p, sizeof(p)) == sizeof(p))
			printf("inflight addr=%#llx flags=%#x age=%lld\n", (unsigned long long)p.key.lock_addr,
			       cont_key_flags(p.key.bits), (long long)(now - p.start_ns));
		close(fd);
	}
	bpf_link__destroy(link);
	if (ps && !bpf_map__lookup_elem(skel->maps.pending_spin, &zero, sizeof(zero), ps, sizeof(*ps) * ncpus, 0))
		for (d = 0; d < ps[0].depth && d < LS_PENDING_SPIN_DEPTH; d++)
			printf("spinning addr=%#llx age=%lld\n", (unsigned long long)SPIN_SLOT(&ps[0], d).key.lock_addr,
			       (long long)(now - SPIN_SLOT(&ps[0], d).start_ns));
	free(ps);
}

/*
 * Moves the start of the open waits of addr, this thread's and those on
 * CPU 0's stack, by ms: a clock that went back between begin and end.
 */
static int shift_start(uint64_t addr, long long ms)
{
	int pidfd = syscall(SYS_pidfd_open, gettid(), 0), err = 0;
	struct cont_pending_spin *ps = calloc(ncpus, sizeof(*ps));
	struct cont_task_waits w;
	__u32 zero = 0, d;

	if (!ps || pidfd < 0)
		return -1;
	if (!bpf_map__lookup_elem(skel->maps.pending_spin, &zero, sizeof(zero), ps, sizeof(*ps) * ncpus, 0)) {
		for (d = 0; d < ps[0].depth && d < LS_PENDING_SPIN_DEPTH; d++)
			if (SPIN_SLOT(&ps[0], d).key.lock_addr == addr)
				SPIN_SLOT(&ps[0], d).start_ns += ms * 1000000;
		err = bpf_map__update_elem(skel->maps.pending_spin, &zero, sizeof(zero), ps, sizeof(*ps) * ncpus, 0);
	}
	if (!err && !bpf_map__lookup_elem(skel->maps.task_waits, &pidfd, sizeof(pidfd), &w, sizeof(w), 0)) {
		for (d = 0; d < w.depth && d < LS_PENDING_TASK_DEPTH; d++)
			if (w.slot[d].key.lock_addr == addr)
				w.slot[d].start_ns += ms * 1000000;
		err = bpf_map__update_elem(skel->maps.task_waits, &pidfd, sizeof(pidfd), &w, sizeof(w), 0);
	}
	close(pidfd);
	free(ps);
	return err;
}

static void print_comms(void)
{
	__u32 tid, next;
	const void *prev = NULL;
	struct cont_comm c;

	while (!bpf_map__get_next_key(skel->maps.comms, prev, &next, sizeof(next))) {
		tid = next;
		prev = &tid;
		if (!bpf_map__lookup_elem(skel->maps.comms, &tid, sizeof(tid), &c, sizeof(c), 0))
			printf("comm tid=%u tgid=%u name=%.*s\n", tid, c.tgid, (int)sizeof(c.comm), c.comm);
	}
}

static int command(char *line);
static void *thread_main(void *arg);

/* A helper runs commands sent down a pipe, answering each with one byte. */
struct helper {
	int cmd[2], ack[2];
};

static void helper_loop(struct helper *h)
{
	close(h->cmd[1]);	/* EOF when the driver closes its end */

	thread_main(h);
}

static int helper_open(struct helper *h)
{
	return pipe(h->cmd) || pipe(h->ack) ? -errno : 0;
}

static int helper_run(struct helper *h, const char *line)
{
	char c;

	fflush(stdout);
	if (write(h->cmd[1], line, strlen(line)) != (ssize_t)strlen(line) || read(h->ack[0], &c, 1) != 1)
		return -EIO;
	return 0;
}

static struct helper other, thread, ns;

static void *thread_main(void *arg)
{
	struct helper *h = arg;
	char line[256];
	ssize_t n;

	while ((n = read(h->cmd[0], line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		command(line);
		fflush(stdout);
		if (write(h->ack[1], "", 1) != 1)
			break;
	}
	return NULL;
}

/*
 * A process, not in the targets map; on CPU 0 as everything here. With
 * -n, in the driver's new PID namespace.
 */
static int start_process(struct helper *h)
{
	pid_t pid;

	if (helper_open(h))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		helper_loop(h);
		_exit(0);
	}
	return 0;
}

static int command(char *line)
{
	char op[16] = "", arg[64] = "";
	unsigned long long a = 0;
	long long b = 0;

	if (sscanf(line, "%15s", op) != 1)
		return 0;
	if (!strcmp(op, "other") || !strcmp(op, "thread") || !strcmp(op, "ns"))
		return helper_run(!strcmp(op, "other") ? &other : !strcmp(op, "thread") ? &thread : &ns,
				  line + strlen(op) + 1);
	if (!strcmp(op, "begin") && sscanf(line, "%*s %lli %lli", &a, &b) == 2)
		return run(skel->progs.begin_raw, a, (uint64_t)b);
	if (!strcmp(op, "end") && sscanf(line, "%*s %lli %lli", &a, &b) == 2)
		return run(skel->progs.end_raw, a, (uint64_t)(int64_t)(int)b);
	if (!strcmp(op, "sleep") && sscanf(line, "%*s %lli", &b) == 1)
		return usleep(b * 1000);
	if (!strcmp(op, "shift") && sscanf(line, "%*s %lli %lli", &a, &b) == 2)
		return shift_start(a, b);
	if (!strcmp(op, "comm") && sscanf(line, "%*s %63s", arg) == 1)
		return prctl(PR_SET_NAME, arg);
	if (!strcmp(op, "rows"))
		print_rows();
	else if (!strcmp(op, "lost"))
		print_lost();
	else if (!strcmp(op, "inflight"))
		print_inflight();
	else if (!strcmp(op, "comms"))
		print_comms();
	else {
		fprintf(stderr, "contdrive: bad command: %s", line);
		return -EINVAL;
	}
	return 0;
}

static pid_t ns_init;

/*
 * A PID namespace for the processes forked from now on, its first one
 * (tid 1) paused until the driver is done (killing it ends the
 * namespace's other processes too): the namespace has no inode to name
 * it by before.
 */
static int new_pidns(struct stat *st)
{
	char path[64];

	if (unshare(CLONE_NEWPID))
		return -1;
	ns_init = fork();
	if (ns_init < 0)
		return -1;
	if (ns_init == 0) {
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", ns_init);
	return stat(path, st);
}

static int load(bool per_task, bool filter, bool want_ns, unsigned int thin)
{
	__u32 tgid = getpid(), one = 1;
	struct stat st;

	skel = contention_bpf__open();
	if (!skel)
		return -errno;
	if (want_ns) {
		if (new_pidns(&st))
			return -errno;
		skel->rodata->pidns_dev = st.st_dev;
		skel->rodata->pidns_ino = st.st_ino;
	}
	bpf_program__set_autoload(skel->progs.begin_btf, false);
	bpf_program__set_autoload(skel->progs.end_btf, false);
	bpf_program__set_autoload(skel->progs.begin_tp, false);
	bpf_program__set_autoload(skel->progs.end_tp, false);
	bpf_program__set_autoload(skel->progs.begin_raw, true);
	bpf_program__set_autoload(skel->progs.end_raw, true);
	skel->rodata->per_task = per_task;
	skel->rodata->thin_slot = thin;
	skel->rodata->filter_targets = filter;
	if (contention_bpf__load(skel))
		return -errno;
	if (filter && bpf_map__update_elem(skel->maps.targets, &tgid, sizeof(tgid), &one, sizeof(one), 0))
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	bool per_task = false, filter = false, want_ns = false;
	unsigned int thin = 0;
	char line[256];
	cpu_set_t cpu0;
	pthread_t th;
	int opt, err = 0;

	while ((opt = getopt(argc, argv, "tfnT:")) != -1) {
		if (opt == 'T')
			thin = (unsigned int)strtoul(optarg, NULL, 10);
		else if (opt == 't')
			per_task = true;
		else if (opt == 'f')
			filter = true;
		else if (opt == 'n')
			want_ns = true;
		else
			return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ncpus = libbpf_num_possible_cpus();
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) || ncpus <= 0) {
		perror("contdrive: CPU 0");
		return 1;
	}
	if (load(per_task, filter, want_ns, thin)) {
		fprintf(stderr, "contdrive: loading the contention object: %s\n", strerror(errno));
		return 1;
	}
	/* A process whose children go to another PID namespace may not make threads. */
	if ((want_ns && start_process(&ns)) || start_process(&other) ||
	    (!want_ns && (helper_open(&thread) || pthread_create(&th, NULL, thread_main, &thread)))) {
		perror("contdrive: helpers");
		return 1;
	}
	while (fgets(line, sizeof(line), stdin))
		if (command(line))
			err = 1;
	close(other.cmd[1]);
	close(ns.cmd[1]);
	if (ns_init > 0)
		kill(ns_init, SIGKILL);
	while (wait(NULL) > 0)
		;
	contention_bpf__destroy(skel);
	return err;
}
