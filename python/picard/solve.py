"""solve.py - picard.solve: an ensemble's start states, parameters and span
in, its states on a grid of times out, through picard_solver_create and
picard_solve (include/picard.h)."""
import atexit
import ctypes
import math
import threading

import numpy as np

from . import _ffi
from .arrays import as_float_array, as_rows, broadcast_rows, check_values
from .choose import choose
from .ensemble import ensemble
from .errors import check as check_code, refuse
from .model import as_model
from .run import Record, solve_into

_dp = _ffi.c_double_p
_SCHEME_NAMES = {v: k for k, v in _ffi.SCHEMES.items()}


def schemes():
    """The names of picard's schemes (picard_options.scheme)."""
    if _ffi.scheme_names:
        buf = ctypes.create_string_buffer(1024)
        names = _ffi.scheme_names(buf, len(buf)).decode()
        return [s.strip() for s in names.split(",") if s.strip()]
    return list(_ffi.SCHEMES)


def auto_scheme(model):
    """The scheme of scheme="auto": as picard-run's defaults pick for a
    model with events (dp8), a semi-linear one (imex-sdirk2) and a stiff one
    (rodas5p); else dp5, adaptive like solve_ivp's RK45 (picard-run's own
    default, the paper's trapezoid on a fixed grid, is scheme="trapezoid")."""
    if model.has_events:
        return "dp8"
    if model.semilinear:
        return "imex-sdirk2"
    if model.stiff:
        return "rodas5p"
    return "dp5"


# ---- solvers, kept for the next solve of the same shape -------------------
# picard_solver_create allocates (on the GPU: device memory) once per
# ensemble size; a sweep of solves of one shape reuses one solver. A solver
# is taken out of the cache while it solves, so two threads never share it.
_cache_lock = threading.Lock()
_cache = {}
_CACHE_MAX = 4


def _take_solver(model, opts, n):
    key = (hash(model), bytes(opts), n)
    with _cache_lock:
        free = _cache.get(key)
        if free:
            return key, free.pop()
    solver = _ffi.solver_p()
    check_code(_ffi.solver_create(ctypes.byref(solver), model._ptr, ctypes.byref(opts), n),
               "creating a solver for %d member%s of %s" % (n, "s"[:n != 1], model.name))
    return key, solver


def _give_back(key, solver):
    with _cache_lock:
        if sum(len(v) for v in _cache.values()) >= _CACHE_MAX:
            for k in list(_cache):
                while _cache[k]:
                    _ffi.solver_free(_cache[k].pop())
                del _cache[k]
        _cache.setdefault(key, []).append(solver)


@atexit.register
def clear_cache():
    """Free the solvers kept between solves (their host and device memory)."""
    with _cache_lock:
        for solvers in _cache.values():
            for s in solvers:
                _ffi.solver_free(s)
        _cache.clear()


# ---- arguments ---------------------------------------------------------------

def _span(t_span):
    """(t0, t1, None) for a pair, or the grid's (min t0, max t1) and the
    (N, 2) array of each member's own span."""
    if isinstance(t_span, np.ndarray) and t_span.ndim == 2 or \
            isinstance(t_span, (list, tuple)) and len(t_span) and \
            isinstance(t_span[0], (list, tuple, np.ndarray)):
        spans = as_float_array(t_span, "t_span")
        if spans.ndim != 2 or spans.shape[1] != 2 or spans.shape[0] == 0:
            refuse("t_span", "per-member spans are rows (t0, t1): shape (N, 2), not %s"
                   % (spans.shape,))
        check_values(spans, "t_span", "double")
        bad = np.flatnonzero(spans[:, 1] <= spans[:, 0])
        if bad.size:
            i = bad[0]
            refuse("t_span", "row %d: t1 = %g is not after t0 = %g" % (i, spans[i, 1],
                                                                       spans[i, 0]))
        return float(spans[:, 0].min()), float(spans[:, 1].max()), spans
    try:
        t0, t1 = (float(t) for t in t_span)
    except (TypeError, ValueError):
        refuse("t_span", "a pair (t0, t1) of numbers, or (N, 2) rows, not %r" % (t_span,))
    if not (math.isfinite(t0) and math.isfinite(t1)):
        refuse("t_span", "(%g, %g): both ends must be finite" % (t0, t1))
    if not t1 > t0:
        refuse("t_span", "(%g, %g): t1 must be after t0" % (t0, t1))
    return t0, t1, None


