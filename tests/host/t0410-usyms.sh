#!/bin/bash
# User frames resolved in runs of any length. The mappings of every process
# are reported by the kernel as they are made, so a library mapped after a
# process's first sample, or by a process gone before the next drain, or
# unloaded before the end, still names its PCs; many runs in a row, since a
# race shows in some runs only. A file that names nothing shows as
# module+0xOFFSET, an offset addr2line takes. Compared with perf on the
# same program.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_cmd jq

UC=$WL/ucases
RUNS=${USYMS_RUNS:-10}

# The unresolved user samples of a hits JSON: every cause but a lost stack,
# and but "user stack truncated" (a stack as deep as the sampler takes:
# its leaf is named or counted under its own cause all the same).
unresolved() { jq '[.unknown | to_entries[] | select(.key != "no user stack" and .key != "user stack truncated") | .value] | add' "$1"; }
user_samples() { jq '.total_samples - .kernel_samples' "$1"; }

# chat: two threads over pipes, their user time in libc's read and write.
bad=0 none=0 total=0
for i in $(seq "$RUNS"); do
	"$LOCKSTAT" record -q -e locks,sample,fd -F 999 -o c.data -- "$WL/chat" -d 0.5 >/dev/null 2>&1
	"$LOCKSTAT" report -i c.data --view hits --user -f json >c.json
	u=$(unresolved c.json)
	n=$(user_samples c.json)
	total=$((total + n))
	[ "$u" = 0 ] || { bad=$((bad + 1)); echo "# run $i: $u of $n user samples unresolved"; }
	jqe '[.functions[] | select(.module | test("/libc\\.so")) | .symbol] | any(test("read|write"))' c.json ||
		none=$((none + 1))
done
check "chat, $RUNS runs of -e locks,sample,fd: every user sample resolved ($bad runs with some unresolved, $total samples)" \
	test "$bad" = 0 -a "$total" -gt 0
check "and libc's read or write among them in every run ($none without)" test "$none" = 0

# A 0.1 s process: its libraries are mapped after exec, and it is gone before any drain.
bad=0 total=0
for i in $(seq "$RUNS"); do
	"$LOCKSTAT" record -q -e sample -F 999 -o s.data -- "$UC" --libc -d 0.1 >/dev/null 2>&1
	"$LOCKSTAT" report -i s.data --view hits --user -f json >s.json
	u=$(unresolved s.json)
	total=$((total + $(user_samples s.json)))
	[ "$u" = 0 ] || bad=$((bad + 1))
done
check "a 0.1 s process, $RUNS runs: every user sample resolved ($bad runs with some unresolved, $total samples)" \
	test "$bad" = 0 -a "$total" -gt 0

# A fork loop longer than record holds the mappings of exited processes
# for (1 024): past that, the PCs seen so far are symbolized at a drain
# and those processes forgotten, so that memory does not grow with the
# processes; their samples are named all the same.
N=${USYMS_PROCS:-2000}
"$LOCKSTAT" record -v -e sample -F 999 -o f.data -- \
	sh -c "seq $N | xargs -P 2 -I{} $WL/hotspots -t 1 -d 0.005 -q" >/dev/null 2>f.err
"$LOCKSTAT" report -i f.data --view hits --user -f json >f.json
forgot=$(sed -n 's/.*then forgot \([0-9]*\) exited processes.*/\1/p' f.err | awk '{ s += $1 } END { print s + 0 }')
u=$(unresolved f.json)
n=$(user_samples f.json)
check "a fork loop of $N processes: their PCs symbolized during the recording, $forgot processes forgotten (>= 1024)" \
	test "$forgot" -ge 1024
# Not every one: in a fork loop 0.1 to 0.3 % of the user samples stay
# unresolved with or without the early pass (1 200 processes, 3 runs of
# each build: "no mapping" 7 to 14, "no symbol table" 4 to 11 of about
# 7 500), so the bound is 1 %, where forgetting a process too early
# would leave its every sample unnamed.
check "and all but 1 % of the user samples resolved (${u:-?} of ${n:-?} unresolved)" \
	awk -v u="${u:-x}" -v n="${n:-0}" 'BEGIN { exit !(n > 1000 && u >= 0 && u * 100 <= n) }'
check "hot_three and hot_one among them ($(jq -c '[.functions[] | select(.symbol | startswith("hot_")) | [.symbol, .samples]]' f.json))" \
	jqe '[.functions[].symbol] | (index("hot_three") != null and index("hot_one") != null)' f.json

