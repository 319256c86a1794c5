/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_KFEATURES_BPF_H
#define __LOCKSTAT_KFEATURES_BPF_H

/*
 * Programs loaded only to ask the kernel what it allows (fentry, kprobes);
 * nothing is shared with user space beyond their names.
 */

#endif
