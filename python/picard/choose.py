"""choose.py - solve(tol=E)'s configuration: picard_choose
(include/picard_choose.h), the choice picard-run --tol makes, from the
tuning cache, a kept decision or a quick search on the ensemble itself."""
import ctypes
import math

from . import _ffi
from .errors import ToleranceNotReached, raise_for
from .progress import SearchProgress, deferred_interrupt


def _not_reached(report, tol, precision):
    result = report.result
    if not math.isfinite(result.best_error):
        why = "every configuration tried failed (non-finite or diverged)"
    else:
        why = "the best E reached was %.3g" % result.best_error
        if result.refused_by:
            why += " (one refused because %s)" % result.refused_by.decode(errors="replace")
        if result.reference_error >= tol:
            why += "; the reference's own error, %.2g, is not below it" % result.reference_error
        elif precision == "float":
            why += "; float's rounding may be the limit: precision=\"double\""
    schemes = report.names.decode(errors="replace")
    raise ToleranceNotReached("tol=%g: no configuration meets it on this ensemble (searched "
                              "%s): %s" % (tol, schemes or "none", why), _ffi.ENOTFOUND)


def choose(model, request, precision, progress=False):
    """(options, info): picard_choose's options for request (a filled
    _ffi.choose_request) and where they came from, as stats entries. The
    search's progress goes to the "picard" logger (progress.py), and to
    sys.stderr too where progress."""
    search = SearchProgress(model.name, request.tol, echo=progress)
    search.attach(request)
    chosen = _ffi.options()
    report = _ffi.choose_report()
    with deferred_interrupt():
        code = _ffi.choose(model._ptr, ctypes.byref(request), ctypes.byref(chosen),
                           ctypes.byref(report))
    search.raise_kept()
    if code == _ffi.ENOTFOUND:
        _not_reached(report, request.tol, precision)
    if code < 0:
        raise_for(code, "tol=%g: choosing a configuration for %s" % (request.tol, model.name))
    search.chosen(report)
    point = report.point
    info = {
        "chosen_by": _ffi.CHOICE_SOURCES.get(report.source, "?"),
        "chosen_closest": bool(report.closest),
        "chosen_where": report.where.decode(errors="replace"),
        "chosen_search": report.search.decode(errors="replace"),
        "predicted_error": point.error if report.source else math.nan,
    }
    return chosen, info
