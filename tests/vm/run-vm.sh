#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The VM tier: boot Debian's cloud kernel (kprobes, fentry trampolines and
# BTF, which the host kernel may lack) under QEMU with TCG, from an
# initramfs holding lockstat, the workloads and the guest tests
# (tests/vm/t*.sh, run by tests/vm/init), and report each test's TAP lines
# back here through the serial console.
#
# Usage: run-vm.sh [-k] [-s]
#   -k  keep the work dir (initramfs tree and image) in $LOCKSTAT_BUILD/vm
#   -s  an interactive shell in the guest after the tests (no timeout)
# Environment:
#   TESTS=SUBSTR          only guest tests whose name contains SUBSTR
#   LOCKSTAT_BUILD=DIR    the build to test (default: build at the top)
#   LOCKSTAT_VM_CACHE=DIR where the kernel is kept (/var/cache/lockstat-vm)
#   LOCKSTAT_VM_KERNEL=F  boot this bzImage instead of fetching one
#   LOCKSTAT_VM_TIMEOUT=S the whole VM run, boot included (default 600)
#   LOCKSTAT_VM_SILENCE=S a guest that prints nothing for S s hangs (default 90;
#                         its user space says it is alive every 10 s)
#   LOCKSTAT_VM_TEST_TIMEOUT=S  each guest test (default 300)
#   LOCKSTAT_VM_SMP=N     guest CPUs (default 3)
#   LOCKSTAT_VM_TSC_KHZ=K the guest's TSC rate (default: the host's, from its
#                         kernel log); a guest clock off the host's fails
#   LOCKSTAT_VM_ACCEL=A   QEMU's -accel (default tcg,thread=single)
#   LOCKSTAT_VM_TRAP_PATTERN=RE  what in hang.txt marks the text-patching
#                         trap that earns one more run (default int3; for
#                         hang-evidence.sh's test of that path)
#
# Prints the TAP lines and the tests' comments as the guest runs them
# (with the guest's uptime at each test's start), then "vm: N passed, N
# failed, N skipped" (test scripts, as the host tier counts them). A guest
# that hangs (silent, or past the timeout) leaves its vCPUs' registers and
# stacks, symbolized with the guest's kallsyms, in $work/hang.txt and
# on stdout, beside the console log and its lockup detectors' reports.
# Exit 0: all passed; 1: a test failed or the VM never reported; 77:
# skipped, with "SKIP: vm: reason" (no QEMU, no kernel package, no
# network and nothing cached).
set -u -o pipefail
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
build=${LOCKSTAT_BUILD:-$root/build}
cache=${LOCKSTAT_VM_CACHE:-/var/cache/lockstat-vm}
vm_timeout=${LOCKSTAT_VM_TIMEOUT:-600}
silence=${LOCKSTAT_VM_SILENCE:-90}
test_timeout=${LOCKSTAT_VM_TEST_TIMEOUT:-300}
meta=linux-image-cloud-amd64

keep=0 shell=0
script_args=("$@")
while getopts ks opt; do
	case $opt in
	k) keep=1 ;;
	s) shell=1 ;;
	*) echo "usage: $0 [-k] [-s]" >&2; exit 2 ;;
	esac
done

