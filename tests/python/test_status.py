"""Per-member outcomes: a member's failure is in .status (its rows past the
failure NaN), never a silent NaN; tol and check mark members above tol."""
import numpy as np

import picard


def test_diverged_member_is_named():
    lam = np.array([[0.5], [-100.0], [1.0]])  # the second grows as e^100 > bound
    r = picard.solve("decay", np.ones((3, 1)), (0, 1), lam, backend="cpu",
                     save_at=np.linspace(0, 1, 11))
    assert list(r.status) == ["ok", "diverged", "ok"]
    assert not r.success and list(r.ok) == [True, False, True]
    assert [picard._ffi.traj_status_name(c).decode() for c in r.status_code] == list(r.status)
    assert np.isfinite(r.x[[0, 2]]).all()
    assert 0 < r.t_fail[1] < 1 and np.isnan(r.t_fail[[0, 2]]).all()
    after = r.t > r.t_fail[1]
    assert np.isnan(r.x[1, after]).all() and np.isfinite(r.x[1, ~after]).all()
    assert r.stats["failed"] == 1 and r.failed == 1



def test_max_steps():
    r = picard.solve("oscillator", [[1.0, 0]], (0, 100), backend="cpu", scheme="dp5",
                     rtol=1e-12, atol=1e-12, K_max=10)
    assert list(r.status) == ["max-steps"]


def test_not_converged():
    r = picard.solve("decay", [[1.0]], (0, 10), [[30.0]], backend="cpu", scheme="trapezoid",
                     h=0.2, K=2)
    assert r.status[0] in ("not-converged", "diverged", "nonfinite")
    assert r.status[0] != "ok"


def test_check_against_reference():
    x0 = np.array([[1.0, 0.0], [0.0, 1.0]])
    loose = picard.solve("oscillator", x0, (0, 5), backend="cpu", scheme="trapezoid",
                         h=0.1, check=True)
    tight = picard.solve("oscillator", x0, (0, 5), backend="cpu", rtol=1e-10, atol=1e-10,
                         check=True)
    assert loose.err.shape == (2,) and (loose.err > 1e-4).all()  # absolute errors
    assert (tight.err < 1e-8).all()
    # the whole grid given (m, K, h): nothing is chosen, the members judged
    marked = picard.solve("oscillator", x0, (0, 5), backend="cpu", scheme="trapezoid",
                          m=8, K=2, h=0.1, check=True, tol=1e-6)
    assert list(marked.status) == ["tol-exceeded"] * 2 and (marked.err > 1).all()
    assert marked.failed == 2 and loose.failed == 0  # the library counted none failed


def test_tol_estimates_each_member(tmp_path, monkeypatch):
    monkeypatch.setenv("PICARD_CACHE_DIR", str(tmp_path))
    x0 = np.array([[1.0, 0.0], [0.0, 1.0]])
    r = picard.solve("oscillator", x0, (0, 5), backend="cpu", tol=1e-6)
    assert r.err_est.shape == (2,)
    assert (r.err_est <= 1).all() and list(r.status) == ["ok", "ok"]
    coarse = picard.solve("oscillator", x0, (0, 5), backend="cpu", scheme="trapezoid",
                          m=8, K=2, h=0.1, tol=1e-6)
    assert (coarse.err_est > 1).all() and list(coarse.status) == ["tol-exceeded"] * 2
    assert coarse.failed == 2


def test_events_log_terminal_and_jumps():
    r = picard.solve("bouncing_ball", [[1.0, 0.0]], (0, 2), backend="cpu",
                     save_at=np.linspace(0, 2, 21))
    assert r.scheme == "dp8"
    assert r.status[0] == "ok"
    assert np.isfinite(r.x).all() and (r.x[0, :, 0] > -1e-6).all()  # it bounced


def test_terminal_event_time_and_ok_with_a_solver():
    # threshold ends a member at x = c: t = ln(x0 / c) / k; the other never
    # reaches c before t1 = 2 and keeps t_fail NaN. The Solver's second
    # solve reads its own event times, not the first's.
    with picard.Solver("threshold", 2, (0, 2), backend="cpu", save_at=[2.0]) as s:
        for k in (2.0, 3.0):
            r = s.solve([[1.0], [1.0]], [[k, 0.5, 0.1], [0.5, 0.5, 0.1]])
            assert list(r.status) == ["event", "ok"] and r.ok.all() and r.success
            assert r.failed == 0  # a terminal event is no failure
            assert abs(r.t_fail[0] - np.log(10) / k) < 1e-6 and np.isnan(r.t_fail[1])
