#!/usr/bin/python3
"""alternatives.py - one problem written with picard, diffrax, torchdiffeq
and SciPy's solve_ivp, timed side by side in one run, each held to one
reference (docs/python.md's table).

    bench/python/alternatives.py [--ntraj N] [--tol TOL] [--repeats R] [--out FILE]

The problem: lotka (models/lotka.cu: x1' = a1 x1 - b1 x1 x2 - c1 x1^2,
x2' = a2 x2 + b2 x1 x2 - c2 x2^2, the default parameters), N members
(default 8192) spread 10% around (50, 30) with seed 1 (picard.ensemble),
from t = 0 to 100, in double (or --precision float: every method but
solve_ivp in float), each member's state at t = 100 kept.
Every adaptive method runs at rtol = atol = TOL (default 1e-4), its own
local error control:
  picard dp5     picard.solve(..., scheme="dp5", rtol=TOL, atol=TOL)
  picard tol     picard.solve(..., tol=TOL): a bound on each member's
                 error; picard chooses the method and checks every member
  diffrax        diffeqsolve, Tsit5 with a PIDController, vmapped, jitted
  torchdiffeq    odeint, dopri5, the ensemble as one batched state (one
                 step size for all members, as torchdiffeq runs a batch)
  solve_ivp      RK45 over the ensemble as one system of 2N equations, on
                 the CPU (SciPy has no GPU)
A framework that is not installed is reported so and skipped.

The reference is picard's dp8 at rtol = atol = 1e-13, itself held to
SciPy's DOP853 at 1e-13 on 16 members when SciPy is there. Each row:
the lines of the snippet (the function below that names it, without its
docstring, blank lines and comments), the first call's seconds (with
compilation), min and median of the repeats after it, and the largest
error at t = 100 over members and components, absolute and relative to
|x|, against the reference."""
import argparse
import datetime
import inspect
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave the GPU to the others
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import picard  # noqa: E402

T1 = 100.0
DOUBLE = True  # --precision: every method in double, or every one in float
P = (0.25, 0.01, 0.001, -0.3, 0.01, 0.002)  # lotka's defaults: a1 b1 c1 a2 b2 c2


# ---- the snippets: what a user writes with each ------------------------------

def with_picard_dp5(x0, tol):
    r = picard.solve("lotka", x0, (0, T1), scheme="dp5", rtol=tol, atol=tol, save_at=[T1],
                     precision="double" if DOUBLE else "float")
    return r.x[:, -1]


def with_picard_tol(x0, tol):
    r = picard.solve("lotka", x0, (0, T1), tol=tol, save_at=[T1],
                     precision="double" if DOUBLE else "float")
    return r.x[:, -1]


def diffrax_solver(tol):
    """diffrax's solve, jitted once (a new jax.jit each call would trace and
    compile each call)."""
    import diffrax
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", DOUBLE)

    def f(t, x, p):
        a1, b1, c1, a2, b2, c2 = p
        return jnp.stack([a1 * x[0] - b1 * x[0] * x[1] - c1 * x[0] ** 2,
                          a2 * x[1] + b2 * x[0] * x[1] - c2 * x[1] ** 2])

    @jax.jit
    def solve(x0):
        def one(x):
            return diffrax.diffeqsolve(
                diffrax.ODETerm(f), diffrax.Tsit5(), 0.0, T1, None, x, args=P,
                stepsize_controller=diffrax.PIDController(rtol=tol, atol=tol),
                saveat=diffrax.SaveAt(t1=True), max_steps=100000).ys[-1]
        return jax.vmap(one)(x0)
    return solve


_DIFFRAX = {}  # tol: the jitted solve (the harness's, not the snippet's)


def with_diffrax(x0, tol):
    solve = _DIFFRAX.get(tol) or _DIFFRAX.setdefault(tol, diffrax_solver(tol))
    return np.asarray(solve(x0).block_until_ready())


with_diffrax.lines = lambda: snippet_lines(diffrax_solver) + 1  # and the call
with_diffrax.device = lambda: __import__("jax").devices()[0].device_kind


def with_torchdiffeq(x0, tol):
    import torch
    from torchdiffeq import odeint

    a1, b1, c1, a2, b2, c2 = P

    def f(t, x):
        return torch.stack([a1 * x[:, 0] - b1 * x[:, 0] * x[:, 1] - c1 * x[:, 0] ** 2,
                            a2 * x[:, 1] + b2 * x[:, 0] * x[:, 1] - c2 * x[:, 1] ** 2], 1)

    dtype = torch.float64 if DOUBLE else torch.float32
    x = torch.tensor(x0, dtype=dtype, device="cuda")
    t = torch.tensor([0.0, T1], dtype=dtype, device="cuda")
    xs = odeint(f, x, t, rtol=tol, atol=tol, method="dopri5")
    return xs[-1].cpu().numpy()


with_torchdiffeq.device = lambda: __import__("torch").cuda.get_device_name()


