#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What a sample carries (bpf/sample.bpf.c): the sampler asks the kernel
# only for the stacks it can give, a kernel stack where the sample
# interrupted the kernel, a user stack where the task has a user side;
# each sample keeps every stack it had. And a thread's name: the sampler
# asks for it once per thread and CPU while user space removes no name,
# so a name that a trim removed must come back at the thread's next
# sample.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_perf_event; require_cmd jq; require_cmd taskset

# The frames are root first: a stack's leaf is its last frame.
"$LOCKSTAT" record -q -e sample -F 999 -o stat.data -- "$WL/statloop" -t 1 -p / -d 2 -q >/dev/null
"$LOCKSTAT" export -i stat.data -f json >stat.json
mine='[.stacks[] | select(.comm == "statloop")]'
k=$(jq "$mine | map(select(.frames[-1].kernel)) | map(.value) | add // 0" stat.json)
ku=$(jq "$mine | map(select(.frames[-1].kernel and (.frames | any(.kernel | not)))) | map(.value) | add // 0" stat.json)
u=$(jq "$mine | map(select(.frames[-1].kernel | not)) | map(.value) | add // 0" stat.json)
uk=$(jq "$mine | map(select((.frames[-1].kernel | not) and (.frames | any(.kernel)))) | map(.value) | add // 0" stat.json)
echo "# statloop: $k samples in the kernel ($ku with a user stack), $u in user mode ($uk with kernel frames)"
check "statloop's samples in the kernel have their kernel stack (>= 100 of them: $k)" test "$k" -ge 100
# A task's user stack under the kernel's: all but its exit's (the mm gone) and a stat() at the very start.
check "and the user stack under it (>= 95 %: $ku of $k)" test "$((ku * 100))" -ge "$((k * 95))"
check "its samples in user mode have no kernel frame ($uk of $u)" test "$uk" = 0

# Kernel threads (the idle task among them) have no user stack.
"$LOCKSTAT" record -q -a -e sample -F 999 -d 2 -o all.data >/dev/null
"$LOCKSTAT" export -i all.data -f json >all.json
kt=$(jq '[.stacks[] | select(.pid == 0 or (.comm | test("^(kworker|ksoftirqd|rcu_|migration|kcompactd)")))] | map(.value) | add // 0' all.json)
ktu=$(jq '[.stacks[] | select(.pid == 0 or (.comm | test("^(kworker|ksoftirqd|rcu_|migration|kcompactd)"))) |
	select(.frames | any(.kernel | not))] | map(.value) | add // 0' all.json)
if [ "$kt" -gt 0 ]; then
	check "kernel threads' samples are kernel stacks only ($ktu of $kt with user frames)" test "$ktu" = 0
	check "and have their kernel stack" \
		jqe '[.stacks[] | select(.pid == 0) | .frames | length > 0] | all' all.json
else
	skip_check IDLE "kernel threads' samples are kernel stacks only" "no sample of a kernel thread in 2 s (machine busy)"
fi

# A name trimmed away comes back: sh burns, manystacks fills the maps
# (-M 256: 512 rows, 256 stacks of each kind) so that sh's rows, idle,
# are trimmed with its name, then sh burns again under the same thread.
# All on one CPU: the sampler's record of the threads it named is per
# CPU, and another CPU's first sample of sh would name it again anyway.
if check "manystacks builds" build_prog manystacks; then
	burn='i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done'
	"$LOCKSTAT" record -v -e sample -F 1999 -M 256 -o trim.data -- \
		taskset -c 0 sh -c "echo \$\$ >sh.pid; $burn; ./manystacks 3; $burn" >/dev/null 2>trim.err
	trims=$(grep -c 'sample: removed [0-9]* rows idle longest' trim.err)
	"$LOCKSTAT" export -i trim.data -f json >trim.json
	shpid=$(cat sh.pid 2>/dev/null || echo 0)
	# Named after its first sample, maybe lockstat's child's name before the exec: any name but "?".
	named=$(jq --argjson p "$shpid" '[.stacks[] | select(.pid == $p and .comm != "?") | .value] | add // 0' trim.json)
	unnamed=$(jq --argjson p "$shpid" '[.stacks[] | select(.pid == $p and .comm == "?") | .value] | add // 0' trim.json)
	echo "# sh (pid $shpid): $named samples named, $unnamed not; $trims trims"
	if [ "$trims" -ge 1 ] && [ "$((named + unnamed))" -ge 200 ]; then
		check "sh's samples after the trims are named ($unnamed of $((named + unnamed)) are not)" test "$unnamed" = 0
	else
		skip_check CPU "sh's samples after the trims are named" "$trims trims, $named samples of sh (machine busy)"
	fi
fi
done_testing
