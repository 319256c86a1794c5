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
#   LOCKSTAT_VM_TEST_TIMEOUT=S  each guest test (default 120)
#   LOCKSTAT_VM_SMP=N     guest CPUs (default 3)
#
# Prints the TAP lines, then "vm: N passed, N failed, N skipped" (test
# scripts, as the host tier counts them). Exit 0: all passed; 1: a test
# failed or the VM never reported; 77: skipped, with "SKIP: vm: reason"
# (no QEMU, no kernel package, no network and nothing cached).
set -u -o pipefail
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
build=${LOCKSTAT_BUILD:-$root/build}
cache=${LOCKSTAT_VM_CACHE:-/var/cache/lockstat-vm}
vm_timeout=${LOCKSTAT_VM_TIMEOUT:-600}
test_timeout=${LOCKSTAT_VM_TEST_TIMEOUT:-120}
meta=linux-image-cloud-amd64

keep=0 shell=0
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

# QEMU, a static busybox and cpio: install them when missing.
have_tools() {
	command -v qemu-system-x86_64 && command -v busybox && command -v cpio &&
		command -v gzip && command -v ldd
} >/dev/null 2>&1
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
# panic=-1 with -no-reboot: a panic ends QEMU at once.
qemu=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max,-hypervisor -smp "${LOCKSTAT_VM_SMP:-3}" -m 1G
	-nographic -no-reboot -nic none -kernel "$kernel" -initrd "$work/initramfs.cpio.gz"
	-append "console=ttyS0 quiet panic=-1 tsc=reliable rdinit=/init LOCKSTAT_VM_HOLD_KPROBE=${LOCKSTAT_VM_HOLD_KPROBE:-0}")
t0=$(now)
if [ "$shell" = 1 ]; then
	"${qemu[@]}" | tee "$log"
	rc=$?
else
	timeout -k 10 "$vm_timeout" "${qemu[@]}" </dev/null >"$log" 2>&1 &
	qpid=$!
	t_boot=
	while kill -0 "$qpid" 2>/dev/null; do
		[ -z "$t_boot" ] && grep -q 'LKVM: start' "$log" && t_boot=$(since "$t0")
		sleep 0.2
	done
	wait "$qpid"
	rc=$?
fi
t_vm=$(since "$t0")
if [ "$keep" = 1 ]; then
	echo "# vm: kept $r and $work/initramfs.cpio.gz"
else
	rm -rf "$r" "$work/initramfs.cpio.gz"
fi

# Results: the guest's TAP lines; a failed test's own output as comments.
# CRs and SeaBIOS's terminal resets out, for a log that reads as text.
sed -e 's/\r//g' -e 's/\x1bc//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' "$log" >"$log.tmp" && mv "$log.tmp" "$log"
done_line=$(sed -n 's/^.*LKVM: \(done [0-9]* passed [0-9]* failed [0-9]* skipped\).*/\1/p' "$log" | tail -n 1)
sed -n 's/^.*LKVM: \(ok - \|not ok - \|SKIP: \)/\1/p' "$log"
for t in $(sed -n 's/^.*LKVM: not ok - \([^:]*\):.*/\1/p' "$log" | sort -u); do
	sed -n "s|^.*LKVM-OUT $t: |#   |p" "$log"
done
pass=$(grep -c 'LKVM: result [^ ]* pass$' "$log")
fail=$(grep -c 'LKVM: result [^ ]* fail$' "$log")
skip=$(grep -c 'LKVM: result [^ ]* skip$' "$log")
if [ -z "$done_line" ]; then
	fail=$((fail + 1))
	running=$(sed -n 's/^.*LKVM: run //p' "$log" | tail -n 1)
	if [ -n "$running" ] && ! grep -q "LKVM: result $running " "$log"; then
		running=" while $running ran"
	else
		running=
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		why="timed out after $vm_timeout s$running"
	elif grep -q 'Kernel panic' "$log"; then
		why="the kernel panicked$running: $(grep -m 1 -o 'Kernel panic.*' "$log")"
	elif ! grep -q 'LKVM: start' "$log"; then
		why="the guest never started /init (qemu exit $rc)"
	else
		why="the guest stopped before reporting$running (qemu exit $rc)"
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
# A check skipped inside a test that passed (TAP's "# SKIP") is a skip, not a pass.
skip=$((skip + $(grep -c 'LKVM: ok - .* # SKIP' "$log")))
echo "# vm: kernel ${t_kernel} s, initramfs ${t_initrd} s, boot ${t_boot:-?} s, VM ${t_vm} s, total $(since "$t_begin") s; log: $log"
echo "vm: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