def with_solve_ivp(x0, tol):
    from scipy.integrate import solve_ivp

    a1, b1, c1, a2, b2, c2 = P
    n = x0.shape[0]

    def f(t, y):
        x1, x2 = y[:n], y[n:]
        return np.concatenate([a1 * x1 - b1 * x1 * x2 - c1 * x1 ** 2,
                               a2 * x2 + b2 * x1 * x2 - c2 * x2 ** 2])

    s = solve_ivp(f, (0, T1), x0.T.ravel(), method="RK45", rtol=tol, atol=tol)
    return s.y[:, -1].reshape(2, n).T


with_solve_ivp.device = lambda: "CPU (numpy)"


METHODS = [("picard dp5", with_picard_dp5), ("picard tol", with_picard_tol),
           ("diffrax Tsit5", with_diffrax), ("torchdiffeq dopri5", with_torchdiffeq),
           ("scipy solve_ivp RK45", with_solve_ivp)]


# ---- the measurement ---------------------------------------------------------

def snippet_lines(fn):
    """Lines of fn's source a user writes: no docstring, blank or comment
    lines (fn.lines() where the snippet is more than fn)."""
    if hasattr(fn, "lines"):
        return fn.lines()
    source = inspect.getsource(fn)
    if fn.__doc__:
        first = source.index('"""')
        source = source[:first] + source[source.index('"""', first + 3) + 3:]
    return sum(1 for line in source.splitlines()
               if line.strip() and not line.strip().startswith("#"))


def reference(x0):
    r = picard.solve("lotka", x0, (0, T1), scheme="dp8", rtol=1e-13, atol=1e-13, save_at=[T1])
    ref = r.x[:, -1]
    agree = "scipy not installed"
    try:
        from scipy.integrate import solve_ivp
        a1, b1, c1, a2, b2, c2 = P
        worst = 0.0
        for i in np.linspace(0, x0.shape[0] - 1, 16).astype(int):
            s = solve_ivp(lambda t, x: [a1 * x[0] - b1 * x[0] * x[1] - c1 * x[0] ** 2,
                                        a2 * x[1] + b2 * x[0] * x[1] - c2 * x[1] ** 2],
                          (0, T1), x0[i], method="DOP853", rtol=1e-13, atol=1e-13)
            worst = max(worst, np.max(np.abs(s.y[:, -1] - ref[i]) / np.abs(ref[i])))
        agree = "%.2g" % worst
    except ImportError:
        pass
    return ref, agree


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ntraj", type=int, default=8192)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--precision", default="double", choices=("double", "float"),
                    help="of every method but solve_ivp's (double only)")
    ap.add_argument("--only", help="comma-separated names' first words (picard, diffrax, ...)")
    ap.add_argument("--out", help="CSV file (default: stdout only)")
    a = ap.parse_args()
    global DOUBLE
    DOUBLE = a.precision == "double"

    x0, _ = picard.ensemble("lotka", a.ntraj, spread=0.1, seed=1)
    ref, agree = reference(x0)
    device = picard.solve("lotka", x0[:1], (0, 1)).stats["device"]
    for fn in (with_picard_dp5, with_picard_tol):
        fn.device = lambda: device
    rows = ["method,lines,first_s,min_s,median_s,max_abs_error,max_rel_error,device,note"]
    for name, fn in METHODS:
        if a.only and name.split()[0] not in a.only.split(",") and name not in a.only.split(","):
            continue
        try:
            t = time.perf_counter()
            x = fn(x0, a.tol)
            first = time.perf_counter() - t
            times = []
            for _ in range(a.repeats):
                t = time.perf_counter()
                x = fn(x0, a.tol)
                times.append(time.perf_counter() - t)
        except ImportError as e:
            rows.append("%s,%d,,,,,,,not installed (%s)" % (name, snippet_lines(fn), e))
            print(rows[-1], flush=True)
            continue
        except Exception as e:  # a framework's failure is a row, not the end of the run
            rows.append('%s,%d,,,,,,,"failed: %s"' % (name, snippet_lines(fn),
                                                     str(e).splitlines()[0][:120]))
            print(rows[-1], flush=True)
            continue
        x = np.asarray(x, dtype=float)
        abs_err = np.max(np.abs(x - ref))
        rel_err = np.max(np.abs(x - ref) / np.abs(ref))
        rows.append("%s,%d,%.4f,%.5f,%.5f,%.3g,%.3g,%s,%s" % (
            name, snippet_lines(fn), first, min(times), statistics.median(times),
            abs_err, rel_err, fn.device(), "" if np.all(np.isfinite(x)) else "non-finite states"))
        print(rows[-1], flush=True)
    rows += ["", "ntraj,%d" % a.ntraj, "tol,%g" % a.tol, "precision,%s" % a.precision, "repeats,%d" % a.repeats,
             "picard_device,%s" % device, "date,%s" % datetime.date.today().isoformat(),
             "reference,picard dp8 at 1e-13; scipy DOP853 at 1e-13 agrees to %s relative "
             "on 16 members" % agree]
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(rows) + "\n")
    print("\n".join(rows[-6:]))


if __name__ == "__main__":
    main()
