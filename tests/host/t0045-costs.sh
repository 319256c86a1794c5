#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What a recording cost (tool/say.c, session__say_costs): record ends
# with a "probe cost:" line for every family it ran, with the target
# filter's fork follower when it follows a workload, and an "own CPU:"
# line whose user + sys agrees with what bash's `times` counts for the
# lockstat process (a -a recording: no workload among its children);
# -q prints neither. -e -NAME takes a family out.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_perf_event; require_cmd jq

forks() { while :; do /bin/true; done; }
forks & bg=$!
( "$LOCKSTAT" record -a -d 2 -o all.data 2>all.err & rec=$!
  sleep 1.5; awk '$1 == "VmRSS:" { print $2 }' "/proc/$rec/status" >rss.kib 2>/dev/null
  wait "$rec"; echo "rc=$?" >all.rc; times >times.out )
kill "$bg"; wait "$bg" 2>/dev/null
sed 's/^/# /' all.err
check "record -a exits 0 ($(cat all.rc))" grep -qx 'rc=0' all.rc
num='[0-9]+(\.[0-9]+)?'
for fam in locks sample mmap_lock; do
	check "a cost line for $fam" grep -Eq "probe cost: $fam +$num events/s x +$num ns = +$num % of one CPU" all.err
done
mm=$(sed -n 's/.*probe cost: mmap_lock *\([0-9]*\) events.*/\1/p' all.err)
check "mmap_lock ran under a fork loop (${mm:-none} events/s)" test "${mm:-0}" -gt 0

own=$(sed -n 's/.*own CPU: \([0-9.]*\) s (user.*/\1/p' all.err)
# `times`: the shell's own line, then its children's (lockstat alone).
tot=$(awk 'NR == 2 { n = split($0, f, /[ms ]+/); print f[1] * 60 + f[2] + f[3] * 60 + f[4] }' times.out)
echo "# own CPU ${own:-?} s, times: ${tot:-?} s ($(tail -n 1 times.out))"
check "own CPU (${own:-?} s) is what times counts (${tot:-?} s) within 10 % + 0.05 s" \
	awk -v a="${own:-x}" -v b="${tot:-x}" 'BEGIN { d = a - b; if (d < 0) d = -d;
		exit !(a > 0 && b > 0 && d <= 0.1 * b + 0.05) }'
check "own CPU says where it went" grep -Eq "own CPU: .*drains $num ms a bucket \([0-9]+ buckets, [0-9]+ map entries read a bucket\), the end $num s in $num s; peak RSS $num MiB" all.err
# The peak is at least what /proc showed resident in the middle of the run.
peak=$(sed -n 's/.*; peak RSS \([0-9.]*\) MiB.*/\1/p' all.err)
mid=$(cat rss.kib 2>/dev/null)
check "peak RSS (${peak:-?} MiB) >= VmRSS in the run (${mid:-?} KiB), under 4 GiB" \
	awk -v p="${peak:-x}" -v m="${mid:-x}" 'BEGIN { exit !(m > 0 && p * 1024 >= m && p < 4096) }'

"$LOCKSTAT" record -o wl.data -- sh -c 'for i in 1 2 3 4 5 6 7 8; do /bin/true; done' 2>wl.err
check "with a workload, a cost line for the fork follower" grep -Eq "probe cost: targets +$num events/s" wl.err

# -e -NAME takes a family out, even mmap_lock, which locks brings in.
"$LOCKSTAT" record -e -mmap_lock -o nomm.data -- sh -c '/bin/true; /bin/true' 2>nomm.err
check "-e -mmap_lock: locks ran" grep -q 'probe cost: locks ' nomm.err
check "-e -mmap_lock: sample ran" grep -q 'probe cost: sample ' nomm.err
check "-e -mmap_lock: mmap_lock did not" bash -c "! grep -q 'probe cost: mmap_lock' nomm.err"
"$LOCKSTAT" record -e -bogus -o bad.data -- /bin/true 2>bad.err
check "-e -bogus: exit 2 ($?)" test $? = 2
check "-e -bogus: says which word" grep -q "unknown probe family 'bogus'" bad.err
"$LOCKSTAT" record -e locks,-locks -o none.data -- /bin/true 2>none.err
check "-e locks,-locks leaves nothing: exit 2 ($?)" test $? = 2

