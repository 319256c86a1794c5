#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Checks contrib/bench/benchstat on runs whose answer is known.

Each case writes the per-run CSV that contrib/bench/real writes, with
metrics built so that the per-run ratios, the interval and the verdict
can be worked out by hand, runs benchstat on it, and checks its table
and exit status. Prints one line per failed expectation; exits 1 when
there was one.
"""
import os
import random
import subprocess
import sys
import tempfile

BENCHSTAT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "contrib", "bench", "benchstat")
HEADER = "round,seq,workload,variant,metric,load1,busy_pct,steal_pct,status\n"
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def write_runs(rows, header=HEADER):
    """rows: (variant, metric or None, busy, steal, status); U T U T U order as given."""
    fd, path = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(fd, "w") as f:
        f.write(header)
        for seq, (variant, metric, busy, steal, status) in enumerate(rows, 1):
            f.write("1,%d,hackbench,%s,%s,0.1,%g,%g,\"%s\"\n"
                    % (seq, variant, "" if metric is None else "%.6f" % metric, busy, steal, status))
    return path


def run(path, *args):
    p = subprocess.run([sys.executable, BENCHSTAT, *args, path], capture_output=True, text=True)
    os.unlink(path)
    return p.returncode, p.stdout, p.stderr


def interleave(base, ratios, variant="lockstat", busy=None, steal=None):
    """U T U T ... U: base[i] untraced around the traced runs, each ratios[i] of its neighbours' mean."""
    rows = [("untraced", base[0], 0, 0, "ok")]
    for i, r in enumerate(ratios):
        b = busy[i] if busy else 0
        s = steal[i] if steal else 0
        rows.append((variant, r * (base[i] + base[i + 1]) / 2, b, s, "ok"))
        rows.append(("untraced", base[i + 1], b, 0, "ok"))
    return rows


def row_of(out, variant):
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == variant:
            return line
    return ""


def case_drift_cancels():
    # The machine speeds up by 2 % a run; each traced run keeps exactly 97 % of its neighbours.
    n = 20
    base = [100.0 * 1.02 ** i for i in range(n + 1)]
    rc, out, _ = run(write_runs(interleave(base, [0.97] * n)))
    line = row_of(out, "lockstat")
    expect(" 97.00%" in line and "[  97.00%,   97.00%]" in line and " NO" in line,
           "drift: every ratio 97 %%: median and interval 97.00 %%, NO (got: %r)" % line)
    expect(rc == 1, "drift: NO exits 1 (got %d)" % rc)


def case_yes():
    rng = random.Random(7)
    n = 30
    ratios = [1.005 + rng.uniform(-0.002, 0.002) for _ in range(n)]
    rc, out, _ = run(write_runs(interleave([100.0] * (n + 1), ratios)))
    line = row_of(out, "lockstat")
    f = line.replace("[", " ").replace("]", " ").replace(",", " ").replace("%", " ").split()
    lo, hi = float(f[3]), float(f[4])
    expect(100.3 <= lo <= hi <= 100.7 and "YES" in line and "does not resolve" not in line,
           "100.5 %% +- 0.2: interval inside [100.3, 100.7], YES, resolved (got: %r)" % line)
    expect(rc == 0, "every verdict YES exits 0 (got %d)" % rc)


def case_unresolved():
    n = 10
    ratios = [0.95 if i % 2 else 1.05 for i in range(n)]
    rc, out, _ = run(write_runs(interleave([100.0] * (n + 1), ratios)))
    line = row_of(out, "lockstat")
    expect("UNRESOLVED" in line and "does not resolve 1 %: about" in line,
           "95/105 %% alternating: UNRESOLVED, with the rounds it would take (got: %r)" % line)
    expect(rc == 1, "UNRESOLVED exits 1 (got %d)" % rc)


def case_busy():
    n = 20
    busy = [20.0 if i < 5 else 0.0 for i in range(n)]	# 10 of 41 runs disturbed: 24 %
    rows = interleave([100.0] * (n + 1), [1.01] * n, busy=busy)
    rc, out, _ = run(write_runs(rows))
    line = row_of(out, "lockstat")
    expect("machine busy" in out and line.rstrip().endswith("-"),
           "busy machine: no verdict (got: %r)" % line)
    expect(rc == 1, "busy machine exits 1 (got %d)" % rc)
    rc, out, _ = run(write_runs(rows), "--force")
    line = row_of(out, "lockstat")
    expect("YES (busy machine)" in line, "--force: the verdict, marked (got: %r)" % line)
    expect(rc == 1, "--force on a busy machine still exits 1 (got %d)" % rc)
    steal = [5.0 if i < 5 else 0.0 for i in range(n)]
    rc, out, _ = run(write_runs(interleave([100.0] * (n + 1), [1.01] * n, steal=steal)))
    expect("disturbed: 5 " in out and "machine busy" in out,
           "steal above 2 %% disturbs a run (got: %r)" % out.splitlines()[0])


def case_failed_runs():
    # A failed traced run is no ratio; a failed untraced run leaves its other neighbour.
    rows = interleave([100.0, 100.0, 200.0, 200.0], [0.98, 0.98, 0.98])
    rows[2] = ("lockstat", None, 0, 0, "failed: exit 1: killed")
    rows[3] = ("untraced", None, 0, 0, "failed: exit 1: killed")
    rows[4] = ("lockstat", 0.98 * 200.0, 0, 0, "ok")
    rc, out, _ = run(write_runs(rows))
    line = row_of(out, "lockstat")
    expect(line.split()[1:3] == ["2", "98.00%"],
           "failed runs left out: 2 ratios of 98 %% (got: %r)" % line)


def case_bad_input():
    rc, out, _ = run(write_runs([]))
    expect(rc == 1 and "no verdict" in out, "no runs: no verdict, exit 1 (got %d: %r)" % (rc, out))
    rc, out, _ = run(write_runs([("untraced", 100.0, 0, 0, "ok"), ("untraced", 100.0, 0, 0, "ok")]))
    expect(rc == 1 and "no verdict" in out, "no traced run: no verdict, exit 1 (got %d: %r)" % (rc, out))
    rc, _, err = run(write_runs([], header="round,seq,workload,variant,metric\n"))
    expect(rc == 2 and err.count("\n") == 1 and "missing" in err,
           "columns missing: one line, exit 2 (got %d: %r)" % (rc, err))
    p = subprocess.run([sys.executable, BENCHSTAT, "/nonexistent/runs.csv"], capture_output=True, text=True)
    expect(p.returncode == 2 and p.stderr.startswith("benchstat: "),
           "a missing file: exit 2 (got %d: %r)" % (p.returncode, p.stderr))


for case in (case_drift_cancels, case_yes, case_unresolved, case_busy, case_failed_runs, case_bad_input):
    case()
for f in failures:
    print("benchstat: " + f)
sys.exit(1 if failures else 0)
