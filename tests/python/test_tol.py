"""solve(tol=E): picard-run --tol's choice (picard_choose), the solve with
it, and every member checked. Each test has its own cache directory."""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import picard
from conftest import ROOT
from picard import _ffi
from picard.choose import _not_reached


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PICARD_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_tol_on_lotka_chooses_and_meets_it(cache):
    r = picard.solve("lotka", 256, (0, 100), tol=1e-6, backend="cpu")
    assert r.stats["chosen_by"] == "search" and not r.stats["chosen_closest"]
    assert r.scheme in picard.schemes() and r.stats["predicted_error"] <= 1e-6
    assert os.path.exists(r.stats["chosen_where"])
    # every member checked against GSL's reference, scaled by tol
    assert r.err.shape == (256,) and np.isfinite(r.err).all()
    assert (r.err <= 1).all() and set(r.status) == {"ok"}
    again = picard.solve("lotka", 256, (0, 100), tol=1e-6, backend="cpu")
    assert again.stats["chosen_by"] == "decision" and again.scheme == r.scheme
    assert again.stats["chosen_where"] == r.stats["chosen_where"]


def test_tol_meets_the_closed_form(cache):
    x0 = np.linspace(0.5, 1.5, 16)[:, None]
    lam = np.linspace(0.2, 0.8, 16)[::-1, None]
    r = picard.solve("decay", x0, (0, 10), lam, tol=1e-6, backend="cpu")
    exact = x0 * np.exp(-lam * 10)
    assert np.abs(r.x_final - exact).max() <= 1e-6, r.scheme
    assert (r.err <= 1).all()


def test_tol_on_per_member_spans_meets_the_closed_form(cache):
    spans = np.array([[0.0, 5.0], [0.0, 10.0], [1.0, 8.0]])
    r = picard.solve("decay", np.ones((3, 1)), spans, [[0.5]], tol=1e-6, backend="cpu")
    exact = np.exp(-0.5 * (spans[:, 1] - spans[:, 0]))
    assert np.abs(r.x_final[:, 0] - exact).max() <= 1e-6, r.scheme
    assert r.err_est is None and (r.err <= 1).all()


def test_tol_damaged_decision_is_warned_of_and_searched_again(cache):
    first = picard.solve("decay", 8, (0, 10), tol=1e-6, backend="cpu")
    with open(first.stats["chosen_where"], "w") as f:
        f.write("not a decision\n")
    with pytest.warns(picard.PicardWarning, match="ignoring the quick search decision.*not a "
                      "decision file"):
        again = picard.solve("decay", 8, (0, 10), tol=1e-6, backend="cpu")
    assert again.stats["chosen_by"] == "search" and again.scheme == first.scheme


def test_tol_keeps_the_options_given(cache):
    r = picard.solve("oscillator", 16, (0, 10), tol=1e-4, backend="cpu", scheme="trapezoid",
                     m=4)
    assert r.scheme == "trapezoid" and r.stats["m"] == 4 and r.stats["K"] >= 1
    assert r.stats["chosen_by"] == "search" and (r.err <= 1).all()


def test_tol_below_float_is_refused_naming_tol():
    with pytest.raises(picard.Error, match="^tol"):
        picard.solve("lotka", 64, (0, 100), tol=1e-15, precision="float", backend="cpu")


def test_tol_not_reached_says_how_close():
    report = _ffi.choose_report(names=b"dp5, lobatto")
    report.result.best_error = 3e-9
    report.result.reference_error = 1e-14
    with pytest.raises(picard.ToleranceNotReached, match=r"^tol=1e-10: .*dp5, lobatto.*3e-09"):
        _not_reached(report, 1e-10, "double")
    report.result.best_error = float("inf")
    with pytest.raises(picard.Error, match="every configuration tried failed"):
        _not_reached(report, 1e-10, "double")


# picard-run's parameters line, as its three kinds of grid print it
_PAIR = re.compile(r"^parameters +(\w+) fixed step h=(\S+), (\d+) per output interval")
_ADAPTIVE = re.compile(r"^parameters +(\w+) adaptive, local tolerance (\S+), output every (\S+)")
_GRID = re.compile(r"^parameters +(?:(\S+) )?m=(\d+) (?:K=(\d+) h=(\S+)|window=(\S+))")


def _same_choice(line, r):
    """Whether picard-run's parameters line names r's scheme and grid."""
    s = r.stats
    for pattern, check in (
            (_PAIR, lambda g: (g[0], int(g[2])) == (r.scheme, s["K"]) and
             np.isclose(float(g[1]), s["h"] / s["K"], rtol=1e-5)),
            (_ADAPTIVE, lambda g: g[0] == r.scheme and s["adaptive"]),
            (_GRID, lambda g: (g[0] or "trapezoid") == r.scheme and int(g[1]) == s["m"] and
             (g[4] is not None or int(g[2]) == s["K"]))):
        found = pattern.match(line)
        if found:
            return check(found.groups())
    raise AssertionError("parameters line not understood: " + line)


def test_tol_choice_is_picard_runs(cache):
    run = os.path.join(ROOT, "bin", "picard-run")
    if not os.access(run, os.X_OK):
        pytest.skip("bin/picard-run not built")
    out = subprocess.run([run, "lotka", "--traj", "256", "--tol", "1e-6", "--backend", "cpu"],
                         capture_output=True, text=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    line = next(l for l in out.stdout.splitlines() if l.startswith("parameters"))
    kept = re.search(r"kept in (\S+?\.txt)", line).group(1)
    # the same ensemble (picard-run's own draw) takes picard-run's decision
    r = picard.solve("lotka", 256, (0, 100), tol=1e-6, backend="cpu")
    assert r.stats["chosen_by"] == "decision" and r.stats["chosen_where"] == kept
    assert _same_choice(line, r), (line, r.scheme, r.stats)
    # and its own search, on the costs picard-run timed, chooses the same
    shutil.rmtree(os.path.join(str(cache), "decisions"))
    r = picard.solve("lotka", 256, (0, 100), tol=1e-6, backend="cpu")
    assert r.stats["chosen_by"] == "search"
    assert _same_choice(line, r), (line, r.scheme, r.stats)
