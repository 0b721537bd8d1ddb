"""ensemble.py - ensembles drawn as picard-run draws them
(picard_ensemble_model): start states and parameters spread uniformly
around the model's, from cuRAND's Philox generator with a seed."""
import numpy as np

from . import _ffi
from .errors import check, refuse


def ensemble(model, n, spread=0.1, param_spreads=None, seed=1):
    """(x0, params) of n members of model: parameter q spread by
    param_spreads[q] (a dict by name or a sequence; None: the defaults) and
    each start state spread by `spread` around picard_model_start of its
    member's parameters, x = c (1 + spread (2u - 1)). params is None when no
    parameter is spread. The same numbers as picard-run --traj n --spread
    spread --seed seed."""
    from .model import as_model
    model = as_model(model)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        refuse("n", "the number of members, an int >= 1, not %r" % (n,))
    if not (np.isfinite(spread) and spread >= 0):
        refuse("spread", "must be finite and >= 0, not %r" % (spread,))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or \
            not 0 <= seed < 2**64:
        refuse("seed", "an int in [0, 2^64), not %r" % (seed,))
    spreads = None
    if param_spreads is not None:
        if isinstance(param_spreads, dict):
            unknown = set(param_spreads) - set(model.param_names)
            if unknown:
                refuse("param_spreads", "no parameter %s in %s (its parameters: %s)"
                       % (", ".join(sorted(unknown)), model.name, ", ".join(model.param_names)))
            spreads = np.array([float(param_spreads.get(q, 0)) for q in model.param_names])
        else:
            spreads = np.ascontiguousarray(param_spreads, dtype=float)
            if spreads.shape != (model.nparams,):
                refuse("param_spreads", "shape (%d,) for %s's parameters, not %s"
                       % (model.nparams, model.name, spreads.shape))
        if not np.all(np.isfinite(spreads) & (spreads >= 0)):
            refuse("param_spreads", "each spread must be finite and >= 0")
    x0 = np.empty((n, model.dim))
    params = np.empty((n, model.nparams)) if spreads is not None and spreads.any() else None
    check(_ffi.ensemble_model(model._ptr, n, float(spread),
                              spreads.ctypes.data_as(_ffi.c_double_p) if spreads is not None
                              else None, int(seed), _ffi.BACKENDS["cpu"],
                              x0.ctypes.data_as(_ffi.c_double_p),
                              params.ctypes.data_as(_ffi.c_double_p) if params is not None
                              else None),
          "drawing an ensemble of %s" % model.name)
    return x0, params
