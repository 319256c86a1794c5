#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fuzz the profile reader for a bounded time, seeded with the fixtures.
# Usage: run-fuzz.sh FUZZER SECONDS
fuzzer=$1 secs=${2:-30}
dir=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$fuzzer" ]; then
	echo "SKIP: fuzz tier: $fuzzer was not built (clang with libFuzzer, Debian libclang-rt-dev, is needed)"
	echo "fuzz: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
corpus=$(mktemp -d /tmp/lockstat-fuzz.XXXXXX)
trap 'rm -rf "$corpus"' EXIT
cp "$dir"/data/*.data "$corpus"/
if "$fuzzer" -max_total_time="$secs" -max_len=65536 -print_final_stats=0 "$corpus" >"$corpus.log" 2>&1; then
	echo "fuzz: $(grep -c . "$corpus.log" >/dev/null; grep -o 'Done [0-9]* runs' "$corpus.log" | tail -n 1) in $secs s"
	echo "fuzz: 1 passed, 0 failed"
	rm -f "$corpus.log"
else
	tail -n 40 "$corpus.log"
	echo "fuzz: crash input kept in $PWD (crash-*); log above"
	echo "fuzz: 0 passed, 1 failed"
	rm -f "$corpus.log"
	exit 1
fi
