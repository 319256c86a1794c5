#!/bin/bash
# --cgroup: only the tasks of one cgroup v2 directory and its descendants
# are recorded. Two copies of fdstorm run at once, one inside a cgroup
# this test makes, one outside: the inside one's lock waits and samples
# are in the profile, the outside one's never. By absolute path, by a
# path inside the hierarchy, for record and serve; and the refusals.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_cmd jq

cg2=$(awk '{ split($0, p, " - "); split(p[2], t, " ") } t[1] == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$cg2" ] || skip_all "CGROUP2: no cgroup v2 hierarchy mounted"
name=lockstat-t0440-$$
cg=$cg2/$name
mkdir "$cg" 2>mkdir.err || skip_all "CGROUP2: cannot make a cgroup in $cg2: $(cat mkdir.err)"
cleanup_cgroup() { for i in $(seq 50); do rmdir "$cg" 2>/dev/null && return; sleep 0.1; done; }
trap cleanup_cgroup EXIT

# in_and_out RECORD-COMMAND...: fdstorm inside the cgroup and outside
# while the command runs; their PIDs in $in and $out.
in_and_out() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$1" -t 2 -d 4 -q' "$cg" "$WL/fdstorm" >/dev/null &
	in=$!
	"$WL/fdstorm" -t 2 -d 4 -q >/dev/null &
	out=$!
	sleep 0.3
	"$@"
	rc=$?
	wait $in $out
	return $rc
}

# per_pid PROFILE PID: "WAITS SAMPLES" of that process.
per_pid() {
	local w s
	w=$("$LOCKSTAT" report -i "$1" --pid "$2" -f json | jq '[.locks[].contended] | add // 0')
	s=$("$LOCKSTAT" report -i "$1" --view hits --pid "$2" -f json | jq '.total_samples')
	echo "$w $s"
}

in_and_out "$LOCKSTAT" record -q --cgroup "$cg" -e locks,sample -t -d 2 -o abs.data 2>abs.err
check "record --cgroup ABSOLUTE-PATH exits 0" test $? = 0 || cat abs.err
read -r in_w in_s <<<"$(per_pid abs.data $in)"
read -r out_w out_s <<<"$(per_pid abs.data $out)"
check "the cgroup's fdstorm was sampled ($in_s samples, $in_w waits)" test "$in_s" -gt 0
check "the other fdstorm is nowhere: no wait, no sample ($out_w, $out_s)" test "$out_w" = 0 -a "$out_s" = 0
check "every wait and sample of the profile is the cgroup's fdstorm's" \
	test "$("$LOCKSTAT" report -i abs.data -f json | jq '[.locks[].contended] | add // 0')" = "$in_w" -a \
	     "$("$LOCKSTAT" report -i abs.data --view hits -f json | jq '.total_samples')" = "$in_s"
check "the header names the target by its path in the hierarchy" \
	grep -q "target cgroup /$name\$" <("$LOCKSTAT" report -i abs.data | sed -n 2p | sed 's/.*, //')

# A path in the hierarchy, as systemd names units' cgroups; the root
# takes in every descendant.
in_and_out "$LOCKSTAT" record -q --cgroup "$name" -e sample -t -d 1 -o rel.data 2>rel.err
check "record --cgroup PATH-IN-HIERARCHY exits 0" test $? = 0 || cat rel.err
read -r in_w in_s <<<"$(per_pid rel.data $in)"
read -r out_w out_s <<<"$(per_pid rel.data $out)"
check "... the same: the cgroup's samples ($in_s), none of the other's ($out_s)" test "$in_s" -gt 0 -a "$out_s" = 0
in_and_out "$LOCKSTAT" record -q --cgroup / -e sample -t -d 1 -o root.data 2>root.err
read -r in_w in_s <<<"$(per_pid root.data $in)"
read -r out_w out_s <<<"$(per_pid root.data $out)"
check "--cgroup / takes in every descendant: both fdstorms ($in_s, $out_s)" test "$in_s" -gt 0 -a "$out_s" -gt 0

# serve: the same filter, written into each segment.
mkdir segs
in_and_out sh -c '"$0" serve --cgroup "$1" -e sample -t --listen none --dir segs -q & p=$!; sleep 2.5; kill -TERM $p; wait $p' \
	"$LOCKSTAT" "$cg" 2>serve.err
check "serve --cgroup exits 0 on SIGTERM" test $? = 0 || cat serve.err
seg=$(ls segs/*.data | tail -n 1)
read -r in_w in_s <<<"$(per_pid "$seg" $in)"
read -r out_w out_s <<<"$(per_pid "$seg" $out)"
check "serve --cgroup: the cgroup's samples ($in_s), none of the other's ($out_s)" test "$in_s" -gt 0 -a "$out_s" = 0

# Refusals: an exit code, no profile, and why on the first line (a usage
# error, exit 2, adds the usage after it).
refuse() {	# refuse "what" CODE ERROR-RE ARGS...
	local what=$1 code=$2 re=$3
	shift 3
	rm -f no.data
	"$LOCKSTAT" "$@" >/dev/null 2>no.err
	rc=$?
	check "$what: exit $code, no profile (exit $rc: $(head -n 1 no.err))" test "$rc" = "$code" -a ! -e no.data
	check "$what: it says why" grep -Eq -- "$re" <(head -n 1 no.err)
	[ "$code" = 2 ] || check "$what: in one line" test "$(wc -l <no.err)" = 1
}
refuse "no such cgroup" 1 "^lockstat: --cgroup: .*$name-none: No such file or directory" \
	record --cgroup "$name-none" -d 1 -o no.data
refuse "a directory outside the hierarchy" 1 "/tmp is neither a directory of the cgroup v2 hierarchy \(mounted at $cg2\) nor a path in it" \
	record --cgroup /tmp -d 1 -o no.data
refuse "--cgroup with a command" 2 "give it without -p PID or a COMMAND" \
	record --cgroup "$cg" -o no.data -- true
refuse "--cgroup with -p" 2 "give it without -p PID or a COMMAND" record --cgroup "$cg" -p 1 -o no.data
refuse "--cgroup with -a" 2 "-a and --cgroup exclude each other" record -a --cgroup "$cg" -o no.data
refuse "an empty --cgroup" 2 "^lockstat: --cgroup: an empty path" record --cgroup "" -d 1 -o no.data
refuse "serve: no such cgroup" 1 "^lockstat: --cgroup: .*$name-none: No such file or directory" \
	serve --cgroup "$name-none" --listen none --dir segs-none
done_testing
