#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# lib/ is split into layers, each folder allowed to include only the ones
# below it (and bpf/'s shared headers and skeletons):
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
# tool/ may include any of them. Prints each violation; exit 1 if any.
cd "$(dirname "$0")/.." || exit 1
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
for layer in "${!allowed[@]}"; do
	for f in lib/"$layer"/*.[ch]; do
		[ -e "$f" ] || continue
		while IFS= read -r inc; do
			dep=${inc%%/*}
			[ "$dep" = "$inc" ] && continue	# bpf/ headers and skeletons
			[[ " ${allowed[$layer]} " == *" $dep "* ]] && continue
			echo "$f includes $inc: lib/$layer may not depend on lib/$dep" >&2
			bad=1
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
	done
done
for f in lib/*.[ch]; do
	[ -e "$f" ] && { echo "$f: every lib/ file belongs to a layer folder" >&2; bad=1; }
done
exit $bad
