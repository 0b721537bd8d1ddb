"""Experiment (not a benchmark of record): the Solver sweep with picard's
finite check of x0 and params left out, taking turns with C's and the
Solver's own, to measure what the check costs a sweep."""
import os, statistics, sys, time
sys.path.insert(0, os.path.join(os.getcwd(), "bench", "sweep"))
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import numpy as np
import sweep as S
import picard
import picard.arrays as arrays
import picard.solver as solver_mod
model = picard.Model("lotka")
x0, _ = picard.ensemble(model, 8192, spread=0.1, seed=1)
b2s = 0.005 + 0.01 * np.arange(1000) / 999
c = S.CSweep(1000, 8192, "cuda")
s = picard.Solver(model, 8192, (0, 100), scheme="dp5", rtol=1e-6, atol=1e-6, backend="cuda", save_at=[100.0])
S.solver_sweep(s, x0, b2s[:1])
real = arrays.check_values
def nocheck(*a): return None
times = {"c": [], "solver": [], "solver-nocheck": []}
for r in range(7):
    times["c"].append(c.run()[0])
    t = time.perf_counter(); S.solver_sweep(s, x0, b2s); times["solver"].append(time.perf_counter() - t)
    arrays.check_values = nocheck
    import picard.arrays
    t = time.perf_counter(); S.solver_sweep(s, x0, b2s); times["solver-nocheck"].append(time.perf_counter() - t)
    arrays.check_values = real
for k, v in times.items():
    print("%s,min,%.4f,median,%.4f,ratio_median,%.3f" % (k, min(v), statistics.median(v), statistics.median(v) / statistics.median(times["c"])))
