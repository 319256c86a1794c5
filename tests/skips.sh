# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Sourced by tests/run-host.sh and tests/run-all.sh: the skips in the
# output of tests, by the prerequisite each one names. A test skipped
# whole says "SKIP: WHERE: PREREQ[, PREREQ]: why" (a runner may prefix
# the line); a check skipped alone says, in TAP,
# "ok - WHERE: WHAT # SKIP PREREQ[, PREREQ]: why".

# skip_lines FILE...: one line a skip and prerequisite, "PREREQ<TAB>WHERE"
# for a whole test, "PREREQ<TAB>WHERE: WHAT" for one check.
skip_lines() {
	local p='[A-Z][A-Z0-9_]*\(, [A-Z][A-Z0-9_]*\)*'
	sed -n -e "/^ok - .* # SKIP $p: /{ s/^ok - \\([^:]*\\): \\(.*\\) # SKIP \\($p\\): .*/\\3\\t\\1: \\2/p; d; }" \
		-e "s/^.*SKIP: \\([^:]*\\): \\($p\\): .*/\\2\\t\\1/p" "$@" |
		awk -F'\t' '{ n = split($1, p, ", "); for (i = 1; i <= n; i++) print p[i] "\t" $2 }'
}

# skip_summary: skip_lines' lines on stdin, one summary line a
# prerequisite, most skips first:
#   "# skipped: CONCURRENCY 2 (t0050-signals: what; t0610-x: what)"
skip_summary() {
	awk -F'\t' '{ n[$1]++; w[$1] = w[$1] (n[$1] > 1 ? "; " : "") $2 }
		END { for (p in n) printf "%d\t# skipped: %s %d (%s)\n", n[p], p, n[p], w[p] }' |
		sort -t "$(printf '\t')" -k1,1nr -k2 | cut -f2-
}

# skip_count PREREQ: how many of skip_lines' lines on stdin name PREREQ.
skip_count() {
	awk -F'\t' -v p="$1" '$1 == p { n++ } END { print n + 0 }'
}
