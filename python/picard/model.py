"""model.py - picard.Model: a registered model (models/NAME.cu), a model
file loaded at run time, or one from a string of source."""
import atexit
import ctypes
import os
import re
import shutil
import tempfile

import numpy as np

from . import _ffi
from .errors import InvalidArgument, ModelNotFound, check

_dp = _ffi.c_double_p
# picard_model.exact
_EXACT = ctypes.CFUNCTYPE(None, ctypes.c_double, ctypes.c_double, _dp, _dp, _dp)

# Sources given as strings are written here, one folder each, for the
# library to compile (it keeps the text; messages name the file).
_source_dirs = []


@atexit.register
def _remove_source_dirs():
    for d in _source_dirs:
        shutil.rmtree(d, ignore_errors=True)


def _strings(pointer, count):
    return tuple(pointer[i].decode() for i in range(count))


class Model:
    """A model of picard: its right-hand side compiled for the CPU and the GPU.

    Model("lotka") finds a registered model; Model.from_file(path) loads a
    model file (PATH/NAME.cu, docs/models.md) and Model.from_source(name,
    code) one written as a string; both compile at run time, cached by
    content under picard's cache directory."""

    def __init__(self, name):
        if not isinstance(name, str):
            raise InvalidArgument("name: a model's name (str), not %r" % (name,))
        ptr = _ffi.model_find(name.encode())
        if not ptr:
            raise ModelNotFound("unknown model %r; models: %s" % (name, ", ".join(models())),
                                -2)
        self._bind(ptr)

    def _bind(self, ptr):
        self._ptr = ptr
        m = ptr.contents
        self.name = m.name.decode()
        self.summary = (m.summary or b"").decode()
        self.reference = (m.reference or b"").decode()
        self.dim = m.dim
        self.nparams = m.nparams
        self.param_names = _strings(m.param_names, m.nparams)
        self.param_defaults = np.array(m.param_defaults[:m.nparams], dtype=float)
        self.x0 = np.array(m.x0[:m.dim], dtype=float)
        self.t_span = (m.t0, m.t1)
        self.stiff = bool(m.stiff)
        self.has_events = bool(m.events)
        self.semilinear = bool(m.op)

    @classmethod
    def _from_pointer(cls, ptr):
        self = cls.__new__(cls)
        self._bind(ptr)
        return self

    @classmethod
    def from_file(cls, path):
        """Load PATH/NAME.cu (struct NAME and PICARD_REGISTER_MODEL(NAME))."""
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise InvalidArgument("path: no model file %r" % path)
        ptr = _ffi.model_p()
        check(_ffi.model_load(os.path.abspath(path).encode(), ctypes.byref(ptr)),
              "loading model file %s" % path)
        return cls._from_pointer(ptr)

    @classmethod
    def from_source(cls, name, code):
        """A model from source text, compiled as the model file NAME.cu would
        be: code defines struct NAME and ends with PICARD_REGISTER_MODEL(NAME)."""
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise InvalidArgument("name: a C identifier (the model struct's name), not %r"
                                  % (name,))
        if not isinstance(code, str) or not code.strip():
            raise InvalidArgument("code: the model's source text (str)")
        folder = tempfile.mkdtemp(prefix="picard-source-")
        _source_dirs.append(folder)
        path = os.path.join(folder, name + ".cu")
        with open(path, "w") as f:
            f.write(code)
        return cls.from_file(path)

    @property
    def description(self):
        """The model file's header comment."""
        return (_ffi.model_description(self._ptr) or b"").decode()

    def start(self, params=None):
        """The default start state for params (None: the defaults)."""
        x = np.empty(self.dim)
        p = None
        if params is not None:
            p = np.ascontiguousarray(params, dtype=float)
            if p.shape != (self.nparams,):
                raise InvalidArgument("params: shape (%d,) for %s, not %s"
                                      % (self.nparams, self.name, p.shape))
            p = p.ctypes.data_as(_ffi.c_double_p)
        _ffi.model_start(self._ptr, p, x.ctypes.data_as(_ffi.c_double_p))
        return x

    def exact(self, t, x0=None, params=None, t0=None):
        """The model's closed-form solution at times t from x0 at t0 (None:
        the model's), (len(t), dim); NotImplementedError when it has none."""
        m = self._ptr.contents
        if not m.exact:
            raise NotImplementedError("%s has no exact solution" % self.name)
        fn = _EXACT(m.exact)
        x0 = self.x0 if x0 is None else np.ascontiguousarray(x0, dtype=float)
        p = self.param_defaults if params is None else np.ascontiguousarray(params, dtype=float)
        if x0.shape != (self.dim,) or p.shape != (self.nparams,):
            raise InvalidArgument("x0, params: shapes (%d,) and (%d,) for %s"
                                  % (self.dim, self.nparams, self.name))
        times = np.atleast_1d(np.asarray(t, dtype=float))
        out = np.empty((times.size, self.dim))
        for i, ti in enumerate(times):
            fn(ti, self.t_span[0] if t0 is None else float(t0), x0.ctypes.data_as(_dp),
               p.ctypes.data_as(_dp), out[i].ctypes.data_as(_dp))
        return out

    def __repr__(self):
        return "picard.Model(%r: %s, dim %d, params %s)" % (
            self.name, self.summary, self.dim, ", ".join(self.param_names) or "none")

    def __eq__(self, other):
        return isinstance(other, Model) and ctypes.addressof(self._ptr.contents) == \
            ctypes.addressof(other._ptr.contents)

    def __hash__(self):
        return ctypes.addressof(self._ptr.contents)


def models():
    """The names of the registered models, in name order."""
    return [_ffi.model_at(i).contents.name.decode() for i in range(_ffi.model_count())]


def as_model(model):
    """A Model from a Model or a registered model's name."""
    if isinstance(model, Model):
        return model
    if isinstance(model, str):
        return Model(model)
    raise InvalidArgument("model: a picard.Model or a model's name, not %r" % (model,))
