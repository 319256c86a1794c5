// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Holds kernel.bpf_stats on through a BPF_ENABLE_STATS descriptor of its
 * own, as another BPF tool would, for SECONDS (default 5): the sysctl
 * does not show it. Prints "holding" once the descriptor is open.
 */
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	union bpf_attr attr;
	double secs = argc > 1 ? atof(argv[1]) : 5;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	fd = syscall(__NR_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr));
	if (fd < 0) {
		perror("statsholder: BPF_ENABLE_STATS");
		return 1;
	}
	printf("holding\n");
	fflush(stdout);
	usleep((useconds_t)(secs * 1e6));
	close(fd);
	return 0;
}
