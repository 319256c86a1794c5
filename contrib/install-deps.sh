#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install the Debian packages lockstat needs that are missing (and only
# those), so a fresh Debian 12 machine can build (default) or also run
# every test tier (--tests), or also boot the VM tier's kernel under QEMU
# (--vm). Safe to run again: it installs nothing twice.
set -euo pipefail

build_pkgs=(make gcc clang llvm bpftool pkg-config libbpf-dev libelf-dev libdw-dev
	zlib1g-dev libncurses-dev libmicrohttpd-dev)
test_pkgs=(libcmocka-dev libclang-rt-dev jq linux-perf util-linux procps golang-go tmux stress-ng
	g++ binutils dwz libxml2-utils python3 gzip bsdutils dbench prometheus curl libcap2-bin)
vm_pkgs=(qemu-system-x86 busybox-static cpio gdb)

want=("${build_pkgs[@]}")
case "${1:-}" in
--tests) want+=("${test_pkgs[@]}") ;;
--vm) want+=("${vm_pkgs[@]}") ;;
"") ;;
*) echo "usage: $0 [--tests | --vm]" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "lockstat: missing Debian packages: ${missing[*]}; run this as root (sudo $0 $*)" >&2
	exit 1
fi
echo "lockstat: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
