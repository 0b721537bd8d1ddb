"""picard.Solver: made once, solved many times; the same answers as
picard.solve bit for bit, closed forms met, bad x0 and params refused
naming them, nothing after close."""
import threading

import numpy as np
import pytest

import picard

TIMES = np.linspace(0, 10, 11)


def lotka_ensemble(n):
    m = picard.Model("lotka")
    x0, _ = picard.ensemble(m, n, spread=0.1, seed=3)
    return m, x0, np.tile(m.param_defaults, (n, 1))


def assert_same(r, q):
    for field in ("t", "x", "x_final", "status_code", "t_fail"):
        assert np.array_equal(getattr(r, field), getattr(q, field), equal_nan=True), field
    assert r.scheme == q.scheme and r.err is None and q.err is None
    assert list(r.status) == list(q.status)
    assert {k: v for k, v in r.stats.items() if k != "solve_seconds"} == \
        {k: v for k, v in q.stats.items() if k != "solve_seconds"}


@pytest.mark.parametrize("save_at", [TIMES, None])
def test_equals_solve_bit_for_bit_for_two_params(save_at):
    m, x0, params = lotka_ensemble(16)
    with picard.Solver(m, 16, (0, 10), rtol=1e-7, atol=1e-7, backend="cpu",
                       save_at=save_at) as s:
        for b2 in (0.01, 0.014):
            params[:, 4] = b2
            r = s.solve(x0, params)
            q = picard.solve(m, x0, (0, 10), params, rtol=1e-7, atol=1e-7, backend="cpu",
                             save_at=save_at)
            assert_same(r, q)
        first = s.solve(x0, params)
        params[:, 4] = 0.01
        assert not np.array_equal(s.solve(x0, params).x_final, first.x_final)


def test_reuse_outputs_same_answers_in_the_same_arrays():
    """reuse_outputs=True: the same answers as fresh arrays, each solve
    written over the last one's (as documented: copy what you keep)."""
    m, x0, params = lotka_ensemble(16)
    kw = dict(rtol=1e-7, atol=1e-7, backend="cpu", save_at=TIMES)
    with picard.Solver(m, 16, (0, 10), **kw) as fresh, \
            picard.Solver(m, 16, (0, 10), reuse_outputs=True, **kw) as reused:
        params[:, 4] = 0.01
        a = reused.solve(x0, params)
        assert_same(a, fresh.solve(x0, params))
        kept = a.x.copy()
        params[:, 4] = 0.014
        b = reused.solve(x0, params)
        assert_same(b, fresh.solve(x0, params))
        assert np.shares_memory(a.x, b.x) and np.array_equal(a.x, b.x)
        assert not np.array_equal(kept, b.x)


def test_decay_closed_form():
    lam = np.array([[0.5], [1.0], [2.0], [3.0]])
    x0 = np.array([1.0, 2.0, -1.0, 0.5]).reshape(4, 1)
    with picard.Solver("decay", 4, (0, 2), rtol=1e-10, atol=1e-12, backend="cpu",
                       save_at=np.linspace(0, 2, 9)) as s:
        r = s.solve(x0, lam)
    exact = x0 * np.exp(-lam * r.t)
    assert r.success and r.x.shape == (4, 9, 1)
    assert np.max(np.abs(r.x[:, :, 0] - exact)) < 1e-8
    assert np.max(np.abs(r.x_final[:, 0] - exact[:, -1])) < 1e-8


def test_one_row_broadcast_and_default_params():
    m = picard.Model("decay")
    with picard.Solver(m, 3, (0, 1), backend="cpu", save_at=[1.0]) as s:
        r = s.solve([2.0])
        q = picard.solve(m, np.full((3, 1), 2.0), (0, 1), backend="cpu", save_at=[1.0])
    assert_same(r, q)
    lam = m.param_defaults[0]
    assert np.allclose(r.x_final[:, 0], 2.0 * np.exp(-lam), rtol=1e-5)


