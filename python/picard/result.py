"""result.py - what picard.solve returns."""
import numpy as np

from . import _ffi

# every status's name, by its code (picard_traj_status_name)
_STATUS_NAMES = np.array([_ffi.traj_status_name(i).decode() for i in range(32)])
# whether a code is done: PICARD_TRAJ_OK and PICARD_TRAJ_EVENT (a terminal
# event), by the code (one lookup per member, no comparisons)
_OK_BY_CODE = np.zeros(32, dtype=bool)
_OK_BY_CODE[[0, 10]] = True


class Result:
    """The outcome of picard.solve.

    t        (T,) the times of the states: t0 and the window ends, or save_at
    x        (N, T, n) member i's state at t[j] (a view of the library's own
             [time][member][component] buffer); NaN only past a member's
             failure, and .status says why
    x_final  (N, n) each member's last state: at t1, at its terminal event,
             or where it failed
    status   (N,) per member, a string: "ok", "nonfinite", "diverged", "not-converged",
             "tol-exceeded", "step-underflow", "max-steps", "event", ...
    status_code (N,) the same as the library's codes (picard_traj_status)
    failed   how many members are not ok (their status neither "ok" nor
             "event"), counted by the library: (~ok).sum() without a pass
             over the members
    t_fail   (N,) where a member stopped (its failing step, or terminal
             event); NaN for one that went on to t1
    err      (N,) with check=True or tol: each member's error against the
             reference at t (scaled by tol where given, else absolute), else None
    err_est  (N,) with tol: each member's estimated error scaled by tol (a
             companion solve on a finer grid), else None; None too with
             per-member spans or events
    scheme   the scheme that ran ("dp5", "trapezoid", ...; with tol, the
             chosen one)
    stats    dict: device, backend, solve_seconds, rhs_evals, the grid (m, K,
             h, window, windows, adaptive, iter_rtol, iter_atol), ...; with
             tol the choice: chosen_by, chosen_where, chosen_search,
             chosen_closest, predicted_error
    """

    def __init__(self, t, x, x_final, status_code, t_fail, err, err_est, scheme, failed,
                 stats):
        """stats: the dict, or a function that makes it on first use."""
        self.t = t
        self.x = x
        self.x_final = x_final
        self.status_code = status_code
        self._status = None
        self.t_fail = t_fail
        self.err = err
        self.err_est = err_est
        self.scheme = scheme
        self.failed = failed
        self._stats = stats

    @property
    def status(self):
        """(N,) each member's status by name, made on first use: a sweep
        that reads only .ok does not pay for N strings."""
        if self._status is None:
            self._status = _STATUS_NAMES.take(self.status_code, mode="clip")
        return self._status

    @property
    def stats(self):
        """The solve's statistics (see the class), a dict made on first use."""
        if callable(self._stats):
            self._stats = self._stats()
        return self._stats

    @property
    def ok(self):
        """(N,) bool: the members whose status is "ok" or "event"."""
        return _OK_BY_CODE.take(self.status_code, mode="clip")

    @property
    def success(self):
        """Whether every member is ok (solve_ivp's name)."""
        return bool(self.ok.all())

    def __repr__(self):
        names, counts = np.unique(self.status, return_counts=True)
        return "picard.Result(scheme=%r, %d members x %d times x %d components, %s, %s)" % (
            self.scheme, self.x.shape[0], self.x.shape[1], self.x.shape[2],
            ", ".join("%d %s" % (c, s) for s, c in zip(names, counts)),
            self.stats.get("device", "?"))
