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
	for lib in "libbpf 1.0 libbpf-dev" "libelf 0.176 libelf-dev" "zlib 1.2 zlib1g-dev" \
		"libmicrohttpd 0.9.73 libmicrohttpd-dev (lockstat serve's HTTP server)"; do
		set -- $lib
		name=$1 version=$2
		shift 2
		pkg-config --atleast-version="$version" "$name" 2>/dev/null ||
			{ echo "lockstat build: $name >= $version not found (Debian: $*; run 'make deps')" >&2; fail=1; }
	done
fi
exit $fail
