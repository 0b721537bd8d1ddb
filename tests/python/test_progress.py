"""solve(tol=E)'s search as it goes: INFO records of the "picard" logger with
the facts picard-run --tol prints, progress=True on stderr, and its warnings
as picard.PicardWarning. Each test has its own cache directory, so that the
search runs (decay searches in well under a second on the CPU)."""
import logging
import re
import signal
import warnings

import numpy as np
import pytest

import picard

# 16 members of x' = -lam x, sampled whole by the search (it samples 32)
X0 = np.linspace(0.5, 1.5, 16)[:, None]
LAM = np.linspace(0.2, 0.8, 16)[::-1, None]
EXACT = X0 * np.exp(-LAM * 10)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PICARD_CACHE_DIR", str(tmp_path))
    return tmp_path


def _search(**kwargs):
    return picard.solve("decay", X0, (0, 10), LAM, tol=1e-6, backend="cpu", **kwargs)


def _events(records, event):
    return [r for r in records if r.picard["event"] == event]


def test_search_logs_its_candidates_points_and_choice(cache, caplog):
    caplog.set_level(logging.INFO, logger="picard")
    r = _search()
    # the answer against the closed form: within tol, and within the E the
    # search measured on its sample (every member here) against GSL's
    # reference, give or take that reference's own error (it runs at 1e-12)
    worst = np.abs(r.x_final - EXACT).max()
    assert worst <= 1e-6 and worst <= r.stats["predicted_error"] + 1e-10, r.scheme
    records = [rec for rec in caplog.records if rec.name == "picard"]
    assert records and all(rec.levelno == logging.INFO for rec in records)

    search, = _events(records, "search")
    found = re.match(r"quick search on decay for tol=1e-06: (\d+) candidates", search.message)
    assert found and int(found.group(1)) == search.picard["candidates"] >= 1

    # the chosen point was measured, its E as the result's predicted_error
    chosen_points = [rec for rec in _events(records, "point")
                     if rec.picard["scheme"] == r.scheme and
                     rec.picard["error"] == r.stats["predicted_error"]]
    assert chosen_points, [rec.message for rec in _events(records, "point")]
    text = re.search(r"\] (\S+) m=(\d+) K=(\d+) h=\S+ E=(\S+)", chosen_points[0].message)
    assert text.group(1) == r.scheme and int(text.group(2)) == r.stats["m"]
    assert np.isclose(float(text.group(4)), r.stats["predicted_error"], rtol=5e-3)

    # each candidate (scheme, m) searched or skipped once, counted in order
    done = [rec for rec in records if rec.picard["event"] in ("candidate", "skipped")]
    counts = [int(re.match(r"\[(\d+)/(\d+)\]", rec.message).group(1)) for rec in done]
    assert counts == list(range(1, len(done) + 1))
    assert len(done) <= search.picard["candidates"]

    last = records[-1]
    assert last.picard["event"] == "chosen" and last.picard["source"] == "search"
    assert last.message.startswith("tol=1e-06: %s m=%d " % (r.scheme, r.stats["m"]))
    assert r.stats["chosen_where"] in last.message


def test_reused_decision_logs_only_the_choice(cache, caplog):
    first = _search()
    caplog.set_level(logging.INFO, logger="picard")
    again = _search()
    records = [rec for rec in caplog.records if rec.name == "picard"]
    assert [rec.picard["event"] for rec in records] == ["chosen"]
    assert "decision reused from " + first.stats["chosen_where"] in records[0].message
    assert again.scheme == first.scheme


def test_progress_true_prints_the_search_on_stderr(cache, capsys):
    handlers = list(logging.getLogger("picard").handlers)
    r = _search(progress=True)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and lines and all(line.startswith("picard: ") for line in lines)
    assert lines[0].startswith("picard: quick search on decay for tol=1e-06: ")
    assert any(re.search(r"\] %s m=\d+ K=\d+ h=\S+ E=" % r.scheme, line) for line in lines)
    assert lines[-1].startswith("picard: tol=1e-06: " + r.scheme)
    # the handler was the call's own
    assert logging.getLogger("picard").handlers == handlers
    _search()
    assert capsys.readouterr().err == ""
    # nothing searched: the choice alone
    _search(progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "decision reused" in lines[0], lines


def test_package_adds_no_handler_but_a_null_one():
    assert all(isinstance(h, logging.NullHandler) for h in logging.getLogger("picard").handlers)


def test_search_is_silent_without_progress_or_logging(cache, capsys):
    _search()
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_progress_not_a_bool_is_refused_naming_it(value):
    with pytest.raises(picard.InvalidArgument, match="^progress: True or False"):
        picard.solve("decay", 4, (0, 1), progress=value)


def test_solver_refuses_progress():
    with pytest.raises(picard.InvalidArgument, match="^progress: not taken by picard.Solver"):
        picard.Solver("decay", 4, (0, 1), progress=True)


def _damage_decision(r):
    with open(r.stats["chosen_where"], "w") as f:
        f.write("not a decision\n")


def test_warning_is_a_picard_warning_at_the_callers_line(cache):
    _damage_decision(_search())
    with pytest.warns(picard.PicardWarning, match="ignoring the quick search decision") as got:
        again = _search()
    assert again.stats["chosen_by"] == "search"
    assert issubclass(got[0].category, RuntimeWarning) and got[0].filename == __file__


def test_warning_can_be_ignored_or_raised(cache):
    _damage_decision(_search())
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", picard.PicardWarning)
        _search()
    assert not [w for w in seen if issubclass(w.category, picard.PicardWarning)]
    # raised inside picard_choose's callback, it reaches the caller
    _damage_decision(_search())
    with warnings.catch_warnings():
        warnings.simplefilter("error", picard.PicardWarning)
        with pytest.raises(picard.PicardWarning, match="not a decision file"):
            _search()


class _Refusing(logging.Filter):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def filter(self, record):
        self.calls += 1
        raise LookupError("a filter's own failure")


def test_exception_in_a_log_callback_reaches_the_caller(cache, caplog):
    caplog.set_level(logging.INFO, logger="picard")
    refusing = _Refusing()
    logger = logging.getLogger("picard")
    logger.addFilter(refusing)
    try:
        with pytest.raises(LookupError, match="a filter's own failure"):
            _search()
    finally:
        logger.removeFilter(refusing)
    assert refusing.calls == 1  # the callbacks fell quiet after it


def test_ctrl_c_during_the_search_is_raised_when_it_ends(cache, caplog):
    """Ctrl-C while picard_choose runs in C: Python's own handler would
    raise it at a callback's first line, where ctypes drops it. Raised
    here from the first point's log record, inside a callback, so that it
    lands in the search whatever the machine's speed."""
    sent = []
    # as in a terminal: a shell starts a background job (CI's `&`) with
    # SIGINT ignored, and Python then installs no handler of its own
    before = signal.signal(signal.SIGINT, signal.default_int_handler)

    def interrupt_soon(record):
        if record.picard["event"] == "point" and not sent:
            sent.append(True)
            signal.raise_signal(signal.SIGINT)
        return True

    caplog.set_level(logging.INFO, logger="picard")
    logger = logging.getLogger("picard")
    logger.addFilter(interrupt_soon)
    try:
        with pytest.raises(KeyboardInterrupt):
            _search()
    finally:
        logger.removeFilter(interrupt_soon)
        restored = signal.signal(signal.SIGINT, before)
    assert restored is signal.default_int_handler
    assert [rec for rec in caplog.records if rec.picard["event"] == "candidate"]
