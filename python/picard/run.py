"""run.py - one picard_solve through a made solver: the record of the times
kept (made once per solver and span), the call into fresh or reused
outputs, and the Result. picard.solve and picard.Solver both solve
through here."""
import ctypes

import numpy as np

from . import _ffi
from .arrays import as_times, refused_values
from .errors import raise_for
from .result import Result


class Record:
    """The times a solve keeps states at and the picard_record that asks
    for them; rec.states is set per solve. first is 1 when the first row
    holds x0 (the times are t0 and the window ends), then filled from x.
    shared: the times serve many solves (picard.Solver): a read-only copy,
    so that no Result's t can change what the next solve keeps."""

    def __init__(self, solver, grid, n, dim, t0, t1, spans, save_at, shared=False):
        rec = _ffi.record(traj_stride=1)
        if save_at is None:
            rec.every = 1
            if spans is None:
                times = t0 + grid.window * np.arange(0, grid.windows + 1)
                times[-1] = t1
            else:  # each member's own window ends
                steps = np.arange(0, grid.windows + 1) / grid.windows
                times = spans[:, :1] + (spans[:, 1:] - spans[:, :1]) * steps
                times[:, -1] = spans[:, 1]
        else:
            times = as_times(save_at, t0, t1)
            if shared:
                times = times.copy()
            rec.times = times.ctypes.data
            rec.ntimes = times.size
        self.first = 0 if save_at is not None else 1
        self.rows = times.shape[-1] - self.first
        if _ffi.record_size(solver, ctypes.byref(rec)) != self.rows * n * dim:
            raise RuntimeError("picard: record size mismatch (the bindings and the library "
                               "disagree)")
        if shared:
            times.flags.writeable = False
        self.times, self.rec = times, rec
        # the grid's part of a Result's stats, read while the solver lives
        self.grid_stats = {
            "m": grid.m, "K": grid.K, "adaptive": bool(grid.adaptive), "h": grid.h,
            "window": grid.window, "windows": grid.windows,
            "iter_rtol": grid.iter_rtol, "iter_atol": grid.iter_atol,
        }


class Outputs:
    """The arrays a solve writes: states (rows, n, dim), x_final (n, dim),
    status (n,) and t_fail (n,). Fresh for each solve, or one set a
    picard.Solver made with reuse_outputs=True writes every solve into."""

    def __init__(self, record, n, dim):
        self.states = np.empty((record.rows + record.first, n, dim))
        self.x_final = np.empty((n, dim))
        self.status = np.empty(n, dtype=np.intc)
        self.t_fail = np.empty(n)


def solve_into(model, solver, record, x, p, scheme_name, precision, outputs=None):
    """Solve x (n, dim) with p (n, nparams) or None on solver into outputs
    (None: fresh ones): the Result, err None (the caller may check). The
    library checks that x and p are finite and that precision holds them
    (one pass each, in C); where it refuses them, the refusal names the
    argument and the entry as the package's own checks do."""
    n, dim = x.shape
    out = outputs or Outputs(record, n, dim)
    states = out.states
    if record.first:
        states[0] = x
    rec = record.rec
    rec.states = states[record.first:].ctypes.data
    stats = _ffi.stats()
    # ctypes releases the GIL for the call
    code = _ffi.solve(solver, x.ctypes.data, p.ctypes.data if p is not None else None,
                      out.x_final.ctypes.data, out.status.ctypes.data, None,
                      ctypes.byref(rec), 1, ctypes.byref(stats))
    if code < 0 and code != _ffi.EFAILED:
        if code == _ffi.EINVAL:
            refused_values(precision, x0=x, params=p)
        raise_for(code, "solving %d member%s of %s" % (n, "s"[:n != 1], model.name))
    # a member's t_fail is set where it failed or a terminal event stopped
    # it; with no failure and no events every one is NaN, and the library's
    # per-member pairs (n, 2) need not be read
    if code == _ffi.EFAILED or model.has_events:
        fail = np.ctypeslib.as_array(_ffi.solver_fail_times(solver), (n, 2))
        np.copyto(out.t_fail, fail[:, 0])
    else:
        out.t_fail.fill(np.nan)
    err_est = None
    est = _ffi.solver_error_estimates(solver)
    if est:
        err_est = np.ctypeslib.as_array(est, (n,)).copy()
    return Result(record.times, states.transpose(1, 0, 2), out.x_final, out.status,
                  out.t_fail, None, err_est, scheme_name, stats.failed,
                  lambda: _stats_dict(stats, record.grid_stats))


def _stats_dict(stats, grid_stats):
    return {
        "device": stats.device.decode(errors="replace"),
        "backend": _ffi.BACKEND_NAMES.get(stats.backend, "?"),
        "solve_seconds": stats.solve_seconds, "failed": stats.failed,
        "rhs_evals": stats.rhs_evals, "sweeps_mean": stats.sweeps_mean,
        "sweeps_max": stats.sweeps_max, "chunks": stats.chunks,
        "launches": stats.launches, "host_waits": stats.host_waits,
        "estimate_seconds": stats.estimate_seconds, **grid_stats,
    }
