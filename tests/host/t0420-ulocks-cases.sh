#!/bin/bash
# User locks in the corner cases (-e ulocks): a 0.1 s program's global mutex
# named with its caller in every run, and counted in record's closing line;
# an outer lock's hold that includes the wait for an inner one, and a
# condition wait, which lets only its own mutex go; a timed
# lock call, a mutex all the same; a waiting thread kept while thousands of
# threads come and go.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_cmd jq

UC=$WL/ucases
"$LOCKSTAT" record -q -e ulocks -o probe.data -- true >/dev/null 2>&1
"$LOCKSTAT" report -i probe.data -f json >probe.json 2>/dev/null
jqe '.meta.probes.ulocks | test("^tracepoint")' probe.json ||
	skip_all "TRACEPOINT: ulocks $(jq -r .meta.probes.ulocks probe.json 2>/dev/null)"

# mutexstorm for 0.1 s: gone long before the first drain.
RUNS=${ULOCKS_RUNS:-10}
named=0 caller=0 line=0
for i in $(seq "$RUNS"); do
	"$LOCKSTAT" record -e ulocks -o s.data -- "$WL/mutexstorm" -t 2 -d 0.1 -q >/dev/null 2>s.err
	"$LOCKSTAT" report -i s.data -f json >s.json
	n=$(jq '[.locks[] | select(.name == "storm_lock") | .contended] | add' s.json)
	[ "$n" != null ] && named=$((named + 1))
	jqe '[.locks[] | select(.name == "storm_lock") | .callers[].symbol] | index("storm_op") != null' s.json &&
		caller=$((caller + 1))
	all=$(jq '[.locks[] | select(.user) | .contended] | add' s.json)
	grep -q "recorded .*, $all contended acquisitions (0 kernel, $all user)" s.err && line=$((line + 1))
done
check "a 0.1 s mutexstorm, $RUNS runs: storm_lock named in $named" test "$named" = "$RUNS"
check "its caller storm_op named in $caller" test "$caller" = "$RUNS"
check "record's closing line counts its waits, as user waits, in $line" test "$line" = "$RUNS"

# -a: a process started before the recording, gone before its first drain;
# what it mapped before lockstat looked names its lock and its caller.
# It ends 0.2 s after record has published its output, i.e. has started.
"$WL/mutexstorm" -t 2 -d 60 -q >/dev/null &
ms=$!
"$LOCKSTAT" record -q -a -e ulocks -d 3 -o a.data >/dev/null 2>&1 &
rec=$!
for _ in $(seq 100); do [ -e a.data ] && break; sleep 0.1; done
sleep 0.2
kill -TERM "$ms"
wait "$ms" "$rec"
"$LOCKSTAT" report -i a.data --pid "$ms" -f json >a.json
check "record -a: a process older than the recording, gone before the drain: storm_lock named, from storm_op" \
	jqe '[.locks[] | select(.name == "storm_lock") | .callers[].symbol] | index("storm_op") != null' a.json

# Nested: outer_lock is held while its holder waits ~50 ms for inner_lock.
"$LOCKSTAT" record -q -e ulocks --uprobes --force -o n.data -- "$UC" --nested -n 5 -H 50 >/dev/null 2>&1
"$LOCKSTAT" report -i n.data -f json >n.json
if jqe '.meta.probes.uprobes | startswith("uprobe")' n.json; then
	hold=$(jq '.locks[] | select(.name == "outer_lock") | .hold_avg_ns' n.json)
	check "outer_lock's hold includes the wait for inner_lock: ${hold:-none} ns >= 40 ms" \
		test "${hold:-0}" -ge 40000000
	check "which is inner_lock's contention (5 waits)" \
		jqe '.locks[] | select(.name == "inner_lock") | .contended == 5' n.json
else
	echo "# SKIP: uprobes: $(jq -r .meta.probes.uprobes n.json): the nested hold"
fi

# Cond: held_lock is held through a ~50 ms condition wait that lets
# cond_lock go: the wait is taken out of cond_lock's hold only.
"$LOCKSTAT" record -q -e ulocks --uprobes --force -o cv.data -- "$UC" --cond -n 5 -H 50 >/dev/null 2>&1
"$LOCKSTAT" report -i cv.data -f json >cv.json
if jqe '.meta.probes.uprobes | startswith("uprobe")' cv.json; then
	held=$(jq '.locks[] | select(.name == "held_lock") | .hold_avg_ns' cv.json)
	let_go=$(jq '.locks[] | select(.name == "cond_lock") | .hold_avg_ns' cv.json)
	check "held_lock's hold includes the condition wait of cond_lock: ${held:-none} ns >= 40 ms" \
		test "${held:-0}" -ge 40000000
	check "cond_lock's hold does not: ${let_go:-none} ns < 20 ms" \
		test -n "$let_go" -a "${let_go:-0}" -lt 20000000
else
	echo "# SKIP: uprobes: $(jq -r .meta.probes.uprobes cv.json): the condition wait's hold"
fi

# Timed: pthread_mutex_timedlock() waits with FUTEX_WAIT_BITSET; still a mutex.
"$LOCKSTAT" record -q -e ulocks -o t.data -- "$UC" --timed -n 5 -H 50 >/dev/null 2>&1
"$LOCKSTAT" report -i t.data -f json >t.json
check "timed_lock, taken with a timeout, is a contended u:mutex (5 waits)" \
	jqe '.locks[] | select(.name == "timed_lock") | .type == "u:mutex" and .contended == 5' t.json
check "called from timed_round" \
	jqe '[.locks[] | select(.name == "timed_lock") | .callers[].symbol] | index("timed_round") != null' t.json

# Churn: 20000 threads, each one futex call, while one thread waits on churn_lock.
"$LOCKSTAT" record -q -e ulocks -o c.data -- "$UC" --churn 20000 >/dev/null 2>&1
"$LOCKSTAT" report -i c.data -f json >c.json
check "churn_lock's one wait survives 20000 threads coming and going" \
	jqe '.locks[] | select(.name == "churn_lock") | .contended == 1' c.json
done_testing
