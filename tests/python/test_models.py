"""Models: the registry, a model file, and a model from a string."""
import os

import numpy as np
import pytest

import picard

GROWTH = """/* growth_py - x' = k x, exact x0 exp(k (t - t0)), written in a test */
#include <math.h>

#include "picard_model.cuh"

struct growth_py {
	static constexpr int dim = 1, nparams = 1;
	static constexpr const char *param_names[] = {"k"};
	static constexpr double param_defaults[] = {0.3};
	static constexpr double x0[] = {2};
	static constexpr double t0 = 0, t1 = 1;
	static constexpr const char *summary = "x' = k x";
	static constexpr const char *reference = "exact";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = p[0] * x[0];
	}
};

PICARD_REGISTER_MODEL(growth_py)
"""


def test_registry():
    names = picard.models()
    assert "lotka" in names and "decay" in names and names == sorted(names)
    m = picard.Model("lotka")
    assert m.dim == 2 and m.nparams == len(m.param_names) == len(m.param_defaults)
    assert m.x0.shape == (2,) and m.t_span[1] > m.t_span[0]
    assert "lotka" in repr(m) and m.description
    assert picard.Model("lotka") == m


def test_exact_of_a_model():
    m = picard.Model("decay")
    x = m.exact([0.0, 2.0], x0=[3.0], params=[0.5])
    assert np.allclose(x[:, 0], 3 * np.exp(-0.5 * np.array([0, 2.0])))
    with pytest.raises(NotImplementedError):
        picard.Model("lotka").exact(1.0)


def test_model_from_source():
    m = picard.Model.from_source("growth_py", GROWTH)
    assert m.name == "growth_py" and m.param_names == ("k",)
    k = np.array([[0.3], [-1.0]])
    r = picard.solve(m, [[2.0], [1.0]], (0, 1), k, backend="cpu", rtol=1e-10, atol=1e-12,
                     save_at=[0.5, 1.0])
    want = np.array([[2.0], [1.0]]) * np.exp(k * np.array([0.5, 1.0]))
    assert np.allclose(r.x[:, :, 0], want, rtol=1e-8)


def test_model_from_file(tmp_path):
    path = tmp_path / "growth_py.cu"
    path.write_text(GROWTH)
    m = picard.Model.from_file(path)
    r = picard.solve(m, [[1.0]], (0, 1), backend="cpu", rtol=1e-10, save_at=[1.0])
    assert abs(r.x[0, 0, 0] - np.exp(0.3)) < 1e-8


def test_source_that_does_not_compile():
    broken = GROWTH.replace("growth_py", "broken_py").replace("p[0] * x[0]", "p[0] * y[0]")
    with pytest.raises(picard.CompileError) as e:
        picard.Model.from_source("broken_py", broken)
    assert "broken_py.cu:" in str(e.value) and "error" in str(e.value)
    assert e.value.code == -12


def test_source_name_refused():
    with pytest.raises(picard.InvalidArgument, match="^name:"):
        picard.Model.from_source("not a name", GROWTH)


def test_library_not_found_says_how(tmp_path):
    import subprocess
    import sys
    from conftest import ROOT
    env = dict(os.environ, PICARD_LIB=str(tmp_path / "libpicard.so"),
               PYTHONPATH=os.path.join(ROOT, "python"))
    run = subprocess.run([sys.executable, "-c", "import picard"], env=env,
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "libpicard.so not found" in run.stderr and "PICARD_LIB" in run.stderr
