"""result.py - what picard.solve returns."""
import numpy as np


class Result:
    """The outcome of picard.solve.

    t        (T,) the times of the states: t0 and the window ends, or save_at
    x        (N, T, n) member i's state at t[j] (a view of the library's own
             [time][member][component] buffer); NaN only past a member's
             failure, and .status says why
    x_final  (N, n) each member's last state: at t1, at its terminal event,
             or where it failed
    status   (N,) per member: "ok", "nonfinite", "diverged", "not-converged",
             "tol-exceeded", "step-underflow", "max-steps", "event", ...
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

    def __init__(self, t, x, x_final, status, t_fail, err, err_est, scheme, stats):
        self.t = t
        self.x = x
        self.x_final = x_final
        self.status = status
        self.t_fail = t_fail
        self.err = err
        self.err_est = err_est
        self.scheme = scheme
        self.stats = stats

    @property
    def ok(self):
        """(N,) bool: the members whose status is "ok" or "event"."""
        return np.isin(self.status, ("ok", "event"))

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