skip() {
	echo "SKIP: vm: $*"
	echo "vm: 0 passed, 0 failed, 1 skipped"
	exit 77
}
die() {
	echo "not ok - vm: $*"
	echo "vm: 0 passed, 1 failed, 0 skipped"
	exit 1
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

t_begin=$(now)
[ "$(uname -m)" = x86_64 ] || skip "needs an x86_64 host (the guest is Debian's amd64 cloud kernel), not $(uname -m)"
build=$(cd "$build" 2>/dev/null && pwd) || die "no build directory ${LOCKSTAT_BUILD:-$root/build} (make first)"
[ -x "$build/lockstat" ] || die "$build/lockstat is not built (make)"
ls "$build"/workloads/* >/dev/null 2>&1 || die "$build/workloads is empty (make workloads)"

# QEMU, a static busybox, cpio and gdb: install them when missing.
have_tools() {
	command -v qemu-system-x86_64 && command -v busybox && command -v cpio &&
		command -v gzip && command -v ldd
} >/dev/null 2>&1
# gdb only reads a hung guest's vCPUs (vcpu-stacks.sh says when it is missing).
command -v gdb >/dev/null 2>&1 || "$root/contrib/install-deps.sh" --vm >/dev/null 2>&1
if ! have_tools; then
	"$root/contrib/install-deps.sh" --vm >/dev/null 2>&1
	have_tools || skip "qemu-system-x86_64, busybox or cpio missing and not installable (contrib/install-deps.sh --vm as root)"
fi

# The kernel: the package linux-image-cloud-amd64 points at, unpacked once
# into the cache with dpkg-deb (never installed: that would touch /boot).
# Offline, the newest kernel already in the cache does.
cached_kernel() {
	kernel=$(ls -d "$cache"/linux-image-*/boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
	[ -n "$kernel" ] && kernel_desc="$(basename "$(dirname "$(dirname "$kernel")")") (cached; $*)"
}
resolve_kernel() {
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
		awk '$1 ~ /^\|?Depends:$/ && $2 ~ /^linux-image-.*-cloud-amd64$/ { print $2; exit }')
	[ -n "$pkg" ] || return 1
	ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
	[ -n "$ver" ] && [ "$ver" != "(none)" ]
}
download_kernel() {	# into $1
	(cd "$1" && apt-get download "$pkg=$ver") >>"$1/apt.log" 2>&1
}
fetch_kernel() {
	local kdir tmp
	if ! command -v apt-cache >/dev/null || ! command -v dpkg-deb >/dev/null; then
		cached_kernel "no apt-cache here" ||
			skip "no apt-cache/dpkg-deb to fetch $meta (a Debian host is needed)"
		return
	fi
	mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
		skip "cannot write the kernel cache $cache (run as root or set LOCKSTAT_VM_CACHE)"
	if ! resolve_kernel; then
		apt-get update -qq >/dev/null 2>&1
		if ! resolve_kernel; then
			cached_kernel "apt knows no $meta" ||
				skip "apt knows no $meta (not Debian amd64, or apt-get update failed)"
			return
		fi
	fi
	kdir=$cache/${pkg}_$ver
	kernel_desc="$pkg $ver (cached)"
	exec 9>"$cache/.lock" && flock 9	# one download at a time
	if [ ! -e "$kdir/.complete" ]; then
		tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
		# A stale package list names a version the mirror dropped: update once.
		if ! download_kernel "$tmp" && ! { apt-get update -qq >>"$tmp/apt.log" 2>&1 && download_kernel "$tmp"; }; then
			why=$(grep -E '^(E|Err):' "$tmp/apt.log" | tail -n 1)
			rm -rf "$tmp"
			exec 9>&-
			cached_kernel "$pkg $ver could not be downloaded" && return
			skip "apt-get download $pkg=$ver failed${why:+: $why}"
		fi
		mkdir "$tmp/x" && dpkg-deb -x "$tmp"/*.deb "$tmp/x" ||
			{ rm -rf "$tmp"; die "dpkg-deb -x of $pkg $ver failed"; }
		rm -rf "$kdir" && mv "$tmp/x" "$kdir" && touch "$kdir/.complete" && rm -rf "$tmp"
		kernel_desc="$pkg $ver (downloaded)"
	fi
	exec 9>&-
	kernel=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
	[ -n "$kernel" ] || die "no boot/vmlinuz-* in $kdir"
}
kernel_desc=
if [ -n "${LOCKSTAT_VM_KERNEL:-}" ]; then
	kernel=$LOCKSTAT_VM_KERNEL kernel_desc=$LOCKSTAT_VM_KERNEL
	[ -r "$kernel" ] || die "LOCKSTAT_VM_KERNEL=$kernel is not readable"
else
	fetch_kernel
fi
t_kernel=$(since "$t_begin")

# The initramfs: busybox and its applets, lockstat and the workloads with
# every shared library they load (and the loader, at its own path), the
# guest tests and /init. The tree is usr-merged, as Debian 12 is.
work=$build/vm
log=$work/console.log
syslog=$work/ttyS1.log		# the guest's symbols (init's syms)
ksyms=$work/kallsyms-$(basename "$kernel")	# its text symbols, once per kernel
mkdir -p "$work" || die "cannot create $work"
exec 8>"$work/.lock" && flock 8	# one VM per build directory at a time
rm -rf "$work/root" "$work/initramfs.cpio.gz"
mkdir "$work/root" || die "cannot create $work/root"
t0=$(now)
r=$work/root
mkdir -p "$r"/usr/bin "$r"/usr/sbin "$r"/usr/lib/lockstat/workloads "$r"/usr/lib/lockstat/tests \
	"$r"/usr/lib64 "$r"/dev "$r"/proc "$r"/sys "$r"/tmp "$r"/etc "$r"/root
for d in bin sbin lib lib64; do ln -s usr/$d "$r/$d"; done
chmod 1777 "$r/tmp"
bb=$(command -v busybox)
cp "$bb" "$r/usr/bin/busybox"
busybox --list-full | while read -r a; do
	a=${a#/}
	case $a in bin/*|sbin/*) a=usr/$a ;; esac
	[ -e "$r/$a" ] || ln -s /usr/bin/busybox "$r/$a"
done
cp "$build/lockstat" "$r/usr/bin/lockstat"
# The package's System.map, where a Debian system has it (t0125-names.sh
# names static locks through it with kallsyms' data symbols ignored).
for m in "$(dirname "$kernel")"/System.map-*; do
	[ -f "$m" ] && mkdir -p "$r/boot" && cp "$m" "$r/boot/"
done
for w in "$build"/workloads/*; do
	[ -f "$w" ] && [ -x "$w" ] && cp "$w" "$r/usr/lib/lockstat/workloads/"
done
cp "$dir"/lib.sh "$dir"/t[0-9]*.sh "$r/usr/lib/lockstat/tests/"
install -m 755 "$dir/init" "$r/init"
# Libraries, as ldd resolves them here: "name => /path (addr)" or "/path (addr)".
for bin in "$bb" "$build/lockstat" "$build"/workloads/*; do
	ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
	mkdir -p "$r$(dirname "$lib")" && cp -L "$lib" "$r$lib" || exit 1
done || die "copying the shared libraries failed"
{
	printf "TESTS='%s'\n" "$(sed "s/'/'\\\\''/g" <<<"${TESTS:-}")"
	echo "TEST_TIMEOUT=$test_timeout"
	echo "SHELL_AFTER=$shell"
	[ -s "$ksyms" ] && echo DUMP_KALLSYMS=0 || echo DUMP_KALLSYMS=1
} >"$r/etc/lkvm.conf"
(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$work/initramfs.cpio.gz" ||
	die "building the initramfs failed"
t_initrd=$(since "$t0")
size=$(du -m "$work/initramfs.cpio.gz" | cut -f1)

echo "# vm: kernel $kernel_desc; initramfs ${size} MiB; console log $log"

# -hypervisor: with the CPUID hypervisor bit and no paravirt spinlocks, x86
# guests swap the queued spinlock's slow path for a test-and-set loop that
# has no lock:contention_begin tracepoint, and spinlock waits would vanish.
# Even the native slow path traces only waiters that queue, not the first
# (pending) one: with 2 CPUs that takes a rare hand-over race, so the
# guest gets 3 and the tests 3 threads, which queue all the time.
# tsc=reliable: else the TSC watchdog falls back to the HPET, slow under TCG.
# tsc_early_khz: under TCG the guest's TSC ticks at the host's rate, and
# the guest's own calibration at boot (PIT, then HPET) can be off by a
# factor of several on a busy host; then it also rejects the refined
# value (more than 1% away) and the guest's clock runs fast or slow for
# the whole run: every timeout and workload duration with it. The host's
# rate, from the host kernel's log, is exact.
# no_timer_check: on a busy host the boot's check of the timer interrupt
# through the IO-APIC can time out and panic ("IO-APIC + timer doesn't
# work!"); the timer works, the emulation was only slow.
# panic=-1 with -no-reboot: a panic ends QEMU at once; panic_on_oops
# makes an oops one. The lockup detectors (soft: 20 s, hard: NMI), RCU's
# stall warnings and hung_task report a hang on the console, with all
# CPUs' backtraces; nokaslr keeps the kallsyms of an earlier boot right
# for vcpu-stacks.sh, which reads the vCPUs through the gdb stub (on a pair of
# FIFOs of this build's, not TCP port 1234: other VMs may run beside this
# one, and bash speaks no unix sockets).
# thread=single: one host thread runs the vCPUs in turn. Multi-threaded
# TCG (thread=multi, one host thread per vCPU) let vCPUs run stale
# translations of kernel text that another vCPU had just patched (ftrace,
# static keys): an int3 no longer in memory trapped every vCPU for good,
# about one tier run in ten (doc/testing.md, "The VM tier"). A vCPU's turn still ends
# at interrupts and at a spinning waiter's pause: the lock tests contend.
accel=${LOCKSTAT_VM_ACCEL:-tcg,thread=single}
gdbpipe=$work/gdb
rm -f "$gdbpipe.in" "$gdbpipe.out" && mkfifo "$gdbpipe.in" "$gdbpipe.out" || die "mkfifo $gdbpipe.in failed"
# The host's TSC rate in kHz, as its kernel measured it; empty if unknown.
host_tsc_khz() {
	{ dmesg 2>/dev/null || journalctl -k -b -q 2>/dev/null; } | sed -n \
		-e 's/.*tsc: Refined TSC clocksource calibration: \([0-9]*\)\.\([0-9]\{3\}\) MHz.*/R \1\2/p' \
		-e 's/.*tsc: Detected \([0-9]*\)\.\([0-9]\{3\}\) MHz processor.*/D \1\2/p' |
		sort -s -k1,1r | awk 'NR == 1 { print $2 }'
}
tsc_khz=${LOCKSTAT_VM_TSC_KHZ:-$(host_tsc_khz)}
append="console=ttyS0 quiet panic=-1 tsc=reliable${tsc_khz:+ tsc_early_khz=$tsc_khz} no_timer_check nokaslr rdinit=/init"
append+=" panic_on_oops=1 nmi_watchdog=1 softlockup_all_cpu_backtrace=1 hardlockup_all_cpu_backtrace=1"
append+=" hung_task_timeout_secs=60 sysrq_always_enabled"
qemu=(qemu-system-x86_64 -accel "$accel" -cpu max,-hypervisor -smp "${LOCKSTAT_VM_SMP:-3}" -m 1G
	-nographic -no-reboot -nic none -kernel "$kernel" -initrd "$work/initramfs.cpio.gz"
	-chardev "pipe,id=gdb,path=$gdbpipe" -gdb chardev:gdb
	-serial mon:stdio -serial "file:$syslog" -append "$append")

