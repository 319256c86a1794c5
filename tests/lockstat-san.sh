#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The sanitized lockstat as tests/run-fixtures.sh runs it: $SAN_BIN with
# these arguments, its stdin and stdout its own, its stderr passed
# through; any sanitizer report (exit 99 from ASan or 98 from UBSan, as
# the tier sets them, or a report's text on stderr) is also appended to
# $SAN_LOG, which the tier's check() reads. A script rather than a shell
# function, so that timeout, sh -c and tmux can run it too.
err=$SAN_LOG.err.$$
"$SAN_BIN" "$@" 2>"$err"
rc=$?
IFS= read -r -d '' text <"$err"
rm -f "$err"
if [ $rc = 98 ] || [ $rc = 99 ] || [[ $text =~ ERROR:\ [A-Za-z]*Sanitizer|runtime\ error: ]]; then
	printf 'sanitizer report (exit %s) from: lockstat %s\n%s\n' "$rc" "$*" "$text" >>"$SAN_LOG"
fi
printf '%s' "$text" >&2	# exactly what it wrote
exit $rc
