"""_ffi.py - the ctypes bindings of libpicard.so: the structs of
include/picard.h and include/picard_choose.h field by field, and the functions' signatures. Everything
else in the package goes through this file; tests/python/test_abi.py checks
its struct layouts against a C compiler's.

The library is found by, in order: $PICARD_LIB (a path to libpicard.so), the
lib/ that `make python` recorded in picard/_libdir.txt (which pip install
copies with the package), the source tree's lib/ (python/picard/../../lib),
then the installed prefix's (sys.prefix/lib, /usr/local/lib) and the
loader's own search.
"""
import ctypes
import os
import sys
from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_int,
                    c_long, c_size_t, c_ulonglong, c_void_p)

c_double_p = POINTER(c_double)
c_int_p = POINTER(c_int)
c_long_p = POINTER(c_long)


class tolerance(Structure):
    _fields_ = [("atol", c_double), ("rtol", c_double)]


class model(Structure):
    _fields_ = [
        ("name", c_char_p), ("summary", c_char_p), ("reference", c_char_p),
        ("dim", c_int), ("nparams", c_int),
        ("param_names", POINTER(c_char_p)), ("param_defaults", c_double_p),
        ("x0", c_double_p), ("t0", c_double), ("t1", c_double),
        ("exact", c_void_p), ("initial", c_void_p),
        ("ninvariants", c_int), ("invariant_names", POINTER(c_char_p)),
        ("invariants", c_void_p),
        ("default_h", c_double), ("default_atol", c_double), ("stiff", c_bool),
        ("op", c_void_p), ("events", c_void_p), ("impl", c_void_p),
    ]


class options(Structure):
    _fields_ = [
        ("scheme", c_int), ("m", c_int), ("K", c_int), ("K_max", c_int),
        ("warm_start", c_bool), ("iter_rtol", c_double), ("iter_atol", c_double),
        ("h", c_double), ("window", c_double), ("t0", c_double), ("t1", c_double),
        ("block", c_int), ("precision", c_int), ("backend", c_int),
        ("bound", c_double), ("max_work", c_double), ("device_memory", c_size_t),
        ("batch", c_long), ("layout", c_int), ("traj_per_block", c_int),
        ("scan", c_int), ("estimate_error", c_bool), ("error_scale", tolerance),
        ("linsolve", c_int), ("precond", c_int), ("linsolve_rtol", c_double),
        ("linsolve_maxit", c_int), ("event_log", c_int),
    ]


class grid(Structure):
    _fields_ = [
        ("scheme", c_int), ("m", c_int), ("K", c_int), ("adaptive", c_bool),
        ("warm_start", c_bool), ("iter_rtol", c_double), ("iter_atol", c_double),
        ("h", c_double), ("window", c_double), ("t0", c_double), ("t1", c_double),
        ("windows", c_long), ("block", c_int), ("layout", c_int),
        ("traj_per_block", c_int), ("scan", c_int), ("linsolve", c_int),
        ("precond", c_int), ("linsolve_rtol", c_double), ("linsolve_maxit", c_int),
    ]


# Array arguments of the calls made per solve are void pointers, given an
# array's address (ndarray.ctypes.data): cheaper than data_as per call.
class record(Structure):
    _fields_ = [("every", c_long), ("traj_stride", c_int), ("states", c_void_p),
                ("times", c_void_p), ("ntimes", c_long)]


class stats(Structure):
    _fields_ = [
        ("solve_seconds", c_double), ("failed", c_long), ("windows", c_long),
        ("sweeps_mean", c_double), ("sweeps_max", c_int), ("rhs_evals", c_double),
        ("chunks", c_long), ("estimate_seconds", c_double),
        ("device", c_char * 128), ("backend", c_int),
        ("launches", c_long), ("host_waits", c_long),
    ]