# guest_syms SECTION: the last complete section of that name on ttyS1.
guest_syms() {
	awk -v b="LKVM-SYMS $1 begin" -v e="LKVM-SYMS $1 end" '{ sub(/\r$/, "") }
		$0 == b { n = 0; on = 1; next } $0 == e { on = 0; m = n; for (i = 1; i <= n; i++) keep[i] = cur[i]; next }
		on { cur[++n] = $0 } END { for (i = 1; i <= m; i++) print keep[i] }' "$syslog" 2>/dev/null
}

# The guest's lines as they come: TAP lines, the tests' comments, and
# each test's start with the guest's uptime.
stream_log() {
	tail -n +1 -F --pid="$1" "$log" 2>/dev/null | sed -u -n -e 's/\r//g' \
		-e 's/^.*LKVM: \(ok - \|not ok - \|SKIP: \)/\1/p' \
		-e 's/^.*LKVM: run \(.*\)/# vm: run \1/p' \
		-e 's/^.*LKVM-OUT [^:]*: \(# \)/\1/p'
}

# The functions record --hold patches (bpf/hold.h): their ftrace sites as
# memory has them go with a hang's evidence.
hold_funcs='^(_raw_spin_(try)?lock(_irq|_irqsave|_bh)?|_raw_spin_unlock(_irq|_irqrestore|_bh)?|mutex_(lock|lock_interruptible|lock_killable|trylock|unlock)|down_(read|write)(_interruptible|_killable|_trylock)?|up_(read|write)|downgrade_write)$'

