"""Shapes in and out, broadcasting, the default times, no copies."""
import numpy as np
import pytest

import picard
from picard.arrays import as_float_array


def decay(t, x0, lam):
    return x0 * np.exp(-lam * t)


def test_ensemble_shapes():
    x0 = np.linspace(1, 2, 5).reshape(5, 1)
    lam = np.linspace(0.1, 0.5, 5).reshape(5, 1)
    r = picard.solve("decay", x0, (0, 2), lam, backend="cpu", rtol=1e-10, atol=1e-12)
    assert r.x.shape == (5, len(r.t), 1)
    assert r.t[0] == 0 and r.t[-1] == 2
    assert np.array_equal(r.x[:, 0], x0)  # the first row is x0 at t0
    assert np.allclose(r.x[:, -1], decay(2, x0, lam), rtol=1e-8)
    assert np.array_equal(r.x_final, r.x[:, -1])
    assert r.status.shape == (5,) and r.t_fail.shape == (5,)
    assert np.isnan(r.t_fail).all()
    assert r.err is None and r.err_est is None


def test_one_member_and_shared_params():
    r = picard.solve("decay", [3.0], (0, 1), [0.7], backend="cpu", save_at=[0.5, 1.0],
                     rtol=1e-10, atol=1e-12)
    assert r.x.shape == (1, 2, 1)
    assert np.allclose(r.x[0, :, 0], 3 * np.exp(-0.7 * np.array([0.5, 1.0])), rtol=1e-8)
    # one start state, several parameter rows: the state is broadcast
    lam = np.array([[0.1], [0.2], [0.3]])
    r = picard.solve("decay", [1.0], (0, 1), lam, backend="cpu", save_at=[1.0], rtol=1e-10)
    assert r.x.shape == (3, 1, 1)
    assert np.allclose(r.x[:, 0, 0], np.exp(-lam[:, 0]), rtol=1e-7)


def test_window_ends_of_a_fixed_grid():
    r = picard.solve("decay", [[1.0]], (0, 1.4), backend="cpu", scheme="trapezoid",
                     h=0.1, m=8)
    assert np.allclose(r.t, [0, 0.7, 1.4])
    assert r.stats["windows"] == 2 and r.stats["m"] == 8


def test_ints_and_fortran_order_cast():
    x0 = np.asfortranarray(np.array([[1, 0], [2, 1]], dtype=np.int32))
    r = picard.solve("oscillator", x0, (0, 1), backend="cpu", save_at=[1.0])
    assert r.x.shape == (2, 1, 2)


def test_no_copy_of_contiguous_float64():
    a = np.ones((4, 2))
    assert as_float_array(a, "x0") is a
    assert as_float_array(a[:, :1], "x0") is not a[:, :1]  # strided: copied


def test_ensemble_size_and_seed():
    r1 = picard.solve("lotka", 64, (0, 1), backend="cpu", seed=7, save_at=[1.0])
    r2 = picard.solve("lotka", 64, (0, 1), backend="cpu", seed=7, save_at=[1.0])
    r3 = picard.solve("lotka", 64, (0, 1), backend="cpu", seed=8, save_at=[1.0])
    assert r1.x.shape == (64, 1, 2)
    assert np.array_equal(r1.x, r2.x) and not np.array_equal(r1.x, r3.x)


def test_ensemble_helper():
    m = picard.Model("lotka")
    x0, params = picard.ensemble(m, 100, spread=0.2, param_spreads={"a1": 0.1}, seed=3)
    assert x0.shape == (100, 2) and params.shape == (100, m.nparams)
    a1 = m.param_names.index("a1")
    assert np.all(np.abs(params[:, a1] / m.param_defaults[a1] - 1) <= 0.1)
    others = np.delete(params, a1, axis=1)
    assert np.array_equal(others, np.broadcast_to(np.delete(m.param_defaults, a1),
                                                  others.shape))
    assert np.all(np.abs(x0 / m.x0 - 1) <= 0.2)
    x0b, none = picard.ensemble(m, 100, spread=0.2, seed=3)
    assert none is None


@pytest.mark.parametrize("n", [1, 3, 1000])
def test_sizes(n):
    r = picard.solve("decay", np.ones((n, 1)), (0, 1), backend="cpu", save_at=[1.0],
                     rtol=1e-10, atol=1e-12)
    assert r.x.shape == (n, 1, 1)
    assert np.allclose(r.x, np.exp(-0.5), rtol=1e-8)


def test_per_member_spans():
    spans = np.array([[0.0, 1.0], [-3.0, 4.0], [2.5, 2.75]])
    x0 = np.array([[1.0, 0.0], [1.0, 0.0], [0.5, 1.0]])
    r = picard.solve("oscillator", x0, spans, backend="cpu", rtol=1e-10, atol=1e-10,
                     check=True)
    assert r.t.shape == (3, 2) and np.array_equal(r.t, spans)
    dt = spans[:, 1] - spans[:, 0]
    c, s = np.cos(dt), np.sin(dt)
    want = np.column_stack([x0[:, 0] * c + x0[:, 1] * s, -x0[:, 0] * s + x0[:, 1] * c])
    assert np.abs(r.x_final - want).max() < 1e-8
    assert np.array_equal(r.x[:, -1], r.x_final) and (r.err < 1e-8).all()
    # absolute times: NaN for a member outside its span, never extrapolated
    r = picard.solve("oscillator", x0, spans, backend="cpu", save_at=[0.5, 3.0])
    assert np.isnan(r.x[0, 1]).all() and np.isnan(r.x[2, 0]).all()
    assert np.isfinite(r.x[1]).all()
    # one row of x0 for every span: the oscillator's closed form on each
    r = picard.solve("oscillator", x0[0], spans, backend="cpu", rtol=1e-10, atol=1e-10)
    want = np.column_stack([np.cos(dt), -np.sin(dt)])
    assert r.x_final.shape == (3, 2) and np.abs(r.x_final - want).max() < 1e-8
    with pytest.raises(picard.InvalidArgument, match="^t_span: 3 rows"):
        picard.solve("oscillator", x0[:2], spans, backend="cpu")
    # a window scheme takes no spans: the library says so
    with pytest.raises(picard.InvalidArgument):
        picard.solve("oscillator", x0, spans, backend="cpu", scheme="trapezoid")
    with pytest.raises(picard.InvalidArgument, match="^t_span: row 1"):
        picard.solve("oscillator", x0, [[0, 1], [2, 2], [0, 1]], backend="cpu")
