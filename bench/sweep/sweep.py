#!/usr/bin/python3
"""sweep.py - a parameter sweep from Python against the same sweep in C
(bin/bench-sweep, bench_sweep.c): lotka's b2 at POINTS values, each an
ensemble of NTRAJ members, dp5 at 1e-6 in double over [0, 100], the state
kept at t = 100 only; per point the mean of x1(100).

    bench/sweep/sweep.py [--points P] [--ntraj N] [--backend cpu|cuda]
                         [--repeats R] [--out FILE]

Python's loop is what a user writes: per point a params array and one
picard.solve ("python"), or one Solver.solve on a picard.Solver made once
before the turns ("python-solver", as bench_sweep.c makes one solver), and
the same with reuse_outputs=True ("python-solver-reuse": every solve into
the same arrays, as bench_sweep.c keeps its buffers). C and the Python
sides take turns, R sweeps each (the first solve of
each excluded, where a solver is made and kernels load); every side's
answers must agree with C's to 1e-12 relative. CSV: each sweep's seconds,
then a summary row per side (min, median) and each Python side's ratio
to C of the medians, with the device and the date."""
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


def python_sweep(model, x0, b2s, backend):
    """The sweep as a user writes it: the mean of x1(100) per value of b2."""
    params = np.tile(model.param_defaults, (x0.shape[0], 1))
    means, failed = np.empty(len(b2s)), np.empty(len(b2s), dtype=int)
    for i, b2 in enumerate(b2s):
        params[:, 4] = b2
        r = picard.solve(model, x0, (0, 100), params, scheme="dp5", rtol=1e-6, atol=1e-6,
                         backend=backend, save_at=[100.0])
        means[i] = r.x[:, 0, 0].mean()
        failed[i] = (~r.ok).sum()
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
        failed[i] = (~r.ok).sum()
    return means, failed


def c_sweep(points, ntraj, backend):
    """One run of bin/bench-sweep with one sweep: its seconds and answers."""
    out = subprocess.run([os.path.join(ROOT, "bin", "bench-sweep"), str(points), str(ntraj),
                          backend, "1"], capture_output=True, text=True)
    if out.returncode:
        sys.exit("sweep.py: bin/bench-sweep failed (make bin/bench-sweep):\n" + out.stderr)
    lines = out.stdout.splitlines()
    timing = lines[1].split(",")
    answers = np.array([[float(v) for v in line.split(",")] for line in lines[3:]])
    return float(timing[4]), timing[5], answers[:, 2], answers[:, 3].astype(int)


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
    rows, seconds = [], {"c": [], **{side: [] for side in sides}}
    for r in range(a.repeats):
        s, device, c_means, c_failed = c_sweep(a.points, a.ntraj, a.backend)
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
        ""] + ["ratio_%s_over_c,%.4f" % (side.replace("-", "_"), med[side] / med["c"])
               for side in sides] + [
        "failed_members_total,%d" % failed.sum()]
    solver.close()
    reusing.close()
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(text) + "\n")
    print("\n".join(text))


if __name__ == "__main__":
    main()
