#!/bin/bash
# record --hold needs fentry trampolines; kprobes on the lock functions
# are refused everywhere (they crashed test kernels). Where the kernel has
# no fentry (this host: fentry loads fail with EPERM), and with
# --attach=kprobe on any kernel, the hold family is refused with one
# warning that says why, the other families still record (exit 0), and
# with nothing else asked for record fails cleanly (exit 1, no file). The
# probes themselves are tested in the VM (tests/vm/t0110-hold.sh).
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq

"$LOCKSTAT" probe >probe.txt
fentry=no
grep -Eq '^fentry +yes' probe.txt && fentry=yes

# refused NAME REASON_RE ARGS...: record ARGS -- true while the hold family
# cannot attach: exit 0, one warning naming the family and the reason,
# the other families recorded and readable.
refused() {
	local name=$1 reason=$2
	shift 2
	"$LOCKSTAT" record -o "$name.data" "$@" -- true >"$name.out" 2>"$name.err"
	local rc=$?
	check "$name: exit 0, the other families still record ($rc)" test "$rc" = 0
	check "$name: exactly one line about hold, a warning" \
		test "$(grep -c 'hold' "$name.err")" = 1 -a "$(grep -c '^lockstat: warning: hold: not attached: ' "$name.err")" = 1
	check "$name: it says why ($(grep hold "$name.err"))" grep -Eq "^lockstat: warning: hold: not attached: $reason" "$name.err"
	check "$name: no other warning" test "$(grep -c 'warning:' "$name.err")" = 1
	check "$name: fsck passes" "$LOCKSTAT" fsck -q "$name.data"
	"$LOCKSTAT" report -i "$name.data" -f json >"$name.json"
	check "$name: the profile says hold was not attached, and why" \
		jqe '.meta.probes.hold | test("^not attached: needs ")' "$name.json"
	check "$name: contention was recorded" jqe '.meta.probes.contention | test("tp_btf|tracepoint")' "$name.json"
	check "$name: no hold table" sh -c "! '$LOCKSTAT' report -i '$name.data' --view tables 2>/dev/null | grep -q '^# table hold:'"
	"$LOCKSTAT" report -i "$name.data" >"$name.txt"
	check "$name: the report's header says hold was not measured" \
		grep -Eq '^# (hold columns|acquisitions, CON%, hold times, UTIL%).*hold=not attached: needs ' "$name.txt"
}

if [ $fentry = no ]; then
	refused auto "needs fentry: .+; kprobes on the kernel's lock functions are refused \\(they crashed" --hold
	refused family 'needs fentry: ' -e locks,hold

	"$LOCKSTAT" record -o alone.data -e hold -- true >alone.out 2>alone.err
	rc=$?
	check "-e hold alone: exit 1 ($rc)" test "$rc" = 1
	check "-e hold alone: says no probe could be attached, and why" \
		grep -q '^lockstat: no probe could be attached: hold: needs fentry: ' alone.err
	check "-e hold alone: no file left behind" test ! -e alone.data
else
	echo "# skipping the auto checks: this kernel has fentry"
fi

if [ $fentry = no ]; then
	# Forced: the hold programs themselves are loaded, and fail.
	refused fentry 'needs fentry: loading the programs failed: .+' --attach=fentry --hold
	check "fentry: the reason is the kernel's refusal" grep -q 'Operation not permitted' fentry.err
else
	echo "# skipping the forced fentry checks: fentry works here ($(grep '^fentry' probe.txt))"
fi

# Refused before anything is loaded, whether or not this kernel has kprobes.
refused kprobe "needs fentry: kprobes on the kernel's lock functions are refused \\(they crashed" --attach=kprobe --hold
"$LOCKSTAT" record -v -o kv.data --attach=kprobe --hold -- true 2>kv.err >/dev/null
check "kprobe -v: no lock function was even tried" sh -c "! grep -Eq '^hold: [a-z_]+ not attached' kv.err" ||
	show kv.err
"$LOCKSTAT" probe --attach kprobe >probe-kprobe.txt
check "probe --attach kprobe: hold none, kprobes refused" \
	grep -Eq '^hold +none +needs fentry: kprobes on the kernel.s lock functions are refused' probe-kprobe.txt ||
	show probe-kprobe.txt
done_testing