def _positive(value, argument):
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        refuse(argument, "a number, not %r" % (value,))
    if not (math.isfinite(value) and value > 0):
        refuse(argument, "%r: must be finite and > 0" % value)
    return value


def _choice(value, argument, table):
    if value not in table:
        refuse(argument, "%r: one of %s" % (value, ", ".join(table)))
    return table[value]


# picard_options' fields solve passes through, with their types
_OPTION_TYPES = {"m": int, "K": int, "K_max": int, "block": int, "traj_per_block": int,
                 "h": float, "window": float, "bound": float, "warm_start": bool,
                 "layout": str}
_LAYOUTS = {"auto": 0, "paper": 1, "warp": 2, "thread": 3}


def _set_options(opts, options):
    for name, value in options.items():
        kind = _OPTION_TYPES.get(name)
        if kind is None:
            raise TypeError("unexpected keyword argument %r (the scheme options: "
                            "%s)" % (name, ", ".join(_OPTION_TYPES)))
        if name == "layout":
            value = _choice(value, "layout", _LAYOUTS)
        elif kind is int:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                refuse(name, "an int >= 0, not %r" % (value,))
        elif kind is float:
            value = _positive(value, name)
        setattr(opts, name, value)


def _options(model, scheme, backend, precision, t0, t1, rtol, atol, options):
    """picard_options for one span (rtol and atol checked, or None: the
    scheme's own) and the scheme's name ("auto" resolved)."""
    scheme_name = auto_scheme(model) if scheme == "auto" else scheme
    opts = _ffi.options(scheme=_choice(scheme_name, "scheme", _ffi.SCHEMES),
                        precision=_choice(precision, "precision", _ffi.PRECISIONS),
                        backend=_choice(backend, "backend", _ffi.BACKENDS), t0=t0, t1=t1)
    _set_options(opts, options)
    if atol is not None:
        opts.iter_atol = atol
    if rtol is not None:
        opts.iter_rtol = rtol
    return opts, scheme_name


def _states_and_params(model, x0, params, precision, seed, values):
    """x0 (N, n) and params (N, p) or None, one row of either broadcast
    against the other's rows; values: their values checked here (else by
    the solve, see solve_into)."""
    p = None
    if params is not None:
        p, _ = as_rows(params, "params", model.nparams, "parameters", precision, values)
    if isinstance(x0, (int, np.integer)) and not isinstance(x0, bool):
        if x0 < 1:
            refuse("x0", "an ensemble size must be >= 1, not %d" % x0)
        x, _ = ensemble(model, int(x0), seed=1 if seed is None else seed)
    else:
        if seed is not None:
            refuse("seed", "draws an ensemble: give x0 as its size N (an int), or draw one "
                   "with picard.ensemble(model, N, seed=...)")
        x, _ = as_rows(x0, "x0", model.dim, "components", precision, values)
    n = max(x.shape[0], p.shape[0] if p is not None else 1)
    if p is not None and 1 < x.shape[0] != p.shape[0] > 1:
        refuse("params", "%d rows, but x0 has %d (one row of either is broadcast)"
               % (p.shape[0], x.shape[0]))
    x = broadcast_rows(x, n, "x0")
    if p is not None:
        p = broadcast_rows(p, n, "params")
    return x, p


# ---- the solve ------------------------------------------------------------------