# hung WHY: the evidence of a hang, on stdout and in hang.txt, then QEMU ends.
hung() {
	hang_why=$1
	{
		echo "# vm: the guest hangs: $1; its vCPUs (tests/vm/vcpu-stacks.sh):"
		{ cat "$ksyms" 2>/dev/null; guest_syms bpf; } >"$work/syms.txt"
		VCPU_STACKS_RAW=$work/hang.raw VCPU_STACKS_PEEK="$hold_funcs" \
			"$dir/vcpu-stacks.sh" "$gdbpipe" "$work/syms.txt" 2>&1
	} | tee "$work/hang.txt"
	kill "$qpid" 2>/dev/null
	sleep 2
	kill -9 "$qpid" 2>/dev/null
}

# watch_vm: wait for QEMU; a guest silent for $silence s, or still running
# after $vm_timeout s, hangs (its user space prints every 10 s). rc 124.
watch_vm() {
	local size last=0 quiet_since start=$SECONDS
	quiet_since=$SECONDS
	t_boot= h_start= h_done=
	while kill -0 "$qpid" 2>/dev/null; do
		[ -z "$t_boot" ] && grep -q 'LKVM: start' "$log" && t_boot=$(since "$t0") h_start=$(now)
		[ -z "$h_done" ] && grep -q 'LKVM: done' "$log" && h_done=$(now)
		size=$(stat -c %s "$log" 2>/dev/null || echo 0)
		[ "$size" != "$last" ] && last=$size quiet_since=$SECONDS
		if [ $((SECONDS - start)) -ge "$vm_timeout" ]; then
			hung "still running after $vm_timeout s"
			hang_rc=124
		elif [ -n "$t_boot" ] && [ $((SECONDS - quiet_since)) -ge "$silence" ]; then
			hung "silent for $silence s"
			hang_rc=124
		fi
		sleep 0.5
	done
}

