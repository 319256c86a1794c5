#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Check build dependencies and their minimum versions, with one clear line each.
fail=0
need() {
	command -v "$1" >/dev/null 2>&1 || { echo "lockstat build: '$1' not found: $2 (run 'make deps')" >&2; fail=1; }
}
need clang "install clang (>= 11)"
need bpftool "install bpftool"
need pkg-config "install pkg-config"
if command -v clang >/dev/null 2>&1; then
	v=$(clang -dumpversion | cut -d. -f1)
	[ "$v" -ge 11 ] 2>/dev/null || { echo "lockstat build: clang $v is too old, need >= 11" >&2; fail=1; }
fi
if command -v pkg-config >/dev/null 2>&1; then
	for lib in "libbpf 1.0" "libelf 0.176" "zlib 1.2"; do
		set -- $lib
		pkg-config --atleast-version="$2" "$1" 2>/dev/null ||
			{ echo "lockstat build: $1 >= $2 not found (Debian: libbpf-dev libelf-dev zlib1g-dev; run 'make deps')" >&2; fail=1; }
	done
fi
exit $fail
