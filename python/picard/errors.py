"""errors.py - the exceptions: the C library's error codes, each raised with
picard_error_detail()'s message, and the arguments refused before a call;
and the package's warning class."""
from . import _ffi


class Error(RuntimeError):
    """An error of picard: .code is the library's PICARD_E... code (0 for an
    argument refused in Python), .name its short message."""

    def __init__(self, message, code=0):
        super().__init__(message)
        self.code = code
        self.name = _ffi.strerror(code).decode() if code else "invalid argument"


class InvalidArgument(Error, ValueError):
    """An argument refused: a bad array, option or value (PICARD_EINVAL,
    PICARD_EACCURACY, or the package's own checks)."""


class ModelNotFound(Error, LookupError):
    """No model of that name (PICARD_ENOMODEL)."""


class CompileError(Error):
    """A model file or source that does not compile (PICARD_ECOMPILE): the
    compiler's messages, FILE:LINE: error: ..., are in the message."""


class NoDevice(Error):
    """backend="cuda" without a usable CUDA device (PICARD_ENODEV)."""


class ToleranceNotReached(Error):
    """solve(tol=E): no configuration tried comes close to E on the
    ensemble (PICARD_ENOTFOUND); the message says the best E reached and
    what may limit it."""


class PicardWarning(RuntimeWarning):
    """What picard warns of without failing (solve(tol=E): a tuning cache
    not read, a kept decision ignored or not kept). Filter it by class:
    warnings.simplefilter("ignore", picard.PicardWarning)."""


_BY_CODE = {-11: ToleranceNotReached, -1: InvalidArgument, -14: InvalidArgument, -2: ModelNotFound,
            -12: CompileError, -3: NoDevice}


def raise_for(code, what):
    """Raise the exception of a negative library code, its message the
    library's detail (else its short message), prefixed by what was done."""
    detail = (_ffi.error_detail() or b"").decode(errors="replace")
    short = _ffi.strerror(code).decode()
    message = "%s: %s" % (what, detail or short)
    if detail and short not in detail:
        message += " (%s)" % short
    raise _BY_CODE.get(code, Error)(message, code)


def check(code, what):
    """code when it is not an error, else raise_for."""
    if code < 0:
        raise_for(code, what)
    return code


def refuse(argument, why):
    """Refuse an argument, naming it."""
    raise InvalidArgument("%s: %s" % (argument, why))