class check_result(Structure):
    _fields_ = [
        ("error", c_double), ("rel_error", c_double), ("worst_traj", c_long),
        ("worst_window", c_long), ("checked_traj", c_long), ("points", c_long),
        ("nonfinite", c_long), ("outside_span", c_long), ("scaled_error", c_double),
        ("ref_failed", c_long), ("first_ref_failed", c_long), ("events", c_long),
        ("event_error", c_double), ("event_scaled_error", c_double),
        ("worst_event_traj", c_long), ("event_mismatch", c_long),
        ("first_event_mismatch", c_long), ("event_detail", c_char * 200),
        ("judged_gauss", c_long), ("judge_error", c_double),
    ]


class check_options(Structure):
    _fields_ = [
        ("tol", tolerance), ("traj_error", c_double_p), ("keep_going", c_bool),
        ("first", c_long), ("events", c_void_p), ("status", c_int_p),
        ("fail_times", c_double_p), ("span_t0", c_double_p), ("span_t1", c_double_p),
    ]


class tune_point(Structure):
    _fields_ = [
        ("scheme", c_int), ("m", c_int), ("K", c_int), ("h", c_double),
        ("iter_rtol", c_double), ("windows", c_long), ("error", c_double),
        ("scaled_error", c_double), ("seconds", c_double), ("rhs_evals", c_double),
        ("meets", c_bool), ("sample_meeting", c_long), ("layout", c_int),
        ("traj_per_block", c_int), ("block", c_int),
    ]


TUNE_MAX_M = 16


class tune_result(Structure):
    _fields_ = [
        ("best", tune_point), ("nm", c_int), ("per_m", tune_point * TUNE_MAX_M),
        ("best_error", c_double), ("refused_error", c_double), ("refused_by", c_char_p),
        ("reference_error", c_double), ("points", c_long), ("sample_dropped", c_long),
        ("sample_stiff", c_long), ("sample_unverified", c_long), ("costs_timed", c_long),
        ("costs_not_kept", c_long), ("closest", tune_point), ("stopped", c_bool),
    ]


# include/picard_choose.h: the request's callbacks (progress and warnings)
choose_point_fn = ctypes.CFUNCTYPE(None, POINTER(tune_point), c_void_p)  # on_point, on_candidate
choose_skipped_fn = ctypes.CFUNCTYPE(None, c_char_p, c_int, c_char_p, c_void_p)
choose_warning_fn = ctypes.CFUNCTYPE(None, c_char_p, c_void_p)
choose_search_fn = ctypes.CFUNCTYPE(None, c_int, c_void_p)


class choose_request(Structure):
    _fields_ = [
        ("x0", c_void_p), ("params", c_void_p), ("ntraj", c_long),
        ("ensemble_id", c_char_p), ("spread", c_double), ("seed", c_ulonglong),
        ("precision", c_int), ("backend", c_int), ("t0", c_double), ("t1", c_double),
        ("spans", c_bool), ("tol", c_double), ("rtol", c_double),
        ("scheme_fixed", c_bool), ("layout_fixed", c_bool), ("fixed", options),
        ("on_point", choose_point_fn), ("on_candidate", choose_point_fn),
        ("on_skipped", choose_skipped_fn), ("on_warning", choose_warning_fn),
        ("on_search", choose_search_fn), ("ctx", c_void_p),
    ]


class choose_report(Structure):
    _fields_ = [
        ("source", c_int), ("point", tune_point), ("closest", c_bool),
        ("where", c_char * 4200), ("search", c_char * 600), ("date", c_char * 32),
        ("result", tune_result), ("names", c_char * 256), ("times", c_char * 512),
        ("costed_traj", c_long), ("settled", c_bool),
    ]


CHOICE_SOURCES = {0: "given", 1: "cache", 2: "decision", 3: "search"}
ENOTFOUND = -11


