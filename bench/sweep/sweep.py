#!/usr/bin/python3
"""sweep.py - a parameter sweep from Python against the same sweep in C
(bench_sweep.c, run in this process from bin/bench-sweep.so): lotka's b2 at POINTS values, each an
ensemble of NTRAJ members, dp5 at 1e-6 in double over [0, 100], the state
kept at t = 100 only; per point the mean of x1(100).

    bench/sweep/sweep.py [--points P] [--ntraj N] [--backend cpu|cuda]
                         [--repeats R] [--out FILE]

Python's loop is what a user writes: per point a params array and one
picard.solve ("python"), or one Solver.solve on a picard.Solver made once
before the turns ("python-solver", as bench_sweep.c makes one solver), and
the same with reuse_outputs=True ("python-solver-reuse": every solve into
the same arrays, as bench_sweep.c keeps its buffers). C and the Python
sides take turns in one process, R sweeps each (the first solve of each
excluded, where a solver is made and kernels load); every side's answers
must agree with C's to 1e-12 relative. CSV: each sweep's seconds, then a
summary row per side (min, median) and each Python side's ratio to C, of
the medians and of the minima, with the device and the date."""
import argparse
import ctypes
import datetime
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import picard  # noqa: E402


def python_sweep(model, x0, b2s, backend):
    """The sweep as a user writes it: the mean of x1(100) per value of b2."""
    params = np.tile(model.param_defaults, (x0.shape[0], 1))
    means, failed = np.empty(len(b2s)), np.empty(len(b2s), dtype=int)
    for i, b2 in enumerate(b2s):
        params[:, 4] = b2
        r = picard.solve(model, x0, (0, 100), params, scheme="dp5", rtol=1e-6, atol=1e-6,
                         backend=backend, save_at=[100.0])
        means[i] = r.x[:, 0, 0].mean()
        failed[i] = r.failed
    return means, failed


def solver_sweep(solver, x0, b2s):
    """The same sweep through a prepared solver (picard.Solver), made once
    before the timing as bench_sweep.c makes its picard_solver."""
    params = np.tile(solver.model.param_defaults, (x0.shape[0], 1))
    means, failed = np.empty(len(b2s)), np.empty(len(b2s), dtype=int)
    for i, b2 in enumerate(b2s):
        params[:, 4] = b2
        r = solver.solve(x0, params)
        means[i] = r.x[:, 0, 0].mean()
        failed[i] = r.failed
    return means, failed


class CSweep:
    """bench_sweep.c's sweep in this process (bin/bench-sweep.so, over the
    same libpicard.so as the package): its solver made once, as sweep.py's
    Solvers are, and one call per sweep, so that C and Python take turns on
    one CUDA context."""

    def __init__(self, points, ntraj, backend):
        path = os.path.join(ROOT, "bin", "bench-sweep.so")
        if not os.path.exists(path):
            sys.exit("sweep.py: %s is missing (make bench)" % path)
        lib = ctypes.CDLL(path)
        lib.bench_sweep_new.restype = ctypes.c_void_p
        lib.bench_sweep_new.argtypes = (ctypes.c_long, ctypes.c_long, ctypes.c_int)
        lib.bench_sweep_run.restype = ctypes.c_double
        lib.bench_sweep_run.argtypes = (ctypes.c_void_p,)
        lib.bench_sweep_means.restype = ctypes.POINTER(ctypes.c_double)
        lib.bench_sweep_failed.restype = ctypes.POINTER(ctypes.c_long)
        lib.bench_sweep_device.restype = ctypes.c_char_p
        for f in (lib.bench_sweep_means, lib.bench_sweep_failed, lib.bench_sweep_device,
                  lib.bench_sweep_free):
            f.argtypes = (ctypes.c_void_p,)
        self.lib, self.points = lib, points
        self.sweep = lib.bench_sweep_new(points, ntraj, backend == "cpu")
        if not self.sweep:
            sys.exit("sweep.py: bench_sweep_new failed (its message above)")
        self.device = lib.bench_sweep_device(self.sweep).decode()

    def run(self):
        """One sweep: its seconds (timed in C) and answers."""
        seconds = self.lib.bench_sweep_run(self.sweep)
        if seconds < 0:
            sys.exit("sweep.py: the C sweep failed (its message above)")
        means = np.ctypeslib.as_array(self.lib.bench_sweep_means(self.sweep), (self.points,))
        failed = np.ctypeslib.as_array(self.lib.bench_sweep_failed(self.sweep), (self.points,))
        return seconds, means.copy(), failed.copy()

    def close(self):
        self.lib.bench_sweep_free(self.sweep)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--ntraj", type=int, default=8192)
    ap.add_argument("--backend", default="cuda", choices=("cpu", "cuda"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", help="CSV file (default: stdout)")
    a = ap.parse_args()

    model = picard.Model("lotka")
    x0, _ = picard.ensemble(model, a.ntraj, spread=0.1, seed=1)
    b2s = 0.005 + 0.01 * np.arange(a.points) / max(a.points - 1, 1)
    if a.points == 1:
        b2s[:] = 0.01
    python_sweep(model, x0, b2s[:1], a.backend)  # the solver made, kernels loaded
    solver = picard.Solver(model, a.ntraj, (0, 100), scheme="dp5", rtol=1e-6, atol=1e-6,
                           backend=a.backend, save_at=[100.0])
    reusing = picard.Solver(model, a.ntraj, (0, 100), scheme="dp5", rtol=1e-6, atol=1e-6,
                            backend=a.backend, save_at=[100.0], reuse_outputs=True)
    solver_sweep(solver, x0, b2s[:1])
    solver_sweep(reusing, x0, b2s[:1])

    sides = {"python": lambda: python_sweep(model, x0, b2s, a.backend),
             "python-solver": lambda: solver_sweep(solver, x0, b2s),
             "python-solver-reuse": lambda: solver_sweep(reusing, x0, b2s)}
    c = CSweep(a.points, a.ntraj, a.backend)
    device = c.device
    rows, seconds = [], {"c": [], **{side: [] for side in sides}}
    for r in range(a.repeats):
        s, c_means, c_failed = c.run()
        seconds["c"].append(s)
        rows.append("c,%d,%.6f" % (r, s))
        for side, sweep in sides.items():
            t = time.perf_counter()
            means, failed = sweep()
            seconds[side].append(time.perf_counter() - t)
            worst = np.max(np.abs(means - c_means) / np.abs(c_means))
            if worst > 1e-12 or (failed != c_failed).any():
                sys.exit("sweep.py: %s's answers differ from C's (%.3g relative)"
                         % (side, worst))
            rows.append("%s,%d,%.6f" % (side, r, seconds[side][-1]))

    date = datetime.date.today().isoformat()
    med = {k: statistics.median(v) for k, v in seconds.items()}
    text = ["side,repeat,seconds"] + rows + [
        "", "side,points,ntraj,min_s,median_s,device,date"] + [
        "%s,%d,%d,%.6f,%.6f,%s,%s" % (k, a.points, a.ntraj, min(v), med[k], device, date)
        for k, v in seconds.items()] + [
        ""] + ["ratio_%s_over_c,%.4f,min_over_min,%.4f" % (
            side.replace("-", "_"), med[side] / med["c"], min(seconds[side]) / min(seconds["c"]))
            for side in sides] + [
        "failed_members_total,%d" % failed.sum()]
    solver.close()
    reusing.close()
    c.close()
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(text) + "\n")
    print("\n".join(text))


if __name__ == "__main__":
    main()
