#!/bin/bash
# The target filter: the workload and the processes it forks, from inside a
# PID namespace too (a container: lockstat knows its workload by that
# namespace's PIDs, BPF by the initial namespace's), and never a process
# that takes the PID of one of them after it exited.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_cmd jq; require_cmd unshare

MS=$WL/mutexstorm

# lockstat is PID 1 of a new namespace, its workload PID 2.
unshare -fp --mount-proc "$LOCKSTAT" record -q -e ulocks,sample -F 999 -o ns.data -- "$MS" -t 2 -d 1 -q >/dev/null 2>ns.err
"$LOCKSTAT" report -i ns.data -f json >ns.json
check "in a PID namespace, the workload's waits on storm_lock are recorded" \
	jqe '[.locks[] | select(.name == "storm_lock") | .contended] | add > 0' ns.json
check "with their caller, storm_op" \
	jqe '[.locks[] | select(.name == "storm_lock") | .callers[].symbol] | index("storm_op") != null' ns.json
"$LOCKSTAT" report -i ns.data --view hits --user -f json >nsh.json
check "its samples too, resolved through the namespace's /proc" \
	jqe '.total_samples > 0 and ([.functions[].symbol] | index("storm_op") != null)' nsh.json
check "under the namespace's PIDs" \
	test "$("$LOCKSTAT" report -i ns.data --view tables --table ulocks -f csv | awk -F, 'NR == 2 { print $2 }')" = 2

# -p with a PID of the namespace.
unshare -fp --mount-proc sh -c "\"$MS\" -t 2 -d 3 -q >/dev/null & sleep 0.5; \"$LOCKSTAT\" record -q -e ulocks -p \$! -d 1 -o nsp.data"
"$LOCKSTAT" report -i nsp.data -f json >nsp.json
check "-p PID in a PID namespace records that process" \
	jqe '[.locks[] | select(.name == "storm_lock") | .contended] | add > 0' nsp.json

# A child of the workload writes its PID and exits; then a process that is
# not the workload's is made to take that PID (ns_last_pid): recording it
# would be recording a stranger. The workload's own later child is recorded.
if [ -w /proc/sys/kernel/ns_last_pid ]; then
	"$LOCKSTAT" record -q -e sample -F 999 -o r.data -- \
		sh -c 'sh -c "echo \$\$ >child.pid"; sleep 0.5; "$0" -t 1 -d 2 -q; true' "$WL/hotspots" >/dev/null 2>&1 &
	rec=$!
	for i in $(seq 50); do [ -s child.pid ] && break; sleep 0.1; done
	x=$(cat child.pid 2>/dev/null)
	sleep 0.2
	got=
	for i in $(seq 300); do
		echo $((x - 1)) >/proc/sys/kernel/ns_last_pid
		"$WL/statloop" -t 1 -d 1.5 -q >/dev/null 2>&1 &
		[ "$!" = "$x" ] && got=1 && break
		kill $! 2>/dev/null
		wait $! 2>/dev/null
	done
	wait
	if [ -n "$got" ]; then
		# By its name: the target that had PID x before may have been sampled.
		"$LOCKSTAT" report -i r.data --view hits --comm statloop -f json >r.json
		check "a process that took an exited target's PID ($x), statloop, is not recorded" jqe '.total_samples == 0' r.json
		"$LOCKSTAT" report -i r.data --view hits --comm hotspots -f json >h.json
		check "the workload's own later child is" jqe '.total_samples > 0' h.json
	else
		not_ok "no process could be given PID $x in 300 tries (the machine forks too fast)"
	fi
else
	echo "# SKIP: /proc/sys/kernel/ns_last_pid is not writable: the PID reuse check"
fi
done_testing