# The stats map's rows are reserved at load on a small machine: a new row
# is then no allocation inside contention_end. -M beyond 32 MiB of rows
# leaves them to be taken as they appear (BPF_F_NO_PREALLOC, flags 0x1).
stats_flags='bpftool map show name stats | sed -n "s/.*name stats  *flags \(0x[0-9a-f]*\).*/\1/p"'
cpus=$(nproc --all)
if [ "$cpus" -le 9 ]; then
	"$LOCKSTAT" record -v -e locks,-mmap_lock -o pre.data -- sh -c "$stats_flags" >pre.out 2>pre.err
	check "record -v says the stats rows are reserved" grep -q "^stats: 16384 rows reserved at load ($cpus CPUs)" pre.err
	check "the stats map is preallocated (flags $(tr '\n' ' ' <pre.out))" grep -qx '0x0' pre.out
else
	echo "# $cpus CPUs: the default stats map is not preallocated here"
fi
"$LOCKSTAT" record -v -M 1000000 -e locks,-mmap_lock -o big.data -- sh -c "$stats_flags" >big.out 2>big.err
check "-M 1000000: rows taken as they appear (flags $(tr '\n' ' ' <big.out))" grep -qx '0x1' big.out
check "-M 1000000: record -v does not say reserved" bash -c "! grep -q 'rows reserved at load' big.err"

# The sampler's maps are all reserved at load: -M 16777216 would ask for
# 9 GiB of stacks of each kind. Each is held to 64 MiB (elements, buckets
# and the map: bpftool's memlock), said on stderr, and record goes on.
# The maps are found through record's own descriptors (its fdinfo's
# map_id): a map name alone would also find another lockstat's maps.
sampler_maps='for f in /proc/$PPID/fdinfo/*; do sed -n "s/^map_id:[[:space:]]*//p" "$f"; done | sort -un |
	while read -r id; do bpftool -j map show id "$id"; done |
	jq -r "select(.name == \"counts\" or .name == \"kstacks\" or .name == \"ustacks\") | \"\(.name) \(.max_entries) \(.bytes_memlock)\""'
"$LOCKSTAT" record -M 16777216 -e sample -o huge.data -- sh -c "$sampler_maps" >huge.out 2>huge.err
check "-M 16777216 -e sample: record exits 0 ($?)" test $? = 0
for m in counts kstacks ustacks; do
	read -r _ rows bytes <<<"$(grep "^$m " huge.out)"
	check "-M 16777216: the sampler's $m holds ${rows:-?} rows, ${bytes:-?} bytes: within 64 MiB" \
		test "${bytes:-0}" -gt $((48 << 20)) -a "${bytes:-0}" -le $((64 << 20))
	check "-M 16777216: record says $m holds $rows rows" \
		grep -q "warning: sample: $m holds ${rows:-?} rows, not " huge.err
done
check "-M 16777216: the profile is whole" "$LOCKSTAT" fsck huge.data

# kernel.bpf_stats costs every BPF program run two clock reads: record
# holds it on (a "bpf-stats" descriptor) 25 ms of every 250 only, and
# says over how long it measured. The workload, record's child,
# looks for that descriptor every 10 ms for 2 s.
watch_stats='for i in $(seq 200); do ls -l /proc/$PPID/fd | grep -c "anon_inode:bpf-stats"; sleep 0.01; done'
prev=$(cat /proc/sys/kernel/bpf_stats_enabled)
sysctl -q -w kernel.bpf_stats_enabled=0
"$LOCKSTAT" record -e locks,-mmap_lock -o cyc.data -- sh -c "$watch_stats" >cyc.out 2>cyc.err
on=$(grep -c '^1$' cyc.out) off=$(grep -c '^0$' cyc.out)
echo "# the bpf-stats descriptor was open in $on of $((on + off)) looks; $(grep 'measured over' cyc.err)"
check "the stats were on part of the time ($on of $((on + off)) reads, 5 to 30 %)" \
	awk -v on="$on" -v off="$off" 'BEGIN { t = on + off; exit !(t >= 150 && on >= 0.05 * t && on <= 0.3 * t) }'
m=$(sed -n 's/.*probe costs measured over \([0-9.]*\) s of the \([0-9.]*\) s (kernel.bpf_stats on 25 ms of every 250)$/\1 \2/p' cyc.err)
check "the summary says over how long it measured, about a tenth (${m:-no line})" \
	awk -v m="${m:-x}" 'BEGIN { split(m, a, " "); exit !(a[2] > 1.5 && a[1] >= 0.05 * a[2] && a[1] <= 0.3 * a[2]) }'
