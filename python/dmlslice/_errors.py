"""The exceptions dmlslice raises.

Every one is a :class:`Error` carrying the library's status name
(``err.status == "DMLS_ERROR_OUT_OF_BOUNDS"``), the rule of docs/spec.md it
broke (``err.rule == "R-WIN-BOUNDS"``, or ``""`` where no rule applies) and the
library's message. Each also derives from the built-in exception a NumPy user
would catch for the same mistake.
"""


class Error(Exception):
    """A slice dmlslice refused or could not run.

    Attributes:
        message: the library's message, naming the field, axis and values.
        status: the status name, e.g. ``"DMLS_ERROR_OUT_OF_BOUNDS"``.
        rule: the rule ID of docs/spec.md, e.g. ``"R-WIN-BOUNDS"``, or of the
            package's own (``"R-PY-OUT"``, python/README.md).
    """

    def __init__(self, message: str, status: str = "", rule: str = "") -> None:
        if rule and f"({rule})" not in message:  # named as the library's messages name theirs
            message = f"{message} ({rule})"
        super().__init__(message)
        self.message = message
        self.status = status
        self.rule = rule


class ArgumentError(Error, ValueError):
    """Parameters, shapes or buffers the slice does not accept."""


class OutOfBoundsError(ArgumentError, IndexError):
    """An index or window reaching outside the input (NumPy's IndexError)."""


class IndexKeyError(ArgumentError, IndexError):
    """A NumPy key NumPy refuses with IndexError: two ellipses, more axes
    than NumPy allows (its ValueError cases, such as a step of 0, are
    ValueErrors too)."""


class DTypeError(Error, TypeError):
    """A dtype or object the slice cannot take (wrong out= dtype, not an
    array), or arguments a function does not take (Python's TypeError)."""


class IndexTypeError(Error, IndexError, TypeError):
    """An index that is not basic indexing (arrays, lists, booleans, floats)."""


class DeviceError(Error, RuntimeError):
    """The device is absent or failed (no CUDA backend, no GPU, a CUDA error)."""


class OutOfMemoryError(Error, MemoryError):
    """Memory or threads could not be had (the library's, or the array
    library's allocation of the result)."""


class ArrayLibraryError(Error, RuntimeError):
    """The array's own library failed while handing the array over or making
    the result; the original exception is ``__cause__``."""


# The order the extension takes them in (errors.h: ERR_BASE ... ERR_FOREIGN).
BY_ROLE = (Error, ArgumentError, OutOfBoundsError, DTypeError, IndexTypeError, DeviceError,
           OutOfMemoryError, IndexKeyError, ArrayLibraryError)
