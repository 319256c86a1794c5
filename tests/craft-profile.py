#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Write a small LKST profile (man/lockstat-data.5) with the buckets asked
for, for the tests of readers on shapes that record never writes (gaps
between buckets, buckets far in the future) or that need a chosen META.

usage: craft-profile.py OUT [--meta KEY=VALUE]... [--lock NAME] [--no-end] BUCKET...
BUCKET is T0:T1[:COUNT[:WAIT_NS]] in ns: one LOCKSTAT chunk with one row
of COUNT (default 1) waits of the spinlock NAME (default "crafted_lock";
WAIT_NS default 1000 per wait), or T0:T1:0 for a bucket without rows.
"""
import struct
import sys
import zlib


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def svarint(v):
    return varint((v << 1) ^ (v >> 63) if v >= 0 else ((-v - 1) << 1) | 1)


def string(s):
    b = s.encode()
    return varint(len(b)) + b


def chunk(ctype, flags, payload):
    head = struct.pack("<IIQ", ctype, flags, len(payload)) + payload
    return head + struct.pack("<I", zlib.crc32(head))


def header():
    h = b"LKSTAT\0\n" + struct.pack("<HHIII", 1, 0, 64, 0, 0)
    h += struct.pack("<Q", 1700000000000000000) + bytes(16) + bytes(12)
    return h + struct.pack("<I", zlib.crc32(h))


def lockstat_row(count, wait):
    # lock address, flags (SPIN), stack id -2 (not sampled), tgid, tid,
    # name (string 1), caller (2), comm "" (0), count, total, min, max, one slot
    return (varint(0xFFFF888100001000) + varint(1) + svarint(-2) + varint(0) + varint(0) +
            varint(1) + varint(2) + varint(0) + varint(count) + varint(count * wait) +
            varint(wait) + varint(wait) + varint(1) + varint(9) + varint(count))


def main(argv):
    out, meta, end, buckets, lock = argv[0], {}, True, [], "crafted_lock"
    args = iter(argv[1:])
    for a in args:
        if a == "--meta":
            k, v = next(args).split("=", 1)
            meta[k] = v
        elif a == "--lock":
            lock = next(args)
        elif a == "--no-end":
            end = False
        else:
            f = [int(x) for x in a.split(":")]
            buckets.append((f[0], f[1], f[2] if len(f) > 2 else 1, f[3] if len(f) > 3 else 1000))
    kv = {"cpus": "2", "bucket_ns": "1000000000", "command": "crafted", "target": "command",
          "per_task": "0", "probe.contention": "tp_btf"}
    kv.update(meta)
    data = header()
    data += chunk(1, 1, varint(len(kv)) + b"".join(string(k) + string(v) for k, v in kv.items()))
    strs = ["", lock, "crafted_caller+0x10"]
    data += chunk(2, 1, varint(0) + varint(len(strs)) + b"".join(string(s) for s in strs))
    for t0, t1, count, wait in buckets:
        rows = lockstat_row(count, wait) if count else b""
        data += chunk(5, 1, varint(t0) + varint(t1) + varint(1 if count else 0) + rows)
    if end:
        last = max((b[1] for b in buckets), default=0)
        data += chunk(7, 0, varint(last) + svarint(0) + varint(1))
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
