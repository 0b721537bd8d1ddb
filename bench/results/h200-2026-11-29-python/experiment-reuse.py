import os, sys, time, subprocess, statistics
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import numpy as np, picard
from picard import run as R, _ffi
import picard.solver as SV
model = picard.Model("lotka")
N, PTS = int(os.environ.get("N", 8192)), int(os.environ.get("PTS", 1000))
BK = os.environ.get("BK", "cuda")
x0, _ = picard.ensemble(model, N, spread=0.1, seed=1)
params = np.tile(model.param_defaults, (N, 1))
b2s = 0.005 + 0.01 * np.arange(PTS) / (PTS - 1)
orig_into, orig_rows = R.solve_into, SV.Solver._rows
bufs = {}
def reuse_into(model, solver, grid, record, x, p, scheme_name):
    n, dim = x.shape
    if "s" not in bufs:
        bufs["s"] = np.empty((record.rows + record.first, n, dim)); bufs["xf"] = np.empty((n, dim)); bufs["st"] = np.empty(n, dtype=np.intc)
    states, x_final, status = bufs["s"], bufs["xf"], bufs["st"]
    rec = record.rec; rec.states = states[record.first:].ctypes.data
    stats = _ffi.stats()
    code = _ffi.solve(solver, x.ctypes.data, p.ctypes.data, x_final.ctypes.data, status.ctypes.data, None, ctypes.byref(rec), 1, ctypes.byref(stats))
    return picard.Result(record.times, states.transpose(1, 0, 2), x_final, status, None, None, None, scheme_name, {})
import ctypes
def loop(s):
    m = np.empty(PTS)
    for i, b in enumerate(b2s):
        params[:, 4] = b
        r = s.solve(x0, params); m[i] = r.x[:, 0, 0].mean()
    return m
variants = {"solver": (orig_into, orig_rows), "reuse": (reuse_into, orig_rows),
            "reuse+nocheck": (reuse_into, lambda self, v, a, w, what: v)}
s = picard.Solver(model, N, (0, 100), scheme="dp5", rtol=1e-6, atol=1e-6, save_at=[100.0], backend=BK)
times = {k: [] for k in variants}; times["c"] = []
loop(s)
for rep in range(5):
    out = subprocess.run(["bin/bench-sweep", str(PTS), str(N), BK, "1"], capture_output=True, text=True).stdout.splitlines()
    times["c"].append(float(out[1].split(",")[4]))
    for k, (into, rows) in variants.items():
        SV.solve_into = into; SV.Solver._rows = rows
        t = time.perf_counter(); loop(s); times[k].append(time.perf_counter() - t)
c = statistics.median(times["c"])
for k, v in times.items():
    print("%-14s min %.4f median %.4f ratio %.3f" % (k, min(v), statistics.median(v), statistics.median(v) / c))
