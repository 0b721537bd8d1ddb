"""progress.py - solve(tol=E)'s choice as it is made: picard_choose's
callbacks (include/picard_choose.h) as INFO records of the "picard" logger,
with the facts picard-run --tol prints (src/cli/tuning.c), and its warnings
as PicardWarning. Each record's .picard holds those facts as a dict.

ctypes prints and drops an exception raised inside a callback, so each
callback here keeps the first one (a raising log filter, a warning turned
into an error) and choose raises it once picard_choose returns; Ctrl-C is
held back until then too (deferred_interrupt)."""
import contextlib
import logging
import signal
import sys
import threading
import time
import warnings

from . import _ffi
from .errors import PicardWarning

logger = logging.getLogger("picard")
logger.addHandler(logging.NullHandler())  # a library's logger: the user configures it

_SCHEME_NAMES = {v: k for k, v in _ffi.SCHEMES.items()}


def _point_facts(p):
    """A picard_tune_point's fields as a dict: copied, the memory is the
    library's."""
    return {"scheme": _SCHEME_NAMES.get(p.scheme, str(p.scheme)), "m": p.m, "K": p.K,
            "h": p.h, "iter_rtol": p.iter_rtol, "windows": p.windows, "error": p.error,
            "scaled_error": p.scaled_error, "seconds": p.seconds, "meets": bool(p.meets)}