def solve(model, x0, t_span, params=None, *, tol=None, rtol=None, atol=None, scheme="auto",
          backend="auto", precision="double", save_at=None, check=False, seed=None,
          progress=False, **options):
    """Integrate an ensemble of x' = f(t, x; p) from t_span[0] to t_span[1].

    model      a picard.Model or a registered model's name
    x0         (N, n) start states, (n,) one member, or an int N: N members
               spread 10% around the model's start (seed: the draw's seed, 1)
    t_span     (t0, t1), or (N, 2): each member's own span (the per-thread
               schemes; times of save_at outside a member's span are NaN
               for it; without save_at, t is (N, T), each member's own)
    params     (N, p) parameters per member, (p,) shared, or None: defaults
    rtol, atol without tol: the scheme's local tolerances
               (picard_options.iter_rtol, iter_atol): per step for the
               adaptive schemes, as solve_ivp; per window's iteration for
               the Picard schemes
    tol        an error bound E on each member's states, as picard-run
               --tol E: the fastest configuration (scheme, m, K, h or
               window, block) predicted to meet it on this ensemble is
               chosen (picard_choose: the tuning cache's entry, else a
               quick search's decision kept for the same call, else a quick
               search on the ensemble itself, its decision then kept), the
               ensemble solved with it and every member checked against the
               reference (err; GSL rk8pd, or the binary128 gauss16 judge
               below 1e-6): a member above E reads "tol-exceeded". rtol is
               then E's relative part (|x - x_ref| <= tol + rtol |x_ref|),
               atol the scheme's local absolute tolerance. With a named
               scheme, the settings in **options are kept as given (as
               picard-run's --m, --K, --h) and the others chosen. Raises
               picard.ToleranceNotReached (a picard.Error) when nothing
               came close. stats then says what was chosen and whence:
               chosen_by ("cache", "decision", "search"; "given" when the
               options fix the whole grid), chosen_where (the file),
               chosen_search (how the search was made), chosen_closest
               (nothing met E on every sampled member: the closest ran),
               predicted_error (E on the sample). A search takes seconds to
               minutes: its progress (each candidate (scheme, m), each point
               tried, then the choice and whence) goes to the logger
               "picard" as INFO records, seen with
               logging.basicConfig(level=logging.INFO); its warnings (a
               cache not read, a decision not kept) are picard.PicardWarning
    progress   True: print the tol= search's progress to sys.stderr as it
               goes, for scripts and notebooks that configure no logging
               (nothing without tol; the choice alone where nothing is
               searched)
    scheme     "auto" (see auto_scheme; with tol: any that suits the model)
               or one of picard.schemes()
    backend    "auto" (CUDA when a device is there), "cuda" or "cpu"
    precision  "double" or "float"
    save_at    times to keep states at (dense output); default: t0 and the
               end of each window
    check      compare each member with GSL's reference at t: err (always
               with tol)
    **options  the scheme's own settings, picard_options' fields: m, K,
               K_max, h, window, block, warm_start, bound, layout
    Returns a picard.Result. Library errors raise picard.Error; a member's
    failure is in Result.status."""
    if not isinstance(progress, (bool, np.bool_)):
        refuse("progress", "True or False, not %r" % (progress,))
    model = as_model(model)
    t0, t1, spans = _span(t_span)
    tol, rtol, atol = (_positive(v, a) for v, a in ((tol, "tol"), (rtol, "rtol"), (atol, "atol")))
    opts, scheme_name = _options(model, scheme, backend, precision, t0, t1,
                                 rtol if tol is None else None, atol, options)
    # tol's search takes x and p before any solve: checked here first
    x, p = _states_and_params(model, x0, params, precision, seed, values=tol is not None)
    n = x.shape[0]
    if spans is not None:
        if n == 1:  # one row of x0 and params for every span
            n = spans.shape[0]
            x = broadcast_rows(x, n, "x0")
            p = broadcast_rows(p, n, "params") if p is not None else None
        spans = broadcast_rows(spans, n, "t_span")

    scale = _ffi.tolerance(atol=tol or 0.0, rtol=(rtol or 0.0) if tol else 0.0)
    chosen = None
    if tol is not None:
        check_code(_ffi.tolerance_check(ctypes.byref(scale), opts.precision,
                                        x.ctypes.data_as(_dp), n),
                   "tol")
        # picard-run's own draw (--traj N): its tuning-cache entries serve it
        drawn_plain = isinstance(x0, (int, np.integer)) and seed in (None, 1) and \
            params is None
        request = _ffi.choose_request(
            x0=x.ctypes.data, params=p.ctypes.data if p is not None else None, ntraj=n,
            ensemble_id=b"default" if drawn_plain else None, spread=0.1,
            seed=1 if seed is None else seed, precision=opts.precision, backend=opts.backend,
            t0=t0, t1=t1, spans=spans is not None, tol=tol, rtol=rtol or 0.0,
            scheme_fixed=scheme != "auto", layout_fixed="layout" in options, fixed=opts)
        opts, chosen = choose(model, request, precision, bool(progress))
        scheme_name = _SCHEME_NAMES[opts.scheme]
        # an estimate besides the check, as picard-run's: none with events
        # or per-member spans (its companion solves on the grid's span)
        opts.estimate_error = spans is None and not model.has_events
        opts.error_scale = scale
        check = True  # every member against the reference: err is the checked error

    key, solver = _take_solver(model, opts, n)
    try:
        if spans is not None:
            check_code(_ffi.solver_set_spans(solver, n, _col(spans, 0), _col(spans, 1)),
                       "t_span")
        result = _run(model, solver, x, p, t0, t1, spans, save_at, check, scale, scheme_name,
                      precision)
        if chosen:
            result.stats.update(chosen)
        return result
    finally:
        if spans is not None:
            _ffi.solver_set_spans(solver, n, None, None)
        _give_back(key, solver)


