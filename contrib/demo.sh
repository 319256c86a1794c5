#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The main job on a bundled workload: threads sharing one fd table
# (fdstorm) recorded with lockstat, then the lock table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$root/build/demo.data}
if [ "$(id -u)" != 0 ]; then
	echo "lockstat demo: recording needs root (CAP_BPF, CAP_PERFMON): run 'sudo make demo'" >&2
	exit 1
fi
echo "== lockstat record -o $out -- fdstorm -t 2 -d 3"
"$root/build/lockstat" record -o "$out" -- "$root/build/workloads/fdstorm" -t 2 -d 3
echo
echo "== lockstat report -i $out -n 5"
"$root/build/lockstat" report -i "$out" -n 5
