#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fuzz the profile reader for a bounded time, seeded with the fixtures.
# Usage: run-fuzz.sh FUZZER SECONDS
# Without clang's libFuzzer (checked by building an empty fuzzer, not by
# trusting the Makefile) the tier is skipped, exit 77; with it, a FUZZER
# that is not there failed to build, and the tier fails.
fuzzer=$1 secs=${2:-30}
dir=$(cd "$(dirname "$0")" && pwd)

has_libfuzzer() {
	local t rc
	t=$(mktemp -d /tmp/lockstat-fuzz-probe.XXXXXX) || return 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' >"$t/probe.c"
	${CLANG:-clang} -fsanitize=fuzzer "$t/probe.c" -o "$t/probe" >/dev/null 2>&1
	rc=$?
	rm -rf "$t"
	return $rc
}

if [ ! -x "$fuzzer" ]; then
	if has_libfuzzer; then
		echo "not ok - fuzz: $fuzzer was not built, yet clang builds fuzzers here (see the build's errors)"
		echo "fuzz: 0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	echo "SKIP: fuzz tier: LIBFUZZER: clang -fsanitize=fuzzer does not build here (Debian: clang, libclang-rt-dev)"
	echo "fuzz: 0 passed, 0 failed, 1 skipped"
	exit 77
fi
corpus=$(mktemp -d /tmp/lockstat-fuzz.XXXXXX)
trap 'rm -rf "$corpus" "$corpus.log"' EXIT
cp "$dir"/data/*.data "$corpus"/
if "$fuzzer" -max_total_time="$secs" -max_len=65536 -print_final_stats=0 "$corpus" >"$corpus.log" 2>&1; then
	echo "fuzz: $(grep -o 'Done [0-9]* runs' "$corpus.log" | tail -n 1) in $secs s"
	echo "fuzz: 1 passed, 0 failed, 0 skipped"
else
	tail -n 40 "$corpus.log"
	echo "fuzz: crash input kept in $PWD (crash-*); log above"
	echo "fuzz: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