# picard_scheme and picard_traj_status, as include/picard.h numbers them;
# the scheme names are the library's (picard_scheme_names, checked by the
# tests), which include/picard.h does not export by value.
SCHEMES = {
    "trapezoid": 0, "lobatto": 1, "dp5": 2, "dp8": 3, "vern9": 4, "newton": 5,
    "radau5": 6, "newton-radau": 7, "imex-euler": 8, "imex-sdirk2": 9,
    "rodas5p": 10, "rodas4": 11, "ros23": 12,
}
PRECISIONS = {"float": 0, "double": 1}
BACKENDS = {"auto": 0, "cuda": 1, "gpu": 1, "cpu": 2}
BACKEND_NAMES = {1: "cuda", 2: "cpu"}
TRAJ_TOL_EXCEEDED = 4
EINVAL = -1
EFAILED = -8
EACCURACY = -14


def _candidates():
    env = os.environ.get("PICARD_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    recorded = []
    try:
        with open(os.path.join(here, "_libdir.txt")) as f:
            recorded = [os.path.join(f.read().strip(), "libpicard.so")]
    except OSError:
        pass
    return recorded + [os.path.join(here, "..", "..", "lib", "libpicard.so"),
                       os.path.join(sys.prefix, "lib", "libpicard.so"),
                       "/usr/local/lib/libpicard.so",
                       "libpicard.so"]


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("picard: libpicard.so not found; tried " + ", ".join(tried) +
                      ". Build it (make python) or set PICARD_LIB=/path/to/libpicard.so")


lib = _load()


def _sig(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = argtypes
    return f


model_p = POINTER(model)
solver_p = c_void_p

strerror = _sig("picard_strerror", c_char_p, c_int)
error_detail = _sig("picard_error_detail", c_char_p)
version = _sig("picard_version", c_char_p)
model_count = _sig("picard_model_count", c_int)
model_at = _sig("picard_model_at", model_p, c_int)
model_find = _sig("picard_model_find", model_p, c_char_p)
model_load = _sig("picard_model_load", c_int, c_char_p, POINTER(model_p))
model_description = _sig("picard_model_description", c_char_p, model_p)
model_start = _sig("picard_model_start", None, model_p, c_double_p, c_double_p)
traj_status_name = _sig("picard_traj_status_name", c_char_p, c_int)
solver_create = _sig("picard_solver_create", c_int, POINTER(solver_p), model_p,
                     POINTER(options), c_long)
solver_free = _sig("picard_solver_free", None, solver_p)
solver_grid = _sig("picard_solver_grid", POINTER(grid), solver_p)
record_size = _sig("picard_record_size", c_size_t, solver_p, POINTER(record))
solve = _sig("picard_solve", c_int, solver_p, c_void_p, c_void_p, c_void_p, c_void_p,
             c_void_p, POINTER(record), c_int, POINTER(stats))
solver_set_spans = _sig("picard_solver_set_spans", c_int, solver_p, c_long, c_double_p,
                        c_double_p)
solver_error_estimates = _sig("picard_solver_error_estimates", c_double_p, solver_p)
solver_fail_times = _sig("picard_solver_fail_times", c_double_p, solver_p)
solver_event_log = _sig("picard_solver_event_log", c_void_p, solver_p)
ensemble_model = _sig("picard_ensemble_model", c_int, model_p, c_long, c_double,
                      c_double_p, c_ulonglong, c_int, c_double_p, c_double_p)
check_each = _sig("picard_check_each", c_int, model_p, POINTER(grid), c_long, c_double_p,
                  c_double_p, POINTER(record), POINTER(check_options),
                  POINTER(check_result))
tolerance_check = _sig("picard_tolerance_check", c_int, POINTER(tolerance), c_int,
                       c_double_p, c_long)
cuda_available = _sig("picard_cuda_available", c_bool)
choose = _sig("picard_choose", c_int, model_p, POINTER(choose_request), POINTER(options),
              POINTER(choose_report))
# not in include/picard.h (src/schemes/scheme.h): None where the library
# does not export it
scheme_names = (_sig("picard_scheme_names", c_char_p, ctypes.c_char_p, c_size_t)
                if hasattr(lib, "picard_scheme_names") else None)