check "and still gives the locks family's cost" grep -Eq "probe cost: locks +$num events/s" cyc.err
# The first window opens at a random time of the first period: one that
# opened with the session would always measure the workload's start.
first_open=0
for i in $(seq 8); do
	"$LOCKSTAT" record -e locks,-mmap_lock -o ph.data -- \
		sh -c 'ls -l /proc/$PPID/fd | grep -c "anon_inode:bpf-stats"' >ph.out 2>/dev/null
	[ "$(cat ph.out)" = 0 ] || first_open=$((first_open + 1))
done
check "the first window opens at a random time: open as the workload starts in $first_open of 8 runs (at most 5)" \
	test "$first_open" -le 5
# Another tool holds the stats on: measured throughout, and -v says why.
sysctl -q -w kernel.bpf_stats_enabled=1
"$LOCKSTAT" record -v -e locks,-mmap_lock -o held.data -- sh -c 'sleep 0.3' 2>held.err
sysctl -q -w kernel.bpf_stats_enabled="$prev"
check "stats held elsewhere: measured throughout" bash -c "! grep -q 'measured over' held.err"
check "stats held elsewhere: -v says so" grep -q 'kernel.bpf_stats is on for another tool' held.err
# Another tool holds them through its own descriptor, which the sysctl
# does not show: our programs' runs grow while ours is closed too, but
# only our own windows count, and the rates are theirs. A contended
# acquisition is two runs (begin and end).
check "statsholder builds" build_prog statsholder
./statsholder 6 >holder.out 2>holder.err & holder=$!
wait_for_line() { local i; for i in $(seq 50); do grep -q "$1" "$2" && return 0; sleep 0.1; done; return 1; }
wait_for_line holding holder.out || echo "# statsholder: $(cat holder.err)"
"$LOCKSTAT" record -e locks,-mmap_lock -o held2.data -- "$WL/fdstorm" -t 2 -d 2 >/dev/null 2>held2.err
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
m=$(sed -n 's/.*probe costs measured over \([0-9.]*\) s of the \([0-9.]*\) s.*/\1 \2/p' held2.err)
check "stats held by another tool's descriptor: ours still measure about a tenth (${m:-no line})" \
	awk -v m="${m:-x}" 'BEGIN { split(m, a, " "); exit !(a[2] > 1.5 && a[1] >= 0.05 * a[2] && a[1] <= 0.3 * a[2]) }'
runs=$(sed -n 's/.*probe cost: locks *\([0-9]*\) events\/s.*/\1/p' held2.err)
"$LOCKSTAT" report -i held2.data -f json >held2.json
waits=$(jq '(([.locks[].contended] | add // 0) * 2 * 1e9 / .meta.duration_ns) | floor' held2.json)
check "and the locks family's runs a second are its waits' ($runs events/s against 2 x waits/s = $waits, within 30 %)" \
	awk -v r="${runs:-0}" -v w="$waits" 'BEGIN { exit !(w > 0 && r >= 0.7 * w && r <= 1.3 * w) }'

# top, as record, holds them on a tenth of the time, and still gives the
# probes' cost at every interval.
sysctl -q -w kernel.bpf_stats_enabled=0
"$LOCKSTAT" top -f json -d 4 -- "$WL/fdstorm" -t 2 -d 4 >top.jsonl 2>top.err & topper=$!
sleep 0.5
top_on=$(stats_fd_looks "$topper" 150) top_off=$((150 - top_on))
wait "$topper"
sysctl -q -w kernel.bpf_stats_enabled="$prev"
check "top: its bpf-stats descriptor open in 5 to 30 % of looks ($top_on of $((top_on + top_off)))" \
	awk -v on="$top_on" -v off="$top_off" 'BEGIN { t = on + off; exit !(t >= 100 && on >= 0.05 * t && on <= 0.3 * t) }'
check "top: every interval but the last has the probes' cost ($(jq -s -c '[.[].probe_cost_pct]' top.jsonl))" \
	jqe -s '.[:-1] | length >= 2 and all(.probe_cost_pct != null and .probe_cost_pct > 0)' top.jsonl

"$LOCKSTAT" record -q -o q.data -- /bin/true 2>q.err
check "-q prints no cost (got: $(head -c 200 q.err))" test ! -s q.err
done_testing
