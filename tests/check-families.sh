#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The man pages' lists of probe families against the family table
# (LOCKSTAT_FAMILIES in lib/format/families.h), as bpftool checks its
# documentation against its code: a family added to the table without
# its man text, or text left for one removed, fails here.
#   lockstat-record(1)  -e: one entry per family, in the table's order;
#                       the default set, and what comes with locks
#   lockstat-probe(1)   PROBE FAMILIES: one entry per family, in order;
#                       the example's family lines, in order
#   lockstat-top(1)     -e: every family, in order; the default set
#   lockstat-data(5),   the families that write counter tables
#   lockstat-report(1)
# Prints each mismatch; exit 1 if any.
#
# check-families.sh --self-test: a table with one more family, and a man
# page with one family less, must each fail; the tree as it is must pass.
here=$(cd "$(dirname "$0")" && pwd)

self_test() {
	local t rc=0
	t=$(mktemp -d) || exit 1
	mkdir -p "$t/lib/format"
	cp -a "$here/../man" "$t/man"
	cp "$here/../lib/format/families.h" "$t/lib/format/"
	FAMILIES_ROOT=$t "$0" || { echo "self-test: the tree as it is fails" >&2; rc=1; }
	cp -a "$t" "$t.bad"
	sed -i 's/^\(\tF(LOCKS, locks, FAM_DEFAULT,.*\)$/\tF(DUMMY, dummy, FAM_TABLES, "a family without man text") \\\n\1/' \
		"$t.bad/lib/format/families.h"
	grep -q 'F(DUMMY, dummy' "$t.bad/lib/format/families.h" || { echo "self-test: no dummy added" >&2; rc=1; }
	if FAMILIES_ROOT=$t.bad "$0" 2>/dev/null; then
		echo "self-test: a family without man text passes" >&2
		rc=1
	fi
	rm -rf "$t.bad"
	cp -a "$t" "$t.bad"
	sed -i '/^\.B uprobes$/,+1d' "$t.bad/man/lockstat-probe.1"
	if FAMILIES_ROOT=$t.bad "$0" 2>/dev/null; then
		echo "self-test: lockstat-probe(1) without uprobes passes" >&2
		rc=1
	fi
	rm -rf "$t.bad" "$t"
	[ $rc = 0 ] && echo "check-families self-test: ok"
	exit $rc
}
[ "$1" = --self-test ] && self_test

cd "${FAMILIES_ROOT:-$here/..}" || exit 1
bad=0

# "name flags" per family, in the table's order.
table=$(sed -n 's/^[[:space:]]*F([A-Z_0-9]*, \([a-z_0-9]*\), \([^,]*\),.*/\1 \2/p' lib/format/families.h)
names=$(echo "$table" | cut -d' ' -f1)
[ -n "$names" ] || { echo "lib/format/families.h: no family found in LOCKSTAT_FAMILIES" >&2; exit 1; }
has() { echo "$table" | awk -v want="$1" -v not="$2" '{ f = $0; sub(/^[^ ]* /, "", f) }
	index(f, want) && !(not != "" && index(f, not)) { print $1 }'; }
defaults=$(has FAM_DEFAULT FAM_WITH_LOCKS | paste -sd, -)
with_locks=$(has FAM_WITH_LOCKS | paste -sd' ' -)
tables=$(has FAM_TABLES | awk '{ w[NR] = $1 } END { for (i = 1; i <= NR; i++)
	printf "%s%s", w[i], i == NR ? "" : i == NR - 1 ? " and " : ", " }')

# what list: expected names vs. names found, each one per line.
compare() {
	local what=$1 found=$2
	if [ "$found" != "$names" ]; then
		echo "$what: lists $(echo $found | tr ' ' ,), the family table $(echo $names | tr ' ' ,)" >&2
		bad=1
	fi
}

# The .TP entries' names between the line matching start and the end of
# that list (.RE at its level, or the next section).
entries() {
	awk -v start="$2" '
		!on && $0 ~ start { on = 1; depth = 0; level = start ~ /SH/ ? 0 : 1; next }
		!on { next }
		/^\.SH/ { exit }
		/^\.RS/ { depth++; next }
		/^\.RE/ { if (--depth < level) exit; next }
		/^\.TP/ { tp = depth == level; next }
		tp && /^\.BR? / { print $2; tp = 0; next }
		{ tp = 0 }' "$1"
}

compare "man/lockstat-record.1 -e" "$(entries man/lockstat-record.1 '^[.]BI \\\\-e ", " \\\\-\\\\-events " list"')"
compare "man/lockstat-probe.1 PROBE FAMILIES" "$(entries man/lockstat-probe.1 '^[.]SH PROBE FAMILIES')"
compare "man/lockstat-probe.1 example" \
	"$(awk '/^family +mode +why/ { on = 1; next } on && (/^$/ || /^\./) { exit } on { print $1 }' man/lockstat-probe.1)"
compare "man/lockstat-top.1 -e" \
	"$(awk '/^\.BR \\-e ", " \\-\\-events/ { on = 1; next } on && /^default/ { exit }
		on && /^\.BR [a-z_]+ [,;]$/ { print $2 }' man/lockstat-top.1)"

# One page as one line, roff escapes of '-' undone: for phrases that wrap.
flat() { tr '\n' ' ' <"$1" | sed 's/\\-/-/g'; }
phrase() {
	local page=$1 text=$2
	if ! flat "$page" | grep -qF -- "$text"; then
		echo "$page: no \"$text\" (from the family table)" >&2
		bad=1
	fi
}
phrase man/lockstat-record.1 "Default: .B $defaults (and with them .BR $with_locks )."
phrase man/lockstat-top.1 "default .BR $defaults ."
phrase man/lockstat-data.5 "(the $tables families write them"
phrase man/lockstat-report.1 "of the $tables families, one table"
exit $bad