t0=$(now)
hang_rc= hang_why=
if [ "$shell" = 1 ]; then
	"${qemu[@]}" | tee "$log"
	rc=$?
else
	rm -f "$work/hang.txt" "$work/hang.raw" "$log" "$syslog"	# no earlier run's lines for watch_vm
	"${qemu[@]}" </dev/null >"$log" 2>&1 &
	qpid=$!
	stream_log "$qpid" &
	spid=$!
	watch_vm
	wait "$qpid"
	rc=${hang_rc:-$?}
	wait "$spid"
fi
t_vm=$(since "$t0")
clock_rate=$(awk -v hs="${h_start:-}" -v hd="${h_done:-}" '
	/LKVM: start / { sub(/.*, up /, ""); gs = $1 + 0 } /LKVM: done / { sub(/.*, up /, ""); gd = $1 + 0 }
	END { if (hs != "" && hd != "" && hd - hs >= 20) printf "%.2f", (gd - gs) / (hd - hs) }' "$log")
[ -s "$ksyms" ] || { guest_syms kernel >"$ksyms.tmp" && [ -s "$ksyms.tmp" ] && mv "$ksyms.tmp" "$ksyms"; rm -f "$ksyms.tmp"; }
if [ "$keep" = 1 ]; then
	echo "# vm: kept $r and $work/initramfs.cpio.gz"
else
	rm -rf "$r" "$work/initramfs.cpio.gz"
fi

# The one hang this tier has met (doc/testing.md, "The VM tier"): every vCPU caught
# in the int3 of the kernel's text patching (seen in t0110-hold's and
# t0100-fd's fentry attach, and once in t0120-usyms), which QEMU's
# multi-threaded TCG kept executing after the int3 was gone from memory.
# Single-threaded TCG (above) avoids it; should it come, the run is said,
# its evidence kept as hang-1.txt, and the tier run once more: a second
# hang, or any other failure, fails.
patching_trap() {
	[ "$rc" = 124 ] && [ -z "${LOCKSTAT_VM_RETRIED:-}" ] &&
		[ -n "$running" ] &&
		grep -Eq "${LOCKSTAT_VM_TRAP_PATTERN:-int3}" "$work/hang.txt" 2>/dev/null
}
retry_after_patching_trap() {
	local test=${running# while }

	test=${test% ran}
	cp "$work/hang.txt" "$work/hang-1.txt"
	echo "# vm: $1"
	echo "# vm: that is the TCG text-patching trap (int3 in every stuck vCPU, while $test attached or detached fentry programs); its evidence is in $work/hang-1.txt; running the tier once more"
	exec env LOCKSTAT_VM_RETRIED="$test hung in ftrace's text patching under TCG" "$0" "${script_args[@]}"
}

# Results: a failed test's own output as comments (the TAP lines went by).
# CRs and SeaBIOS's terminal resets out, for a log that reads as text.
sed -e 's/\r//g' -e 's/\x1bc//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' "$log" >"$log.tmp" && mv "$log.tmp" "$log"
done_line=$(sed -n 's/^.*LKVM: \(done [0-9]* passed [0-9]* failed [0-9]* skipped\).*/\1/p' "$log" | tail -n 1)
for t in $(sed -n 's/^.*LKVM: not ok - \([^:]*\):.*/\1/p' "$log" | sort -u); do
	sed -n "s|^.*LKVM-OUT $t: |#   |p" "$log"
done
pass=$(grep -c 'LKVM: result [^ ]* pass$' "$log")
fail=$(grep -c 'LKVM: result [^ ]* fail$' "$log")
skip=$(grep -c 'LKVM: result [^ ]* skip$' "$log")
if [ -z "$done_line" ]; then
	fail=$((fail + 1))
	running=$(sed -n 's/^.*LKVM: run \([^ ,]*\).*/\1/p' "$log" | tail -n 1)
	if [ -n "$running" ] && ! grep -q "LKVM: result $running " "$log"; then
		running=" while $running ran"
	else
		running=
	fi
	if [ "$rc" = 124 ]; then
		why="hung$running ($hang_why$(
			grep -m 1 -o -E 'soft lockup.*|hard LOCKUP.*|rcu_sched self-detected stall.*|rcu: INFO: rcu_preempt detected stalls.*' "$log" |
			sed 's/^/; the kernel: /'); vCPUs in $work/hang.txt)"
	elif grep -q 'Kernel panic' "$log"; then
		why="the kernel panicked$running: $(grep -m 1 -o 'Kernel panic.*' "$log")"
	elif ! grep -q 'LKVM: start' "$log"; then
		why="the guest never started /init (qemu exit $rc)"
	else
		why="the guest stopped before reporting$running (qemu exit $rc)"
	fi
	if patching_trap; then
		retry_after_patching_trap "$why"
	fi
	echo "not ok - vm: $why; the console's last lines:"
	tail -n 20 "$log" | sed 's/^/#   /'
