#!/bin/bash
# lockstat top --replay: a recorded profile played through top's model and
# snapshots, by the ASan/UBSan build and without root (as nobody when the
# test runs as root). The last snapshot's totals are report's, the
# intervals add up to them, and the pace follows --speed.
. "$(dirname "$0")/lib.sh"
require_cmd jq
ASAN=${ASAN_LOCKSTAT:-$ROOT_DIR/build/asan/lockstat}
[ -x "$ASAN" ] || skip_all "ASAN: $ASAN is not built (make unit-tests)"
# Exit codes of their own: a sanitizer report never passes for an exit 1.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=98
DATA=$ROOT_DIR/tests/data

# Unprivileged where we can: replay must not need root.
as_user() {
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
chmod 755 "$T"

clean() { ! grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$1"; }

for f in "$DATA"/*.data; do
	n=$(basename "$f" .data)
	as_user "$ASAN" top --replay "$f" --speed 0 -f json >"$n.jsonl" 2>"$n.err"
	rc=$?
	check "$n: replayed by the sanitized build, exit 0 ($rc)" test $rc = 0
	check "$n: no sanitizer report" clean "$n.err"
	check "$n: one JSON object per interval, the last one final" jqe -s 'length >= 1 and .[-1].final and ([.[:-1][] | .final] | all(. == false))' "$n.jsonl"
	"$LOCKSTAT" report -i "$f" -f json >"$n.report.json" 2>/dev/null
	check "$n: the last snapshot's locks are report's, count for count" test \
		"$(jq -c '[.locks[] | select(.contended > 0) | {name, type, contended, wait_total_ns}] | sort_by(.name, .type)' "$n.report.json")" = \
		"$(jq -s -c '[.[-1].locks[] | {name, type, contended: .cumulative.contended, wait_total_ns: .cumulative.wait_total_ns}] | sort_by(.name, .type)' "$n.jsonl")"
	check "$n: the intervals add up to the total" jqe -s '([.[].totals.interval.contended] | add) == .[-1].totals.cumulative.contended' "$n.jsonl"
done

check "hotspots: user functions are named from the first interval on" \
	jqe -s '.[0].functions | map(.symbol) | index("hot_three") != null' hotspots.jsonl
check "hotspots: the hit list is report's" test \
	"$("$LOCKSTAT" report -i "$DATA/hotspots.data" --view hits -f json | jq -c '[.functions[] | {symbol, samples}] | sort_by(.symbol)')" = \
	"$(jq -s -c '[.[-1].functions[] | {symbol, samples: .cumulative.samples}] | sort_by(.symbol)' hotspots.jsonl)"

check "the replays ran without root (uid $(as_user id -u))" test "$(as_user id -u)" != 0

secs() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
slow=$(secs as_user "$ASAN" top --replay "$DATA/fdstorm.data" --speed 1 -b)
fast=$(secs as_user "$ASAN" top --replay "$DATA/fdstorm.data" --speed 0 -b)
check "--speed 1 takes the recorded time (${slow} ms for 1.2 s of 1 s intervals)" test "$slow" -ge 900
check "--speed 0 is as fast as it can ($fast ms)" test "$fast" -lt "$slow"
as_user "$ASAN" top --replay "$DATA/fdstorm.data" --speed 0 -i 2 -f json >i2.jsonl 2>i2.err
check "-i 2: the 1 s buckets of 1.2 s fit in one interval" jqe -s 'length == 1 and .[0].totals.interval.contended == .[0].totals.cumulative.contended' i2.jsonl
as_user "$ASAN" top --replay "$DATA/fdstorm.data" --speed 0 -f json --comm 'fdstorm*' --rows 1 >c.jsonl 2>c.err
check "--comm and --rows: one lock, the fd table's" jqe -s '.[-1].locks | length == 1 and .[0].name == "files_struct.file_lock"' c.jsonl
as_user "$ASAN" top --replay "$DATA/fdstorm.data" --speed 0 -b >text.out 2>text.err
check "--batch text ends with the final snapshot" sh -c "grep -q '^lockstat top (final)' text.out && grep -q 'files_struct.file_lock' text.out"

size=$(stat -c %s "$DATA/fdstorm.data")
head -c $((size * 2 / 3)) "$DATA/fdstorm.data" >cut.data
as_user "$ASAN" top --replay cut.data --speed 0 -f json >cut.jsonl 2>cut.err
rc=$?
check "a cut profile is replayed up to the cut, with a warning ($rc)" sh -c "test $rc = 0 && grep -q 'truncated at byte' cut.err"
check "a cut profile: valid JSON, no sanitizer report" sh -c "jq -e -s '.[-1].final' cut.jsonl >/dev/null && ! grep -q Sanitizer cut.err"
echo "not a profile" >bad.data
as_user "$ASAN" top --replay bad.data -b >/dev/null 2>bad.err
check "not a profile: exit 1, said in one line ($?)" sh -c "test $? = 1 && grep -q 'bad magic' bad.err && test \$(wc -l <bad.err) = 1"
as_user "$ASAN" top --replay nosuch.data -f json >nosuch.json 2>/dev/null
check "a missing file in JSON mode: the error is JSON too" jqe 'has("error")' nosuch.json
done_testing
