/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_KMAP_H
#define __LOCKSTAT_KMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "sym/ksyms.h"

struct btf;

/*
 * Static kernel locks where kallsyms lists no data symbols (a kernel
 * without CONFIG_KALLSYMS_ALL): the data symbols of the running build's
 * System.map or debug vmlinux, moved by KASLR. The offset is the
 * difference between a text symbol's address in kallsyms and in the file;
 * several text symbols must agree, else the file is another build's.
 *
 * Sources, first that serves:
 *   kallsyms itself, when it lists data symbols (LOCKSTAT_NO_KALLSYMS_DATA=1
 *     ignores them, to try the others on such a kernel);
 *   $LOCKSTAT_SYSTEM_MAP (a System.map or a vmlinux with its symbols),
 *     else /boot/System.map-$(uname -r);
 *   /usr/lib/debug/boot/vmlinux-$(uname -r),
 *   /usr/lib/debug/lib/modules/$(uname -r)/vmlinux,
 *   /usr/lib/debug/.build-id/xx/yyyy.debug (the build id of /sys/kernel/notes).
 */

/* A file's symbols (addresses as linked) into file: 0 or -errno. */
int kmap_read_system_map(FILE *f, struct ksyms *file);
int kmap_read_elf(const char *path, struct ksyms *file);
/*
 * The KASLR offset from file's addresses to ks's: 0, or -ENODATA where
 * the file has none of the text symbols compared (Debian's System.map is
 * a one-line stub), -ESRCH where fewer than KMAP_ANCHORS_MIN are in both,
 * -ESTALE where they disagree (another build).
 */
#define KMAP_ANCHORS_MIN	3
int kmap_offset(const struct ksyms *ks, const struct ksyms *file, uint64_t *off);
/* Add file's data symbols to ks, moved by off, and sort ks: 0 or -ENOMEM. */
int kmap_add_data(struct ksyms *ks, const struct ksyms *file, uint64_t off);
/*
 * Give ks the running kernel's data symbols from the first source that
 * serves (above); what was used, or why none, in status. 0 even when none
 * serves (the locks are then named vmlinux+0xOFFSET), -ENOMEM.
 */
int kmap_load_running(struct ksyms *ks, char *status, size_t len);

/*
 * A static lock's name from ks's data symbols: "symbol", "symbol[i]" for
 * an array the kernel's BTF has as a variable (btf may be NULL), with the
 * lock's field inside the element or structure where BTF tells it
 * ("table[3].lock", "var.field"), else "symbol+0xOFF". -ENOENT: no symbol.
 */
int kmap_static_name(const struct ksyms *ks, const struct btf *btf, uint64_t addr, char *buf, size_t len);
/*
 * Without a symbol, inside the image: "vmlinux+0xOFF" (from _text, as
 * kallsyms shows it: the same on every boot of the build, and found later
 * in its System.map at _text + OFF). -ENOENT: not in the image.
 */
int kmap_image_name(const struct ksyms *ks, uint64_t addr, char *buf, size_t len);

/* "bit_wait_table[3]" -> "bit_wait_table[]": every index of every array in name. */
bool kmap_fold_arrays(const char *name, char *buf, size_t len);

#endif
