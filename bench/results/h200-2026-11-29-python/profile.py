import os, sys; sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import sys, time, collections; sys.path.insert(0, "python")
import numpy as np, picard
from picard import _ffi
acc = collections.defaultdict(float)
for name in ["solve", "record_size", "solver_grid", "solver_fail_times", "solver_error_estimates", "solver_create", "options", "record", "stats", "tolerance"]:
    if hasattr(_ffi, name):
        f = getattr(_ffi, name)
        def w(*a, _f=f, _n=name, **k):
            t = time.perf_counter(); r = _f(*a, **k); acc[_n] += time.perf_counter() - t; return r
        setattr(_ffi, name, w)
import importlib; S = importlib.import_module("picard.solve")
for name in ["_states_and_params", "_run", "_take_solver", "_span", "_set_options", "_give_back", "as_times", "_stats_dict", "Result", "_as_rows_dummy"]:
    if not hasattr(S, name): continue
    f = getattr(S, name)
    def w(*a, _f=f, _n=name, **k):
        t = time.perf_counter(); r = _f(*a, **k); acc[_n] += time.perf_counter() - t; return r
    setattr(S, name, w)
model = picard.Model("lotka")
x0, _ = picard.ensemble(model, 8192)
params = np.tile(model.param_defaults, (8192, 1))
N=500
for i in range(N + 5):
    if i == 5: acc.clear(); t0 = time.perf_counter(); ss = 0
    r = picard.solve(model, x0, (0, 100), params, scheme="dp5", rtol=1e-6, atol=1e-6, backend="cuda", save_at=[100.0])
    if i >= 5: ss += r.stats["solve_seconds"]; r.ok.sum()
tot = time.perf_counter() - t0
print("per call us: total %.0f, C solve_seconds %.0f" % (tot/N*1e6, ss/N*1e6))
import numpy.ctypeslib as C
for k, v in sorted(acc.items(), key=lambda kv: -kv[1]): print("%-24s %8.1f us" % (k, v/N*1e6))

import cProfile, pstats
def loop():
    for i in range(300):
        r = picard.solve(model, x0, (0, 100), params, scheme="dp5", rtol=1e-6, atol=1e-6, backend="cuda", save_at=[100.0]); r.ok.sum()
cProfile.run("loop()", "/tmp/p.out")
pstats.Stats("/tmp/p.out").sort_stats("tottime").print_stats(25)