# Forked children that never exec have no mapping of their own for the
# kernel to report: theirs are read from /proc at their first sample, the
# sampler announcing the process. Under PIDs that processes forgotten by
# an early symbolization had (forkreuse: 1 100 children, then 300 under
# the first ones' PIDs), the sampler must announce them again: when it
# kept the old PIDs, 3 543 of 8 339 user samples had no mapping.
if build_prog forkreuse; then
	"$LOCKSTAT" record -v -e sample -F 999 -o r.data -- ./forkreuse 1100 300 5 2500 >/dev/null 2>r.err
	"$LOCKSTAT" report -i r.data --view hits --user -f json >r.json
	reused=$(sed -n 's/^reused \([0-9]*\) of.*/\1/p' r.err)
	nomap=$(jq '.unknown["no mapping"]' r.json)
	n=$(user_samples r.json)
	check "forkreuse: PIDs reused after an early symbolization (${reused:-?} of 300; $(grep -c 'then forgot' r.err) passes)" \
		test "${reused:-0}" -ge 50 -a "$(grep -c 'then forgot' r.err)" -ge 1
	# 9 to 50 of about 8 400 here (a child can end before its first
	# sample's announcement is read); 5 % still tells the 42 % apart.
	check "forkreuse: the children under reused PIDs have their mappings (${nomap:-?} of ${n:-?} user samples without, 5 % at most)" \
		awk -v u="${nomap:-x}" -v n="${n:-0}" 'BEGIN { exit !(n > 1000 && u >= 0 && u * 20 <= n) }'
else
	check "forkreuse builds" false
fi

# The vDSO is in no file: a process that lives in clock_gettime() has its
# frames named from lockstat's own copy of the image, as perf names them.
if ${CC:-cc} -O2 -o vdsoloop "$(dirname "$0")/progs/vdsoloop.c"; then
	"$LOCKSTAT" record -q -e sample -F 999 -o v.data -- ./vdsoloop 1 >/dev/null 2>&1
	"$LOCKSTAT" report -i v.data --view hits --user -f json >v.json
	check "vdsoloop: its samples in [vdso] are named, most in __vdso_clock_gettime ($(jq -c '[.functions[] | select(.module == "[vdso]") | [.symbol, .samples]]' v.json))" \
		jqe '([.functions[] | select(.module == "[vdso]")] | length > 0 and all(.symbol | startswith("[vdso]") | not)) and
		     (.functions | max_by(.samples) | .symbol == "__vdso_clock_gettime")' v.json
else
	check "vdsoloop builds" false
fi

# Two libraries dlopen'd after the first sample, each unloaded before the
# process exits, maybe at the same address: each PC is named in its own.
"$LOCKSTAT" record -q -e sample -F 999 -o d.data -- "$UC" --dlopen -d 1.5 >d.out 2>&1
rc=$?
if [ "$rc" != 0 ]; then
	sed 's/^/# /' d.out
	not_ok "ucases --dlopen ran (exit $rc)"
else
	"$LOCKSTAT" report -i d.data --view hits --user -f json >d.json
	z=$(jq '[.functions[] | select(.module | test("/libz\\.so")) | .samples] | add' d.json)
	x=$(jq '[.functions[] | select(.module | test("/liblzma\\.so")) | .samples] | add' d.json)
	check "libz, loaded and unloaded, has its samples ($z)" test "${z:-null}" != null
	check "so has liblzma, loaded after it ($x)" test "${x:-null}" != null
	check "none of them without its mapping, nor without a name" \
		jqe '.unknown["no mapping"] == 0 and ([.functions[] | .symbol != "[unknown]" or .module == "[unknown]"] | all)' d.json
	check "libz's are in crc32, liblzma's in lzma_crc64 or the functions it calls" \
		jqe '[.functions[] | select(.module | test("/libz\\.so")) | .symbol] | any(test("crc32"))' d.json
fi

# xz: its time is in liblzma, mapped by the loader after exec; stripped but
# for its exported symbols, so named by function or by offset, never lost.
if command -v xz >/dev/null 2>&1; then
	head -c 3000000 /dev/urandom >in.bin
	bad=0 lz=0 total=0
	for i in 1 2 3; do
		"$LOCKSTAT" record -q -e sample -F 999 -o x.data -- xz -T1 -6 -c in.bin >/dev/null 2>&1
		"$LOCKSTAT" report -i x.data --view hits --user -f json >x.json
		n=$(user_samples x.json)
		total=$((total + n))
		lz=$((lz + $(jq '[.functions[] | select(.module | test("/liblzma\\.so")) | .samples] | add // 0' x.json)))
		jqe '.unknown["no mapping"] == 0' x.json || bad=$((bad + 1))
	done
	check "xz -T1 -6, 3 runs: no user sample without its mapping ($bad runs with some)" test "$bad" = 0
	check "most of them in liblzma ($lz of $total)" test "$total" -gt 0 -a $((lz * 2)) -gt "$total"
