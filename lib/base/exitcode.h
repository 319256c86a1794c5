/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_EXITCODE_H
#define __LOCKSTAT_EXITCODE_H

/* Every exit status lockstat itself chooses comes from here. */
enum exit_code {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* runtime failure */
	EXIT_USAGE = 2,		/* bad option or argument */
	EXIT_INVARIANT = 3,	/* fsck --deep: figures that contradict each other */
	EXIT_NOEXEC = 126,	/* workload found but could not be run */
	EXIT_NOTFOUND = 127,	/* workload command not found */
	EXIT_SIGNAL_BASE = 128,	/* workload killed by signal N: 128 + N */
};

#endif
