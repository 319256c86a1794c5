/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_VIEW_LOCKS_INT_H
#define __LOCKSTAT_VIEW_LOCKS_INT_H

/*
 * Shared by the files of the locks view, one per source of its rows:
 *   view_locks.c           the core: locks and their parts, strings, filter, sort, build
 *   view_locks_kernel.c    the contention rows' lock names (anonymous, given, folded)
 *   view_locks_hold.c      acquisitions and holds: the hold and mmap_lock tables
 *   view_locks_user.c      user locks: the ulocks tables, user stacks and callers
 *   view_locks_estimate.c  sampled waits and holds scaled to estimates, capped by the exact figures
 */
#include "view/view_locks.h"

/* view_locks.c */
bool lv_glob_ok(const char *pattern, const char *s);
const struct lock_filter *lv_any_caller(const struct lock_filter *f, struct lock_filter *buf);
struct lock_part *lv_find_part(struct lock_part **parts, size_t *n, uint32_t caller, int32_t stack_id);
struct lock_entry *lv_find_lock(struct lock_view *v, struct htab *index, uint32_t name, uint32_t flags);
int lv_keep_row(struct lock_view *v, const struct lock_row_key *k, const struct lock_row_val *w);
int lv_add_row(struct lock_view *v, struct htab *index, const struct lock_row_key *k,
	       const struct lock_row_val *val, bool by_caller);
int lv_intern(struct lock_view *v, const char *s, uint32_t *id);
void lv_hold_merge(struct hold_val *dst, const struct hold_val *src);

/* view_locks_kernel.c */
int lv_add_kernel_rows(struct lock_view *v, struct htab *index, const struct htab *given,
		       const struct lock_filter *f);
int lv_index_given_names(const struct profile *p, struct htab *given);
int lv_name_anon_locks(struct lock_view *v, const struct profile *from);
int lv_named_row(struct lock_view *v, const struct htab *given, const struct lock_row_key *k,
		 struct lock_row_key *out);
int lv_fold_name(struct lock_view *v, uint32_t *id);

/* view_locks_hold.c */
struct lock_part *lv_same_function(const struct lock_view *v, struct lock_entry *e, const char *caller);
int lv_add_holds(struct lock_view *v, struct htab *index, const struct lock_filter *f);

/* view_locks_user.c */
int lv_add_user_locks(struct lock_view *v, struct htab *index, const struct lock_filter *f);

/* view_locks_estimate.c */
uint64_t lv_lock_key(uint32_t name, uint32_t flags);
uint32_t lv_meta_thin_slot(const struct profile *p);
int lv_index_estimated(struct lock_view *v, const struct htab *given);
void lv_weigh(struct lock_row_val *w, const struct lock_row_val *val, uint32_t shift);
double lv_var_weight(uint32_t shift);
void lv_part_add(struct lock_part *c, const struct lock_row_val *w, const struct lock_row_val *val,
		 uint32_t shift);
void lv_sum_var_add(struct lock_entry *e, const struct lock_row_key *k, const struct lock_row_val *val,
		    bool no_caller, uint32_t thin_slot);
int lv_count_all_waits(struct lock_view *v, const struct lock_row_key *k, const struct lock_row_val *val);
int lv_count_all_holds(struct lock_view *v, uint32_t name, uint32_t flags, const struct hold_val *h);
void lv_set_all(struct lock_view *v);
void lv_cap_parts(struct lock_view *v, const struct lock_filter *f);
int lv_rows_to_lock_totals(struct lock_view *v, struct htab *index);

#endif