elif [ "$rc" != 0 ]; then
	fail=$((fail + 1))
	echo "not ok - vm: qemu exited $rc after the guest reported"
elif [ "$done_line" != "done $pass passed $fail failed $skip skipped" ]; then
	fail=$((fail + 1))
	echo "not ok - vm: the guest says \"$done_line\", its result lines $pass passed $fail failed $skip skipped"
fi
# Timeouts and workload durations follow the guest's clock: it must keep
# to the host's (the rate is measured over the tests, to the 0.5 s of the
# host's polling; t0110 alone lasts a minute).
if [ -n "$clock_rate" ] && awk -v r="$clock_rate" 'BEGIN { exit !(r < 0.75 || r > 1.33) }'; then
	fail=$((fail + 1))
	echo "not ok - vm: the guest's clock ran ${clock_rate}x the host's (tsc_early_khz=${tsc_khz:-unknown}; see its LKVM: clock line)"
fi
# A check skipped inside a test that passed (TAP's "# SKIP") is a skip, not a pass.
skip=$((skip + $(grep -c 'LKVM: ok - .* # SKIP' "$log")))
echo "# vm: kernel ${t_kernel} s, initramfs ${t_initrd} s, boot ${t_boot:-?} s, VM ${t_vm} s, guest clock ${clock_rate:-?}x (TSC ${tsc_khz:-?} kHz), total $(since "$t_begin") s; log: $log"
[ -n "${LOCKSTAT_VM_RETRIED:-}" ] && echo "# vm: this was the second run: the first one's $LOCKSTAT_VM_RETRIED"
echo "vm: $pass passed, $fail failed, $skip skipped${LOCKSTAT_VM_RETRIED:+ (run twice: the first hung in the text-patching trap)}"
[ "$fail" = 0 ]
