"""solver.py - picard.Solver: a solver made once for one model, options,
span and ensemble size, then solved for many start states and parameters,
as a C user calls picard_solve in a loop on one picard_solver."""
import ctypes
import threading

import numpy as np

from . import _ffi
from .arrays import as_rows, broadcast_rows
from .errors import Error, check as check_code, refuse
from .model import as_model
from .run import Outputs, Record, solve_into
from .solve import _options, _positive, _span

# picard.solve's arguments a Solver does not take, and where they are
_SOLVE_ONLY = {
    "tol": "picard.solve(..., tol=E) chooses a configuration per ensemble",
    "check": "picard.solve(..., check=True) compares with the reference",
    "seed": "draw the ensemble with picard.ensemble(model, N, seed=...)",
    "progress": "picard.solve(..., tol=E, progress=True) reports tol='s search",
}


class Solver:
    """A solver for n members of model over t_span, made once and solved
    for many x0 and params (a parameter sweep):

        with picard.Solver("lotka", 8192, (0, 100), rtol=1e-6, atol=1e-6,
                           save_at=[100.0]) as s:
            for b in values:
                params[:, 4] = b
                r = s.solve(x0, params)     # a picard.Result

    The arguments are picard.solve's (scheme, rtol, atol, backend,
    precision, save_at, the scheme's **options), checked here once; t_span
    is one pair (t0, t1). solve(x0, params=None) checks only x0 ((n, dim)
    or one row (dim,)) and params ((n, p), (p,) or None: the model's
    defaults) and returns what picard.solve returns for the same inputs,
    bit for bit. tol=, check= and per-member spans are picard.solve's only.

    reuse_outputs=True: every solve writes into the same arrays, as a C
    loop keeps its buffers (no fresh arrays per call): a Result's x,
    x_final, status and t_fail then hold only until the next solve. Copy
    what you keep.

    A Solver holds its C solver (host memory, on the GPU device memory)
    until close() or the end of a with block. Its solves take turns under a
    lock: share one between threads and they run one at a time; for
    solves at once, make one Solver per thread."""

    def __init__(self, model, n, t_span, *, scheme="auto", rtol=None, atol=None,
                 backend="auto", precision="double", save_at=None, reuse_outputs=False,
                 **options):
        self._solver = None
        for name, where in _SOLVE_ONLY.items():
            if name in options:
                refuse(name, "not taken by picard.Solver: " + where)
        self.model = model = as_model(model)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            refuse("n", "the ensemble size: an int >= 1, not %r" % (n,))
        self.n = n = int(n)
        t0, t1, spans = _span(t_span)
        if spans is not None:
            refuse("t_span", "picard.Solver takes one span (t0, t1); per-member spans: "
                   "picard.solve")
        opts, self.scheme = _options(model, scheme, backend, precision, t0, t1,
                                     _positive(rtol, "rtol"), _positive(atol, "atol"), options)
        self.precision = precision
        solver = _ffi.solver_p()
        check_code(_ffi.solver_create(ctypes.byref(solver), model._ptr, ctypes.byref(opts), n),
                   "creating a solver for %d member%s of %s" % (n, "s"[:n != 1], model.name))
        self._solver = solver
        self._lock = threading.Lock()
        try:
            self._grid = _ffi.solver_grid(solver).contents
            self._record = Record(solver, self._grid, n, model.dim, t0, t1, None, save_at,
                                  shared=True)
            self._outputs = Outputs(self._record, n, model.dim) if reuse_outputs else None
        except BaseException:
            self.close()
            raise

    def solve(self, x0, params=None):
        """The ensemble from x0 ((n, dim), or (dim,) for every member) with
        params ((n, p), (p,) shared, or None: the model's defaults): a
        picard.Result."""
        x = self._rows(x0, "x0", self.model.dim, "components")
        p = None if params is None else \
            self._rows(params, "params", self.model.nparams, "parameters")
        with self._lock:
            solver = self._solver
            if solver is None:
                raise Error("picard.Solver: solve() after close(); make a new Solver")
            return solve_into(self.model, solver, self._record, x, p, self.scheme,
                              self.precision, self._outputs)

    def _rows(self, value, argument, width, what):
        array, _ = as_rows(value, argument, width, what, self.precision, values=False)
        return broadcast_rows(array, self.n, argument)

    def close(self):
        """Free the C solver; solve() is refused after it. Twice is harmless."""
        if self._solver is None:
            return
        with self._lock:  # not while a solve runs on it
            solver, self._solver = self._solver, None
            if solver is not None:
                _ffi.solver_free(solver)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_solver", None) is not None and _ffi is not None:
            self.close()

    def __repr__(self):
        return "picard.Solver(%s, %d members, scheme=%r%s)" % (
            self.model.name, self.n, self.scheme, "" if self._solver is not None else ", closed")
