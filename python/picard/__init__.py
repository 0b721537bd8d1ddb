"""picard: ensembles of ODE initial-value problems on the GPU or the CPU,
numpy in and numpy out, over libpicard.so (include/picard.h).

    import picard
    r = picard.solve("lotka", x0, (0, 10), params, rtol=1e-8)
    r.t, r.x, r.status

A sweep of many solves of one shape makes its solver once:

    with picard.Solver("lotka", N, (0, 10), rtol=1e-8, save_at=[10.0]) as s:
        for params in sweep:
            r = s.solve(x0, params)

python/README.md has the rest."""
from . import _ffi
from .ensemble import ensemble
from .errors import (CompileError, Error, InvalidArgument, ModelNotFound, NoDevice,
                     PicardWarning, ToleranceNotReached)
from .model import Model, models
from .result import Result
from .solve import auto_scheme, clear_cache, schemes, solve
from .solver import Solver

__version__ = _ffi.version().decode()


def cuda_available():
    """Whether a usable CUDA device is there (backend "auto" then uses it)."""
    return bool(_ffi.cuda_available())


__all__ = ["Model", "Result", "Error", "InvalidArgument", "ModelNotFound", "CompileError",
           "NoDevice", "ToleranceNotReached", "PicardWarning", "solve", "Solver", "schemes",
           "models", "ensemble", "auto_scheme", "clear_cache", "cuda_available", "__version__"]
