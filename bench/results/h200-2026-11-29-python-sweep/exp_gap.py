"""Experiment (not a benchmark of record): where the Solver sweep's time
goes against C's, in one process: the time inside picard_solve per point
(timed around the ctypes call), Python's own per call, the sweep loop's
numpy, with and without the finite check."""
import os, statistics, sys, time
sys.path.insert(0, os.path.join(os.getcwd(), "bench", "sweep"))
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import numpy as np
import sweep as S
import picard
import picard.arrays as arrays
from picard import _ffi
model = picard.Model("lotka")
x0, _ = picard.ensemble(model, 8192, spread=0.1, seed=1)
b2s = 0.005 + 0.01 * np.arange(1000) / 999
c = S.CSweep(1000, 8192, "cuda")
s = picard.Solver(model, 8192, (0, 100), scheme="dp5", rtol=1e-6, atol=1e-6, backend="cuda", save_at=[100.0])
S.solver_sweep(s, x0, b2s[:1])
real_solve, real_check = _ffi.solve, arrays.check_values
inside = []
def timed(*a):
    t = time.perf_counter(); r = real_solve(*a); inside.append(time.perf_counter() - t); return r
def loop_only(solver, x0, b2s):
    params = np.tile(model.param_defaults, (x0.shape[0], 1))
    r = solver.solve(x0, params)
    for b2 in b2s:
        params[:, 4] = b2
        r.x[:, 0, 0].mean(); (~r.ok).sum()
rows = {k: [] for k in ("c", "solver", "solver_inside", "solver_nocheck", "nocheck_inside", "numpy_loop")}
for r in range(7):
    rows["c"].append(c.run()[0])
    _ffi.solve = timed; inside.clear()
    t = time.perf_counter(); S.solver_sweep(s, x0, b2s); rows["solver"].append(time.perf_counter() - t)
    rows["solver_inside"].append(sum(inside))
    arrays.check_values = lambda *a: None; inside.clear()
    t = time.perf_counter(); S.solver_sweep(s, x0, b2s); rows["solver_nocheck"].append(time.perf_counter() - t)
    rows["nocheck_inside"].append(sum(inside))
    arrays.check_values = real_check; _ffi.solve = real_solve
    t = time.perf_counter(); loop_only(s, x0, b2s); rows["numpy_loop"].append(time.perf_counter() - t)
for k, v in rows.items():
    print("%s,min_us_per_point,%.1f,median_us_per_point,%.1f" % (k, min(v) * 1e3, statistics.median(v) * 1e3))
