#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# lib/ is split into layers, each folder allowed to include only the ones
# below it:
#   base    buffers, hash tables, logging, JSON writer, atomic output
#   sym     kernel and user symbols (kallsyms, ELF, DWARF)
#   format  the profile file: store, reader, writer, counter tables
#   record  the collector and the probe families (the only code on BPF maps)
#   view    models built from a profile: locks, hits, fd, pagecache, tables, top, diff
#   out     the table renderer (text, CSV, JSON), exports: pprof, folded, SVG
#   run     the recorder of record, top and serve: the workload, the loop
#           that moves rows from the collector to the writer, the options;
#           on record, never on view or out (what it prints is tool/'s)
#   serve   lockstat serve: segment directory, metrics, pprof windows, HTTP,
#           and the recorder that feeds them (on top of run)
# tool/ may include any of them. A bare #include "x.h" is resolved as the
# compiler does (the including file's folder, then -Ilib -Ibpf): a file of
# the same folder is its own layer; bpf/'s headers and the generated
# skeletons (*.skel.h) belong to record alone. The file format owns its
# constants (lib/format/consts.h): bpf/ includes that one header of lib/
# and nothing else, and it includes no libc.
# Prints each violation; exit 1 if any.
#
# check-layers.sh --self-test: checks that a tree with a violation fails
# and one without passes.
here=$(cd "$(dirname "$0")" && pwd)

self_test() {
	local t rc=0
	t=$(mktemp -d) || exit 1
	mkdir -p "$t/lib/format" "$t/lib/record" "$t/lib/view" "$t/bpf"
	printf '#include "format/consts.h"\n' >"$t/bpf/x.h"
	printf '#include <linux/types.h>\n' >"$t/lib/format/consts.h"
	printf '#include "format/consts.h"\n#include "x.h"\n#include "x.skel.h"\n' >"$t/lib/record/c.c"
	printf '#include "c.h"\n' >"$t/lib/view/v.c"
	printf '\n' >"$t/lib/view/c.h"
	LAYERS_ROOT=$t "$0" || { echo "self-test: a clean tree fails" >&2; rc=1; }
	for bad in 'lib/format/p.h:#include "x.h"' 'lib/view/w.c:#include "x.h"' \
		   'lib/format/q.c:#include "record/c.h"' 'lib/view/s.c:#include "x.skel.h"' \
		   'lib/format/r.c:#include "nowhere.h"' 'bpf/y.h:#include "view/c.h"' \
		   'lib/format/consts.h:#include <stdio.h>'; do
		cp -a "$t" "$t.bad"
		printf '%s\n' "${bad#*:}" >>"$t.bad/${bad%%:*}"
		if LAYERS_ROOT=$t.bad "$0" 2>/dev/null; then
			echo "self-test: ${bad%%:*} with ${bad#*:} passes" >&2
			rc=1
		fi
		rm -rf "$t.bad"
	done
	rm -rf "$t"
	[ $rc = 0 ] && echo "check-layers self-test: ok"
	exit $rc
}
[ "$1" = --self-test ] && self_test

cd "${LAYERS_ROOT:-$here/..}" || exit 1
declare -A allowed=(
	[base]="base"
	[sym]="base sym"
	[format]="base sym format"
	[record]="base sym format record"
	[view]="base sym format view"
	[out]="base sym format view out"
	[run]="base sym format record run"
	[serve]="base sym format record run view out serve"
)
bad=0

# The layer a quoted include of file f (in layer) resolves to, or "bpf", "skel", "?".
resolve() {
	local f=$1 inc=$2
	if [ -e "$(dirname "$f")/$inc" ]; then
		case $inc in
		*/*) echo "?" ;;	# no climbing out of the folder
		*) echo "${f#lib/}" | cut -d/ -f1 ;;
		esac
	elif [[ $inc == */* ]] && [ -e "lib/$inc" ]; then
		echo "${inc%%/*}"
	elif [[ $inc != */* ]] && [ -e "bpf/$inc" ]; then
		echo bpf
	elif [[ $inc == *.skel.h && $inc != */* ]]; then
		echo skel
	else
		echo "?"
	fi
}

includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

for layer in "${!allowed[@]}"; do
	for f in lib/"$layer"/*.[ch]; do
		[ -e "$f" ] || continue
		while IFS= read -r inc; do
			dep=$(resolve "$f" "$inc")
			case $dep in
			"?")
				echo "$f includes \"$inc\": not found in its folder, lib/ or bpf/" >&2
				bad=1
				continue ;;
			bpf | skel)
				[ "$layer" = record ] && continue
				echo "$f includes \"$inc\" ($dep): only lib/record uses BPF headers" >&2
				bad=1
				continue ;;
			esac
			[[ " ${allowed[$layer]} " == *" $dep "* ]] && continue
			echo "$f includes \"$inc\": lib/$layer may not depend on lib/$dep" >&2
			bad=1
		done < <(includes "$f")
	done
done
for f in bpf/*.[ch]; do
	[ -e "$f" ] || continue
	while IFS= read -r inc; do
		[ "$inc" = format/consts.h ] && continue
		[[ $inc != */* && (-e bpf/$inc || -e bpf/vmlinux/$inc) ]] && continue
		echo "$f includes \"$inc\": bpf/ includes its own headers and format/consts.h only" >&2
		bad=1
	done < <(includes "$f")
done
if grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' lib/format/consts.h | grep -v '<linux/' >&2; then
	echo "lib/format/consts.h: BPF C includes it, no libc headers" >&2
	bad=1
fi
for f in lib/*.[ch]; do
	[ -e "$f" ] && { echo "$f: every lib/ file belongs to a layer folder" >&2; bad=1; }
done
exit $bad