else
	echo "# SKIP: xz is not installed: the xz runs"
fi

# A stripped binary: no function names, but the module and the file offset,
# which addr2line turns back into the function with the unstripped file.
cp "$UC" ucases.full
strip -s -o ucases.stripped ucases.full
"$LOCKSTAT" record -q -e sample -F 999 -o st.data -- ./ucases.stripped --libc -d 1 >/dev/null 2>&1
"$LOCKSTAT" report -i st.data --view hits --user --module '*ucases.stripped' -f json >st.json
# A sample in a PLT stub (one in a thousand or so here) is "@plt", as
# documented: the stubs are named from the section headers.
frames=$(jq -r '.functions[].symbol' st.json)
others=$(echo "$frames" | grep -v -e '^ucases\.stripped+0x[0-9a-f]*$' -e '^@plt$' | tr '\n' ' ')
check "frames in the stripped binary show as ucases.stripped+0xOFFSET or @plt${others:+ (not: $others)}" \
	test -n "$frames" -a -z "$others"
top=$(jq -r '[.functions[] | select(.symbol | startswith("ucases.stripped+"))][0].symbol' st.json)
fn=$(addr2line -f -e ucases.full "${top#ucases.stripped+}" 2>/dev/null | head -1)
check "addr2line names the hottest of them in the unstripped file: $top = $fn" \
	test "$fn" = cmp_int -o "$fn" = libc_round
check "the report counts them as unknown all the same" jqe '.unknown["no symbol table"] > 0' st.json

# The same program under perf: the user functions perf names, lockstat names
# alike, with shares within 5 points. Separate runs of a deterministic
# loop, but its split between functions moves from run to run on a busy
# machine (msort_with_tmp 60.4 % under perf, 67.8 % under lockstat, in
# one CI run): three runs of each, alternated, and each function's
# median share compared.
if ! command -v perf >/dev/null 2>&1; then
	echo "# SKIP: perf is not installed: the comparison with perf"
elif ! perf record -q -F 999 -e cpu-clock -o p.data -- "$UC" --libc -d 2 >/dev/null 2>&1; then
	not_ok "perf record of ucases --libc"
else
	norm() { sed -E 's/\.(part|isra|constprop|cold|lto_priv)\.[0-9]+//g; s/\.cold$//'; }
	: >perf.txt
	: >ours.txt
	for i in 1 2 3; do
		[ "$i" = 1 ] || perf record -q -F 999 -e cpu-clock -o p.data -- "$UC" --libc -d 2 >/dev/null 2>&1
		perf report -i p.data --no-children --sort sym --stdio 2>/dev/null |
			awk -v r="$i" '$2 == "[.]" { sub("%", "", $1); print r, $1, $3 }' | norm >>perf.txt
		"$LOCKSTAT" record -q -e sample -F 999 -o l.data -- "$UC" --libc -d 2 >/dev/null 2>&1
		"$LOCKSTAT" report -i l.data --view hits -f json >l.json
		jq -r --arg r "$i" '.functions[] | select(.kernel | not) | "\($r) \(.percent) \(.symbol)"' l.json | norm >>ours.txt
	done
	# Per function, the median of its three shares (0 in a run without it).
	medians() {
		awk '{ s[$3, $1] += $2; f[$3] = 1 }
		     END { for (x in f) { n = 0; for (r = 1; r <= 3; r++) v[++n] = s[x, r] + 0
			   for (i = 1; i <= 3; i++) for (j = i + 1; j <= 3; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			   print v[2], x } }' "$1"
	}
	medians ours.txt >ours.med
	medians perf.txt >perf.med
	awk 'NR == FNR { ours[$2] = $1; next }
	     $1 >= 2 { d = ours[$2] - $1; if (!($2 in ours) || d > 5 || d < -5) { print "# " $2 ": perf " $1 "%, lockstat " ($2 in ours ? ours[$2] "%" : "none"); bad++ } ; n++ }
	     END { exit bad || !n }' ours.med perf.med
	check "perf's user functions of ucases --libc (>= 2 %) are lockstat's, shares within 5 points" test $? = 0
fi
done_testing
