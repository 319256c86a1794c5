// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include "cmds.h"
#include "exitcode.h"
#include "log.h"

int parse_ulong(const char *opt, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > max) {
		pr_err("%s: '%s' is not a whole number from 0 to %lu\n", opt, s, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e7) {
		pr_err("%s: '%s' is not a positive number of seconds\n", opt, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("writing to standard output failed: %s\n", strerror(errno));
		return status ? status : EXIT_FAIL;
	}
	return status;
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

/*
 * Tracing programs need CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN on
 * kernels before 5.8). Saying which one is missing beats libbpf's EPERM.
 */
int check_bpf_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return 0;	/* cannot tell: let the kernel decide */
	if (has_cap(data, CAP_SYS_ADMIN))
		return 0;
	if (has_cap(data, CAP_BPF) && has_cap(data, CAP_PERFMON))
		return 0;
	pr_err("recording needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): missing %s; run as root\n",
	       !has_cap(data, CAP_BPF) && !has_cap(data, CAP_PERFMON) ? "CAP_BPF and CAP_PERFMON" :
	       !has_cap(data, CAP_BPF) ? "CAP_BPF" : "CAP_PERFMON");
	return -EPERM;
}