@pytest.mark.parametrize("x0, params, named", [
    (np.ones((3, 1)), None, "x0"),            # 3 rows for 4 members
    (np.ones((4, 2)), None, "x0"),            # decay has one component
    (np.ones((4, 1, 1)), None, "x0"),
    ([[1.0], [np.nan], [1.0], [1.0]], None, "x0"),
    (np.ones((4, 1)), np.ones((2, 1)), "params"),
    (np.ones((4, 1)), np.ones((4, 3)), "params"),
    (np.ones((4, 1)), [[1.0], [1.0], [np.inf], [1.0]], "params"),
    (np.ones((4, 1)), [["a"], ["b"], ["c"], ["d"]], "params"),
])
def test_bad_x0_and_params_refused_naming_them(x0, params, named):
    with picard.Solver("decay", 4, (0, 1), backend="cpu") as s:
        with pytest.raises(picard.InvalidArgument, match="^" + named + ":"):
            s.solve(x0, params)
        assert s.solve(np.ones((4, 1))).success  # still usable after a refusal


def test_values_past_float_refused_naming_them():
    """The library checks the values (one pass, in C); the refusal still
    names the argument and the entry, as picard.solve's own check does."""
    with picard.Solver("decay", 2, (0, 1), backend="cpu", precision="float") as s:
        with pytest.raises(picard.InvalidArgument, match=r"^x0: 1e\+39 at index \(1, 0\) "
                           "overflows float"):
            s.solve([[1.0], [1e39]])
        with pytest.raises(picard.InvalidArgument, match=r"^params: -inf at index \(0, 0\)"):
            s.solve([[1.0], [1.0]], [[-np.inf], [1.0]])
        assert s.solve([[1.0], [3e38]]).x_final[1, 0] > 1e38  # float holds it


@pytest.mark.parametrize("args, kwargs, named", [
    ((0, (0, 1)), {}, "n"),
    ((2.5, (0, 1)), {}, "n"),
    ((4, (1, 0)), {}, "t_span"),
    ((4, [[0, 1]] * 4), {}, "t_span"),
    ((4, (0, 1)), {"tol": 1e-6}, "tol"),
    ((4, (0, 1)), {"check": True}, "check"),
    ((4, (0, 1)), {"rtol": -1}, "rtol"),
    ((4, (0, 1)), {"scheme": "nope"}, "scheme"),
    ((4, (0, 1)), {"save_at": [2.0]}, "save_at"),
])
def test_bad_setup_refused_naming_the_argument(args, kwargs, named):
    with pytest.raises(picard.InvalidArgument, match="^" + named + ":"):
        picard.Solver("decay", *args, backend="cpu", **kwargs)


def test_solve_after_close_refused():
    s = picard.Solver("decay", 2, (0, 1), backend="cpu")
    assert s.solve(np.ones((2, 1))).success
    s.close()
    s.close()
    with pytest.raises(picard.Error, match="after close"):
        s.solve(np.ones((2, 1)))
    with picard.Solver("decay", 2, (0, 1), backend="cpu") as t:
        pass
    with pytest.raises(picard.Error, match="after close"):
        t.solve(np.ones((2, 1)))


def test_statuses_as_solve():
    lam = np.array([[0.5], [-100.0], [1.0]])  # the second grows as e^100 > bound
    times = np.linspace(0, 1, 11)
    with picard.Solver("decay", 3, (0, 1), backend="cpu", save_at=times) as s:
        r = s.solve(np.ones((3, 1)), lam)
    q = picard.solve("decay", np.ones((3, 1)), (0, 1), lam, backend="cpu", save_at=times)
    assert list(r.status) == ["ok", "diverged", "ok"]
    assert_same(r, q)
    assert r.stats["failed"] == 1 and 0 < r.t_fail[1] < 1


def test_result_times_cannot_change_the_next_solve():
    with picard.Solver("decay", 1, (0, 1), backend="cpu", save_at=[0.5, 1.0]) as s:
        r = s.solve([1.0])
        with pytest.raises(ValueError):
            r.t[0] = 0.9
        assert list(s.solve([1.0]).t) == [0.5, 1.0]


def test_shared_between_threads_takes_turns():
    m, x0, params = lotka_ensemble(8)
    with picard.Solver(m, 8, (0, 5), backend="cpu", save_at=[5.0]) as s:
        want = s.solve(x0, params).x_final
        got = [None] * 4

        def run(i):
            got[i] = s.solve(x0, params).x_final

        threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert all(np.array_equal(g, want) for g in got)
