"""Which finite check of an (8192, 5) and an (8192, 2) float64 array is
cheapest on this machine's CPU and numpy (experiment)."""
import math, timeit, sys
import numpy as np
print(np.__version__, sys.version.split()[0])
try:
    np.show_runtime()
except Exception:
    pass
p = np.random.rand(8192, 5); x = np.random.rand(8192, 2)
def errsum(a):
    with np.errstate(over="ignore"):
        return math.isfinite(np.add.reduce(a, axis=None))
def plainsum(a): return math.isfinite(np.add.reduce(a, axis=None))
def maxmin(a): return math.isfinite(np.maximum.reduce(a, axis=None)) and math.isfinite(np.minimum.reduce(a, axis=None))
def isfin(a): return bool(np.isfinite(a).all())
z = np.zeros(8192 * 5)
def dotzero(a): return math.isfinite(np.dot(a.ravel(), z[:a.size]))
def sumsq(a): return math.isfinite(np.einsum("i,i->", a.ravel(), z[:a.size]))
def vdot(a): return math.isfinite(np.vdot(a, a))
def mulsum(a):
    with np.errstate(all="ignore"):
        return math.isfinite((a * 0).sum())
for f in (errsum, plainsum, maxmin, isfin, dotzero, sumsq, vdot, mulsum):
    for a in (p, x):
        t = min(timeit.repeat(lambda: f(a), number=500, repeat=7)) / 500 * 1e6
        print("%-9s %6d %7.2f us" % (f.__name__, a.size, t))
import time
t = time.perf_counter(); [np.errstate(over="ignore").__enter__() for _ in range(1000)]; print("errstate enter %.2f us" % ((time.perf_counter() - t) * 1e3))
