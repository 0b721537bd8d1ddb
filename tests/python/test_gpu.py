"""The GPU path: skipped without a device, failed under PICARD_REQUIRE_GPU=1
without one."""
import numpy as np

import picard


def test_gpu_matches_cpu(gpu):
    x0, params = picard.ensemble("lotka", 4096, spread=0.1, seed=2)
    g = picard.solve("lotka", x0, (0, 5), params, backend="cuda", rtol=1e-9, atol=1e-9,
                     save_at=[2.5, 5.0])
    c = picard.solve("lotka", x0[:64], (0, 5), None, backend="cpu", rtol=1e-9, atol=1e-9,
                     save_at=[2.5, 5.0])
    assert g.stats["backend"] == "cuda" and g.success
    assert np.abs(g.x[:64] - c.x).max() < 1e-7


def test_gpu_every_scheme_runs(gpu):
    """Every scheme on the device, held to the model's closed form as
    closely as the same solve on the CPU is (within 10x, or 1e-12)."""
    for scheme in picard.schemes():
        model = "heat1d" if scheme.startswith("imex") else "oscillator"
        m = picard.Model(model)
        x0 = np.tile(m.x0, (256, 1)) + (0.01 if model == "heat1d" else 0)
        opts = {"h": 1e-3} if model == "heat1d" else {}
        r = picard.solve(m, x0, (0, 0.5), backend="cuda", scheme=scheme, **opts)
        c = picard.solve(m, x0[:4], (0, 0.5), backend="cpu", scheme=scheme, **opts)
        assert r.stats["backend"] == "cuda", scheme
        assert r.success, (scheme, set(r.status))
        exact = m.exact(r.t[-1], x0[0])[0]
        gpu_err = np.abs(r.x[:, -1] - exact).max()
        cpu_err = np.abs(c.x[:, -1] - exact).max()
        assert gpu_err <= max(10 * cpu_err, 1e-12), (scheme, gpu_err, cpu_err)


def test_gpu_check_and_float(gpu):
    r = picard.solve("lotka", 1024, (0, 5), backend="cuda", precision="float", tol=1e-4,
                     check=True)
    assert r.err.shape == (1024,) and (r.err <= 1).sum() > 1000