@contextlib.contextmanager
def deferred_interrupt():
    """Ctrl-C during the block raised as KeyboardInterrupt once it ends.
    Python's own handler raises it at the first line of Python that runs,
    a callback's, where ctypes drops it, and picard_choose cannot be
    stopped half way. A handler the user set is left alone, as is a
    thread other than the main one (signals go to the main thread)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    caught = []
    signal.signal(signal.SIGINT, lambda _signum, _frame: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt


class SearchProgress:
    """The callbacks of one picard_choose call for model_name at tol. echo:
    each line also goes to sys.stderr (solve's progress=True) through a
    handler of this call only, not the shared logger's, so that no other
    call or thread prints through it and nothing is left behind."""

    def __init__(self, model_name, tol, echo):
        self.model_name = model_name
        self.tol = tol
        self.candidates = 0   # (scheme, m) candidates of the quick search
        self.done = 0         # of them searched or skipped
        self.points = 0       # points whose E was measured
        self.start = time.monotonic()
        self.error = None     # the first exception a callback raised
        self.echo = None
        if echo:
            self.echo = logging.StreamHandler(sys.stderr)
            self.echo.setFormatter(logging.Formatter("picard: %(message)s"))
        self._callbacks = None

    def attach(self, request):
        """Set the callbacks on request (a _ffi.choose_request); kept alive
        here and by the request for the call."""
        self._callbacks = (
            _ffi.choose_search_fn(self._guarded(self._on_search)),
            _ffi.choose_point_fn(self._guarded(self._on_point)),
            _ffi.choose_point_fn(self._guarded(self._on_candidate)),
            _ffi.choose_skipped_fn(self._guarded(self._on_skipped)),
            _ffi.choose_warning_fn(self._guarded(self._on_warning)),
        )
        (request.on_search, request.on_point, request.on_candidate, request.on_skipped,
         request.on_warning) = self._callbacks

    def raise_kept(self):
        """Raise the exception a callback kept, if any."""
        error, self.error = self.error, None
        if error is not None:
            raise error

    def chosen(self, report):
        """The line of what was chosen and whence (picard-run's parameters
        line); none where the request fixed everything."""
        r, point = report, _point_facts(report.point)
        where = r.where.decode(errors="replace")
        search = r.search.decode(errors="replace")
        closest = "the closest point of " if r.closest else ""
        source = _ffi.CHOICE_SOURCES.get(r.source, "?")
        if source == "given":
            return
        if source == "cache":
            whence = "the tuning cache (%s)" % where
        elif source == "decision":
            whence = "%sa quick search's decision reused from %s (stored %s; that search: %s)" \
                % (closest, where, r.date.decode(errors="replace"), search)
        else:
            whence = "%sa quick search on this ensemble (%s; %s)" \
                % (closest, search, "kept in " + where if where else "not kept")
        text = "tol=%g: %s m=%d K=%d h=%.4g, E=%.3g on the sample, from %s" % (
            self.tol, point["scheme"], point["m"], point["K"], point["h"], point["error"],
            whence)
        if r.closest:
            text += ("; no configuration meets tol on every sampled member: the closest "
                     "(%d meet it, %.3g x tol at worst) runs and each member is judged"
                     % (r.point.sample_meeting, r.point.scaled_error))
        self._say(text, dict(point, event="chosen", source=source, where=where,
                             closest=bool(r.closest)))

    # ---- the callbacks ----------------------------------------------------------

    def _guarded(self, callback):
        """callback, its exception kept for raise_kept; quiet after one."""
        def call(*args):
            if self.error is not None:
                return
            try:
                callback(*args)
            except BaseException as e:  # raised again by raise_kept
                self.error = e
        return call

    def _on_search(self, candidates, _ctx):
        self.candidates = candidates
        self._say("quick search on %s for tol=%g: %d candidates (scheme, m)"
                  % (self.model_name, self.tol, candidates),
                  {"event": "search", "candidates": candidates})

    def _on_point(self, p, _ctx):
        """Each point once when its E is measured (seconds 0), and once more
        with its predicted time when it is costed on the ensemble."""
        facts = _point_facts(p.contents)
        measured = facts["seconds"] == 0
        self.points += measured
        text = "%s%s m=%d K=%d h=%.3g " % (self._count(self.done + 1), facts["scheme"],
                                           facts["m"], facts["K"], facts["h"])
        if measured:
            text += "E=%.3g%s" % (facts["error"], " meets" if facts["meets"] else "")
        else:
            text += "predicted: %.3g ms" % (facts["seconds"] * 1e3)
        self._say(text + " (%d point%s, %.1f s)" % (self.points, "s"[:self.points != 1],
                                                     self._elapsed()),
                  dict(facts, event="point" if measured else "costed"))

    def _on_candidate(self, p, _ctx):
        """Each (scheme, m) candidate when it is done: its fastest point."""
        facts = _point_facts(p.contents)
        self.done += 1
        text = "%s%s m=%d: " % (self._count(self.done), facts["scheme"], facts["m"])
        if facts["meets"]:
            text += "E = %.3g at K=%d h=%.4g (%d window%s), %.4g ms predicted" % (
                facts["error"], facts["K"], facts["h"], facts["windows"],
                "s"[:facts["windows"] != 1], facts["seconds"] * 1e3)
        elif facts["error"] < float("inf"):
            text += ("none meets tol or beats the fastest so far (the smallest E %.3g)"
                     % facts["error"])
        else:
            text += "none meets tol (every point tried failed)"
        self._say(text + " [%.1f s]" % self._elapsed(), dict(facts, event="candidate"))

    def _on_skipped(self, scheme, m, why, _ctx):
        self.done += 1
        scheme, why = scheme.decode(errors="replace"), why.decode(errors="replace")
        self._say("%s%s m=%d: not searched (%s) [%.1f s]"
                  % (self._count(self.done), scheme, m, why, self._elapsed()),
                  {"event": "skipped", "scheme": scheme, "m": m, "why": why})

    def _on_warning(self, text, _ctx):
        # stacklevel: this, _guarded's call, choose, solve, the user's line
        warnings.warn("picard: " + text.decode(errors="replace"), PicardWarning, stacklevel=5)

    # ---- lines --------------------------------------------------------------------

    def _count(self, k):
        """"[k/candidates] " once the candidates are counted."""
        if self.candidates <= 0:
            return ""
        return "[%d/%d] " % (min(k, self.candidates), self.candidates)

    def _elapsed(self):
        return time.monotonic() - self.start

    def _say(self, text, facts):
        logger.info("%s", text, extra={"picard": facts})
        if self.echo:
            self.echo.handle(logger.makeRecord(logger.name, logging.INFO, __file__, 0, "%s",
                                               (text,), None, extra={"picard": facts}))
