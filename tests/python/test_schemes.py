"""Every scheme through Python on the CPU backend: against a closed form,
and bit for bit against the C library's own answer (picard-run)."""
import os
import subprocess

import numpy as np
import pytest

import picard
from conftest import ROOT

# The semi-linear schemes solve heat1d (x' = A x + g); the others the
# harmonic oscillator, x(t) = a rotation of x0 by omega t.
SEMILINEAR = ("imex-euler", "imex-sdirk2")
# How close each comes to the closed form at its settings below (their
# orders: trapezoid 2 at h 0.01, iterated to convergence; imex-euler 1,
# imex-sdirk2 2 at h 1e-3; heat1d's semi-discretisation itself is O(dx^2)
# off its u*, 1.4e-4 here); the others at local tolerances of 1e-10,
# ros23 (order 2, for loose tolerances) the least accurate of them.
CLOSE = {"trapezoid": 1e-3, "imex-euler": 2e-3, "imex-sdirk2": 2e-3, "ros23": 1e-5}
SETTINGS = {"trapezoid": dict(h=0.01, K_max=50, rtol=1e-12, atol=1e-12),
            "imex-euler": dict(h=1e-3), "imex-sdirk2": dict(h=1e-3)}


def oscillator_exact(t, x0, omega):
    c, s = np.cos(omega * t), np.sin(omega * t)
    return np.stack([x0[:, 0] * c + x0[:, 1] / omega * s,
                     -x0[:, 0] * omega * s + x0[:, 1] * c], axis=-1)


def heat1d_exact(t, a):
    x = (np.arange(47) + 1) / 48
    return a * (x * np.sin(t) + (1 - np.exp(-t)) * np.sin(np.pi * x))


def test_schemes_listed():
    names = picard.schemes()
    assert "trapezoid" in names and "dp5" in names and "rodas5p" in names
    assert set(names) == set(picard._ffi.SCHEMES), "the bindings' scheme numbers are stale"


@pytest.mark.parametrize("scheme", picard.schemes())
def test_scheme_meets_closed_form(scheme):
    opts = dict(SETTINGS.get(scheme, {}), scheme=scheme, backend="cpu")
    if scheme not in SETTINGS:
        opts.update(rtol=1e-10, atol=1e-10)
    if scheme in SEMILINEAR:
        a = np.array([0.5, 1.0])
        params = np.column_stack([np.ones(2), a, 2 * np.ones(2)])
        r = picard.solve("heat1d", np.zeros((2, 47)), (0, 0.5), params, save_at=[0.25, 0.5],
                         **opts)
        want = np.stack([[heat1d_exact(t, ai) for t in (0.25, 0.5)] for ai in a])
        scale = np.abs(want).max()
    else:
        x0 = np.array([[1.0, 0.0], [0.5, -1.0], [-2.0, 0.25]])
        omega = np.array([[1.0], [2.0], [0.5]])
        r = picard.solve("oscillator", x0, (0, 3), omega, save_at=[1.0, 2.0, 3.0], **opts)
        want = np.stack([oscillator_exact(t, x0, omega[:, 0]) for t in (1.0, 2.0, 3.0)], 1)
        scale = 1.0
    assert r.scheme == scheme
    assert r.stats["backend"] == "cpu"
    assert list(r.status) == ["ok"] * len(r.status)
    error = np.abs(r.x - want).max() / scale
    print("%s: error %.3g" % (scheme, error))
    assert error < CLOSE.get(scheme, 1e-8), "%s: error %g" % (scheme, error)


def picard_run(*args):
    """bin/picard-run's final states, one row per member."""
    run = subprocess.run([os.path.join(ROOT, "bin", "picard-run"), *args],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.parametrize("scheme", picard.schemes())
def test_scheme_matches_picard_run(scheme, tmp_path):
    """The same ensemble through Python and through bin/picard-run (the C
    library's own answer): the same states, bit for bit."""
    if not os.path.exists(os.path.join(ROOT, "bin", "picard-run")):
        pytest.skip("no bin/picard-run (make)")
    if scheme in SEMILINEAR:
        model, x0, span, t = "heat1d", np.full((2, 47), 0.01), (0, 0.5), [0.25, 0.5]
        x0[1] *= 2
        extra = ["--h", "1e-3"]
        opts = dict(h=1e-3)
    else:
        model, x0, span, t = "oscillator", np.array([[1.0, 0.0], [0.5, -1.0]]), (0, 3), \
            [1.0, 2.0, 3.0]
        if scheme == "trapezoid":
            extra, opts = ["--h", "0.01"], dict(h=0.01)
        else:
            extra, opts = ["--iter-rtol", "1e-9", "--iter-atol", "1e-9"], \
                dict(rtol=1e-9, atol=1e-9)
    init = tmp_path / "init.csv"
    np.savetxt(init, x0, fmt="%.17g", delimiter=",")
    out = tmp_path / "out.npy"
    picard_run(model, "--init", str(init), "--scheme", scheme, "--backend", "cpu",
               "--precision", "double", "--t0", str(span[0]), "--t1", str(span[1]),
               "--save-at", ",".join(map(str, t)), "--out", str(out), *extra)
    want = np.load(out).transpose(1, 0, 2)
    r = picard.solve(model, x0, span, scheme=scheme, backend="cpu", save_at=t, **opts)
    assert np.array_equal(r.x, want), "%s: Python and picard-run differ by %g" % (
        scheme, np.abs(r.x - want).max())


def test_float_precision_close_to_double():
    x0 = np.array([[1.0, 0.0]])
    d = picard.solve("oscillator", x0, (0, 2), backend="cpu", rtol=1e-6, save_at=[2.0])
    f = picard.solve("oscillator", x0, (0, 2), backend="cpu", rtol=1e-6, save_at=[2.0],
                     precision="float")
    assert np.abs(d.x - f.x).max() < 1e-4
    assert not np.array_equal(d.x, f.x)  # float arithmetic did run
