#!/usr/bin/python3
"""call_overhead.py - Python's own time per solve: each call's wall time
minus the time inside picard_solve itself (the C call, timed around it),
for picard.solve and for picard.Solver.solve on sweep.py's problem (lotka,
dp5 at 1e-6, state kept at t = 100), min and median over the calls, as CSV
with the device and the date.

    bench/python/call_overhead.py [--ntraj N] [--calls C] [--backend cpu|cuda]"""
import argparse
import datetime
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import picard  # noqa: E402
from picard import _ffi  # noqa: E402

c_seconds = []
_c_solve = _ffi.solve


def timed_c_solve(*args):
    """picard_solve, its wall time kept (run.py calls _ffi.solve by name)."""
    t = time.perf_counter()
    code = _c_solve(*args)
    c_seconds.append(time.perf_counter() - t)
    return code


def overhead_us(call, calls):
    """Each call's wall minus its C call, in microseconds."""
    us = []
    for _ in range(calls):
        del c_seconds[:]
        t = time.perf_counter()
        call()
        wall = time.perf_counter() - t
        us.append((wall - sum(c_seconds)) * 1e6)
    return us


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ntraj", type=int, default=1024)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    a = ap.parse_args()

    model = picard.Model("lotka")
    x0, _ = picard.ensemble(model, a.ntraj, spread=0.1, seed=1)
    params = np.tile(model.param_defaults, (a.ntraj, 1))
    setup = dict(scheme="dp5", rtol=1e-6, atol=1e-6, backend=a.backend, save_at=[100.0])
    _ffi.solve = timed_c_solve
    sides = {}
    with picard.Solver(model, a.ntraj, (0, 100), **setup) as solver:
        sides["python"] = lambda: picard.solve(model, x0, (0, 100), params, **setup)
        sides["python-solver"] = lambda: solver.solve(x0, params)
        for call in sides.values():
            call()  # solvers made, kernels loaded
        results = {k: [] for k in sides}
        for _ in range(5):  # turns, so that a slow spell of the machine hits both
            for side, call in sides.items():
                results[side] += overhead_us(call, max(a.calls // 5, 1))
        device = call().stats["device"]
    date = datetime.date.today().isoformat()
    print("side,ntraj,calls,min_us,median_us,device,date")
    for side, us in results.items():
        print("%s,%d,%d,%.1f,%.1f,%s,%s" % (side, a.ntraj, len(us), min(us),
                                             statistics.median(us), device, date))


if __name__ == "__main__":
    main()
