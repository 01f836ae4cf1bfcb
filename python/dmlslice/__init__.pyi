"""Type hints for dmlslice (the functions live in the C extension)."""
from typing import Any, Literal, Protocol, Sequence, SupportsIndex, TypeVar, Union, overload

from ._errors import (ArgumentError as ArgumentError, ArrayLibraryError as ArrayLibraryError,
                      DeviceError as DeviceError, DTypeError as DTypeError, Error as Error,
                      IndexKeyError as IndexKeyError, IndexTypeError as IndexTypeError,
                      OutOfBoundsError as OutOfBoundsError, OutOfMemoryError as OutOfMemoryError)

__version__: str
library_version: str
cuda_built: bool


class _DLPackArray(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...


# Anything with __dlpack__ or the buffer protocol. The result has the input's
# kind: NumPy for buffer exporters, else the producer's own array type.
A = TypeVar("A")
Ints = Sequence[SupportsIndex]
IndexItem = Union[SupportsIndex, bool, slice, "ellipsis", None]
Key = Union[str, IndexItem, tuple[IndexItem, ...]]
FeatureLevel = Union[str, int, None]
Kind = Literal["index", "slice", "slice1", "slice_grad", "onnx_slice", "webnn_slice", "webnn_reverse"]


def index(x: A, key: Key, *, out: A | None = None) -> A: ...
def slice(x: A, offsets: Ints, sizes: Ints, strides: Ints, *, out: A | None = None,
          feature_level: FeatureLevel = None) -> A: ...
def slice1(x: A, offsets: Ints, sizes: Ints, strides: Ints, *, out: A | None = None,
           feature_level: FeatureLevel = None) -> A: ...
def slice_grad(grad: A, input_shape: Ints, offsets: Ints, sizes: Ints, strides: Ints, *,
               out: A | None = None, feature_level: FeatureLevel = None) -> A: ...
def onnx_slice(x: A, starts: Ints, ends: Ints, axes: Ints | None = None, steps: Ints | None = None, *,
               out: A | None = None) -> A: ...
def webnn_slice(x: A, starts: Ints, sizes: Ints, strides: Ints | None = None, *,
                out: A | None = None) -> A: ...
def webnn_reverse(x: A, axes: Ints | None = None, *, out: A | None = None) -> A: ...


class Operator:
    """A slice planned once for one input shape and dtype; thread-safe."""
    @property
    def input_shape(self) -> tuple[int, ...]: ...
    @property
    def output_shape(self) -> tuple[int, ...]: ...
    @property
    def window_shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> Any: ...
    @property
    def kind(self) -> Kind: ...
    def __call__(self, x: A, *, out: A | None = None) -> A: ...


def plan(kind: Kind, shape: Ints, dtype: Any, *params: Any, feature_level: FeatureLevel = None) -> Operator: ...


def check_dml(operator: Literal["SLICE", "SLICE1", "SLICE_GRAD"], input_sizes: Ints, output_sizes: Ints,
              offsets: Ints, sizes: Ints, strides: Ints, *, dtype: Any = "float32",
              feature_level: FeatureLevel = None, input_strides: Ints | None = None,
              output_strides: Ints | None = None, input_total_bytes: int | None = None,
              output_total_bytes: int | None = None, alignment: int = 0) -> tuple[int, ...]: ...


def set_num_threads(n: int, /) -> None: ...
def get_num_threads() -> int: ...
def cuda_available() -> bool: ...