def _col(spans, k):
    return np.ascontiguousarray(spans[:, k]).ctypes.data_as(_dp)


def _run(model, solver, x, p, t0, t1, spans, save_at, check, scale, scheme_name, precision):
    grid = _ffi.solver_grid(solver).contents
    record = Record(solver, grid, x.shape[0], x.shape[1], t0, t1, spans, save_at)
    result = solve_into(model, solver, record, x, p, scheme_name, precision)
    status = result.status_code
    if check:
        result.err = _check(model, solver, grid, x, p, spans, record.rec, status, scale)
    if scale.atol > 0:  # tol given: the checked error, else the estimate
        judged = result.err if result.err is not None else result.err_est
        # NaN (no reference, no estimate) is left as the status says
        status[(status == 0) & (judged > 1)] = _ffi.TRAJ_TOL_EXCEEDED
        result.failed = int(np.count_nonzero(~result.ok))
    return result


def _check(model, solver, grid, x, p, spans, rec, status, scale):
    """Each member's error against picard_reference, scaled under scale."""
    n = x.shape[0]
    err = np.empty(n)
    copts = _ffi.check_options(tol=scale, traj_error=err.ctypes.data_as(_dp), keep_going=True)
    if spans is not None:
        t0s, t1s = np.ascontiguousarray(spans[:, 0]), np.ascontiguousarray(spans[:, 1])
        copts.span_t0, copts.span_t1 = t0s.ctypes.data_as(_dp), t1s.ctypes.data_as(_dp)
    if model.has_events:
        copts.events = _ffi.solver_event_log(solver)
        copts.status = status.ctypes.data_as(_ffi.c_int_p)
        copts.fail_times = _ffi.solver_fail_times(solver)
    result = _ffi.check_result()
    check_code(_ffi.check_each(model._ptr, ctypes.byref(grid), n, x.ctypes.data_as(_dp),
                               p.ctypes.data_as(_dp) if p is not None else None,
                               ctypes.byref(rec), ctypes.byref(copts), ctypes.byref(result)),
               "checking %s against the reference" % model.name)
    return err
