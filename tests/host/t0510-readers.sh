#!/bin/bash
# Every export carries exactly report's totals, kernel and user locks
# alike: folded, pprof, JSON, CSV, SVG and diff's SVG, on recordings of
# mutexstorm (user locks: its pthread mutex) and fdstorm (kernel locks:
# its fd table's spinlock), both with -e locks,ulocks. The totals come
# from report's JSON; each export is summed by a script of its own (the
# pprof file is decoded here, not by lockstat).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq; require_cmd python3

# Sum of every sample's value number $2 of the gzip'd profile.proto $1.
pprof_sum() {
	python3 - "$1" "$2" <<'EOF'
import gzip, sys

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i

def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i); v = b[i:i + n]; i += n
        else:
            sys.exit("unexpected wire type %d" % wire)
        yield num, wire, v

total, which = 0, int(sys.argv[2])
for num, wire, sample in fields(gzip.open(sys.argv[1]).read()):
    if num != 2:	# Profile.sample
        continue
    values = []
    for snum, swire, v in fields(sample):
        if snum != 2:	# Sample.value, packed or not
            continue
        if swire == 0:
            values.append(v)
        else:
            i = 0
            while i < len(v):
                x, i = varint(v, i); values.append(x)
    total += values[which]
print(total)
EOF
}

# "total" of report: wait (ns) or count (contended)
report_total() { jq ".total.$([ "$2" = wait ] && echo wait_total_ns || echo contended)" "$1.json"; }

# Every export of profile $1 with --value $2 against report's total.
exports_agree() {
	local f=$1 value=$2 want got fmt idx
	want=$(report_total "$f" "$value")
	got=$("$LOCKSTAT" export -i "$f.data" -w locks --value "$value" | awk '{ s += $NF } END { printf "%d", s }')
	[ "$got" = "$want" ] || { echo "# $f folded $value: $got, report $want"; return 1; }
	"$LOCKSTAT" export -i "$f.data" -w locks --value "$value" -f json >"$f.exp.json"
	got=$(jq '[.total, ([.stacks[].value] | add)] | unique | if length == 1 then .[0] else -1 end' "$f.exp.json")
	[ "$got" = "$want" ] || { echo "# $f json $value: $got, report $want"; return 1; }
	got=$("$LOCKSTAT" export -i "$f.data" -w locks --value "$value" -f csv | awk -F, 'NR > 1 { s += $1 } END { printf "%d", s }')
	[ "$got" = "$want" ] || { echo "# $f csv $value: $got, report $want"; return 1; }
	got=$("$LOCKSTAT" export -i "$f.data" -w locks --value "$value" -f svg |
		sed -n 's/.*<g class="f" data-n="all" data-v="\([0-9]*\)".*/\1/p' | head -n 1)
	[ "$got" = "$want" ] || { echo "# $f svg $value: $got, report $want"; return 1; }
	idx=$([ "$value" = wait ] && echo 1 || echo 0)
	got=$(pprof_sum "$f.pb.gz" "$idx")
	[ "$got" = "$want" ] || { echo "# $f pprof $value: $got, report $want"; return 1; }
}

# diff -f svg of a profile against itself: both sides are report's total per second.
diff_svg_agrees() {
	local f=$1 want secs root
	want=$(report_total "$f" wait)
	secs=$(jq '.meta.duration_ns / 1e9' "$f.json")
	root=$("$LOCKSTAT" diff -f svg "$f.data" "$f.data" | grep -o '<g class="f" data-n="all"[^>]*>' | head -n 1)
	awk -v r="$root" -v want="$want" -v secs="$secs" 'BEGIN {
		if (!match(r, /data-b="[0-9.e+]*"/)) exit 1
		b = substr(r, RSTART + 8, RLENGTH - 9)
		if (!match(r, /data-p="[0-9.e+]*"/)) exit 1
		p = substr(r, RSTART + 8, RLENGTH - 9)
		rate = want / secs
		exit !(rate > 0 && b == p && (b - rate) / rate < 1e-9 && (rate - b) / rate < 1e-9)
	}' || { echo "# $f diff svg root: $root, report $want ns over $secs s"; return 1; }
}

record() {	# name, workload and its arguments
	local f=$1
	shift
	"$LOCKSTAT" record -q -e locks,ulocks -t -o "$f.data" -- "$@" >/dev/null &&
		"$LOCKSTAT" report -i "$f.data" -f json >"$f.json" &&
		"$LOCKSTAT" export -i "$f.data" -w locks -f pprof -o "$f.pb.gz"
}

check "record -e locks,ulocks mutexstorm" record ms "$WL/mutexstorm" -t 2 -H 1000 -d 2 -q
check "record -e locks,ulocks fdstorm" record fd "$WL/fdstorm" -t 2 -d 2 -q
users=$(jq '[.locks[] | select(.user) | .contended] | add // 0' ms.json)
kernel=$(jq '[.locks[] | select(.user | not) | .contended] | add // 0' fd.json)
check "mutexstorm's profile has user-lock waits to export ($users)" test "$users" -gt 0
check "fdstorm's profile has kernel-lock waits to export ($kernel)" test "$kernel" -gt 0
for f in ms fd; do
	for v in wait count; do
		check "$f: folded, JSON, CSV, SVG and pprof exports add up to report's total ($v)" exports_agree "$f" "$v"
	done
	check "$f: diff -f svg of the profile against itself is report's total per second" diff_svg_agrees "$f"
done
check "a user lock's export stack is its user stack (no kernel frame)" \
	jqe '[.stacks[] | select(.type | startswith("u:")) | .frames | length > 0 and all(.kernel | not)] | length > 0 and all' ms.exp.json
names_agree() {	# the locks with waits, by name and type, in report and in the export
	[ "$(jq -c '[.locks[] | select(.contended > 0) | [.name, .type]] | unique' "$1.json")" = \
	  "$(jq -c '[.stacks[] | [.lock, .type]] | unique' "$1.exp.json")" ]
}
check "mutexstorm: the export's locks are report's, by name and type" names_agree ms
check "fdstorm: the export's locks are report's, by name and type" names_agree fd
done_testing
