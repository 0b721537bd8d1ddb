#!/usr/bin/python3
"""overhead.py - the per-call overhead of picard.solve over the C API: the
same tiny solve (decay, dp5 at rtol 1e-8, double, one saved time) through
Python and through bin/bench-python (bench_python.c), min and median of
repeats, as CSV with the device and the date.

    bench/python/overhead.py [--ntraj N] [--repeats R] [--backend cpu|cuda] [--out FILE]

Rows: side (c, python), what (solve: the solver kept between calls, as in
a sweep of one shape; create+solve: a fresh solver each call), min_us,
median_us; then the overhead rows, python minus c."""
import argparse
import datetime
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import picard  # noqa: E402


def timed(call, repeats):
    us = []
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        us.append((time.perf_counter() - t) * 1e6)
    return min(us), statistics.median(us)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ntraj", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2000)
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--out", help="CSV file (default: stdout)")
    a = ap.parse_args()

    c = subprocess.run([os.path.join(ROOT, "bin", "bench-python"), str(a.ntraj),
                        str(a.repeats), a.backend], capture_output=True, text=True)
    if c.returncode:
        sys.exit("overhead.py: bin/bench-python failed (make bin/bench-python):\n" + c.stderr)
    lines = c.stdout.strip().splitlines()
    rows = [line.split(",") for line in lines[1:]]
    device = rows[0][-1]

    model = picard.Model("decay")
    x0 = np.ones((a.ntraj, 1))
    args = dict(backend=a.backend, scheme="dp5", rtol=1e-8, save_at=[1.0])
    r = picard.solve(model, x0, (0, 1), **args)
    if abs(r.x[0, 0, 0] - np.exp(-0.5)) > 1e-7:
        sys.exit("overhead.py: picard.solve gave %r, not exp(-0.5)" % r.x[0, 0, 0])

    def fresh():
        picard.clear_cache()
        picard.solve(model, x0, (0, 1), **args)

    py = {"solve": timed(lambda: picard.solve(model, x0, (0, 1), **args), a.repeats),
          "create+solve": timed(fresh, a.repeats)}
    date = datetime.date.today().isoformat()
    out = ["side,what,ntraj,repeats,min_us,median_us,device,date"]
    for side, what, n, rep, lo, med, dev in rows:
        out.append(",".join([side, what, n, rep, lo, med, dev, date]))
    for what, (lo, med) in py.items():
        out.append("python,%s,%d,%d,%.2f,%.2f,%s,%s" % (what, a.ntraj, a.repeats, lo, med,
                                                        device, date))
    for side, what, n, rep, lo, med, dev in rows:
        out.append("overhead,%s,%s,%s,%.2f,%.2f,%s,%s" % (
            what, n, rep, py[what][0] - float(lo), py[what][1] - float(med), device, date))
    text = "\n".join(out) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
