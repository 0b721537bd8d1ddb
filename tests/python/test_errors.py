"""Errors: the library's raise picard.Error with its message; bad arguments
are refused naming the argument, before any work."""
import numpy as np
import pytest

import picard


def refused(argument, *args, **kwargs):
    with pytest.raises(picard.InvalidArgument) as e:
        picard.solve(*args, **kwargs)
    assert str(e.value).startswith(argument + ":"), str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, RuntimeError)
    return str(e.value)


def test_unknown_model():
    with pytest.raises(picard.ModelNotFound, match="no_such_model"):
        picard.Model("no_such_model")
    with pytest.raises(LookupError):
        picard.solve("no_such_model", [1.0], (0, 1))


@pytest.mark.parametrize("x0, why", [
    (np.ones((2, 3)), "2 components per row"),
    (np.ones((2, 2, 2)), "expected (N, 2)"),
    (np.ones((0, 2)), "no rows"),
    (np.array([[1 + 1j, 0]]), "complex"),
    (np.array([["a", "b"]]), "cannot be cast"),
    (np.array([[np.nan, 0]]), "nan at index (0, 0)"),
    (np.array([[0, 0], [1, np.inf]]), "inf at index (1, 1)"),
])
def test_bad_x0(x0, why):
    message = refused("x0", "oscillator", x0, (0, 1), backend="cpu")
    assert why in message


def test_bad_params():
    assert "1 parameters per row" in refused("params", "oscillator", [1, 0], (0, 1),
                                               [[1, 2]], backend="cpu")
    assert "inf" in refused("params", "oscillator", [1, 0], (0, 1), [[np.inf]])
    assert "3 rows, but x0 has 2" in refused("params", "oscillator", np.ones((2, 2)), (0, 1),
                               np.ones((3, 1)))


def test_finite_entries_whose_sum_overflows_are_accepted_in_double():
    """The finite check sums first; a sum that overflows is not a refusal
    (the members reach the solve, where the library judges them: past the
    bound or overflowing in a stage)."""
    x0 = np.array([[1e308], [1e308]])
    r = picard.solve("decay", x0, (0, 1e-3), backend="cpu", scheme="dp5", save_at=[1e-3])
    assert set(r.status) <= {"diverged", "nonfinite"}
    with pytest.raises(picard.InvalidArgument, match="x0: inf at index"):
        picard.solve("decay", np.array([[1e308], [np.inf]]), (0, 1e-3), backend="cpu")


def test_float_overflow():
    message = refused("x0", "decay", [[1e39]], (0, 1), precision="float", backend="cpu")
    assert "overflows float" in message
    refused("params", "decay", [[1.0]], (0, 1), [[-1e300]], precision="float")
    # double holds it
    picard.solve("decay", [[1e39]], (0, 1), backend="cpu", save_at=[1.0])


@pytest.mark.parametrize("argument, kwargs", [
    ("t_span", dict(t_span=(1, 0))),
    ("t_span", dict(t_span=(0, np.inf))),
    ("t_span", dict(t_span=3)),
    ("scheme", dict(scheme="rk45")),
    ("precision", dict(precision="half")),
    ("backend", dict(backend="tpu")),
    ("save_at", dict(save_at=[0.5, 2.0])),
    ("save_at", dict(save_at=[0.5, 0.2])),
    ("rtol", dict(rtol=-1)),
    ("tol", dict(tol=np.nan)),
    ("seed", dict(seed=3)),
    ("h", dict(h=-0.1)),
    ("m", dict(m=2.5)),
])
def test_bad_arguments(argument, kwargs):
    args = dict(model="decay", x0=[[1.0]], t_span=(0, 1), backend="cpu")
    args.update(kwargs)
    refused(argument, **args)


def test_unknown_keyword():
    with pytest.raises(TypeError, match="stepsize"):
        picard.solve("decay", [[1.0]], (0, 1), stepsize=0.1)


def test_library_error_carries_its_message():
    # the imex schemes need a semi-linear model: the library refuses
    with pytest.raises(picard.Error) as e:
        picard.solve("oscillator", [[1.0, 0]], (0, 1), scheme="imex-euler", backend="cpu")
    assert e.value.code == -1 and isinstance(e.value, ValueError)
    assert "imex-euler" in str(e.value) or "semi-linear" in str(e.value) or \
        "operator" in str(e.value), str(e.value)
    # newton runs in double only
    with pytest.raises(picard.InvalidArgument, match="double"):
        picard.solve("oscillator", [[1.0, 0]], (0, 1), scheme="newton", precision="float",
                     backend="cpu")


def test_tolerance_below_precision():
    with pytest.raises(picard.InvalidArgument) as e:
        picard.solve("decay", [[1.0]], (0, 1), tol=1e-12, precision="float", backend="cpu")
    assert e.value.code == -14 and "tol" in str(e.value)


def test_no_device():
    if picard.cuda_available():
        pytest.skip("a CUDA device is there")
    with pytest.raises(picard.NoDevice):
        picard.solve("decay", [[1.0]], (0, 1), backend="cuda")
