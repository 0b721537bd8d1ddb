"""arrays.py - the checks on the arrays a solve takes: shape, a dtype that
casts to float64 safely, finite values, values float can hold. Each refusal
names the argument. A C-contiguous float64 array is passed on as it is, with
no copy."""
import math

import numpy as np

from .errors import refuse

FLOAT_MAX = float(np.finfo(np.float32).max)


def as_float_array(value, argument):
    """value as a C-contiguous float64 array (no copy where it already is
    one); refused when its dtype is not a real number's."""
    if isinstance(value, np.ndarray) and value.dtype == np.float64 and \
            value.flags.c_contiguous:
        return value
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as e:
        refuse(argument, "not an array of numbers (%s)" % e)
    if array.dtype.kind not in "fiu" and array.dtype != object:
        refuse(argument, "dtype %s cannot be cast to float64 (real numbers only)"
               % array.dtype)
    try:
        return np.ascontiguousarray(array, dtype=np.float64)
    except (TypeError, ValueError) as e:
        refuse(argument, "cannot be cast to float64 (%s)" % e)


def check_values(array, argument, precision):
    """Refuse NaN or infinite entries, and (precision "float") entries
    past float's largest value, naming the first."""
    # the largest and smallest entries are finite only where every entry is
    # (NaN carries through np.maximum): two passes, no temporary, and no
    # overflow to silence as a sum would need; they also bound |x| for float
    if array.size == 0:
        return
    top, bottom = np.maximum.reduce(array, axis=None), np.minimum.reduce(array, axis=None)
    if math.isfinite(top) and math.isfinite(bottom) and \
            (precision != "float" or max(top, -bottom) <= FLOAT_MAX):
        return
    bad = ~np.isfinite(array)
    if bad.any():
        index = np.unravel_index(np.argmax(bad), array.shape)
        refuse(argument, "%s at index %s: every entry must be finite"
               % (array[index], tuple(int(i) for i in index)))
    if precision == "float":
        big = np.abs(array) > FLOAT_MAX
        if big.any():
            index = np.unravel_index(np.argmax(big), array.shape)
            refuse(argument, "%s at index %s overflows float (precision=\"float\" holds "
                   "|x| <= %.6g); use precision=\"double\""
                   % (array[index], tuple(int(i) for i in index), FLOAT_MAX))


def as_rows(value, argument, width, what, precision, values=True):
    """An (N, width) array from one row (width,) or N rows; the rows and
    whether one row was given. values=False leaves the values' check
    (check_values) to the library's solve, which makes the same one:
    refused_values then names the argument where it refused."""
    array = as_float_array(value, argument)
    if array.ndim == 1:
        array = array.reshape(1, -1)
        one = True
    elif array.ndim == 2:
        one = False
    else:
        refuse(argument, "shape %s: expected (N, %d) or (%d,)" % (array.shape, width, width))
    if array.shape[1] != width:
        refuse(argument, "shape %s: %d %s per row expected" % (array.shape, width, what))
    if array.shape[0] == 0:
        refuse(argument, "no rows: an ensemble needs at least one member")
    if values:
        check_values(array, argument, precision)
    return array, one


def refused_values(precision, **arrays):
    """After the library refused a solve's inputs: refuse the first of
    arrays (argument=array, or None) whose values check_values refuses,
    naming it and the entry; nothing where each passes."""
    for argument, array in arrays.items():
        if array is not None:
            check_values(array, argument, precision)


def broadcast_rows(array, n, argument):
    """array (N, w) as n rows: N == n, or one row repeated."""
    if array.shape[0] == n:
        return array
    if array.shape[0] == 1:
        return np.ascontiguousarray(np.broadcast_to(array, (n, array.shape[1])))
    refuse(argument, "%d rows, but the ensemble has %d members" % (array.shape[0], n))


def as_times(value, t0, t1):
    """save_at: a finite, non-decreasing 1-D array of times within [t0, t1]."""
    times = as_float_array(value, "save_at")
    if times.ndim == 0:
        times = times.reshape(1)
    if times.ndim != 1 or times.size == 0:
        refuse("save_at", "a 1-D array of at least one time, not shape %s" % (times.shape,))
    check_values(times, "save_at", "double")
    if np.any(np.diff(times) < 0):
        refuse("save_at", "times must be non-decreasing")
    if times[0] < t0 or times[-1] > t1:
        refuse("save_at", "times must lie within t_span [%g, %g] (got %g .. %g)"
               % (t0, t1, times[0], times[-1]))
    return times
