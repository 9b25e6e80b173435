"""
Reading a `.npy` array as pto-run's argument, from a regular file or from a pipe, FIFO or
device (`<(python make_input.py)`): the header is read and checked by this module (a bad
one is an error naming the file, never NumPy's warning), the data's size is checked against
it before anything is allocated, and nothing is seeked.

The header's `descr` is NumPy's, except `<f1`: what `np.save` writes for an ml_dtypes
float8_e5m2 array (the one element type NumPy 2 describes as a 1-byte float); it reads back
as float8_e5m2. The other ml_dtypes types are written as raw bytes (`|V1`, `|V2`) and take
their argument's element type when the kernel runs (interpreter.declared_dtype).
"""

from __future__ import annotations

import ast
import math
import os
import stat
import warnings
from typing import IO

import numpy as np

from pto_dialect.diagnostics import PtoError
from pto_dialect.files import open_input

STREAM_BYTES = 1 << 30
"""The most an array read from a pipe, FIFO or device may be (a regular file's size is
known before it is read)."""

HEADER_BYTES = 1 << 20
"""The longest header read (NumPy's own bound is 10,000 bytes unless told otherwise)."""

MAGIC = b"\x93NUMPY"
FLOAT8_E5M2_DESCRS = ("<f1", "|f1", ">f1", "f1")
"""How `np.save` describes an ml_dtypes float8_e5m2 array."""


def read_npy(path: str) -> np.ndarray:
    """The array `path` holds; a PtoError naming `path` for anything that is not one."""
    try:
        found = os.stat(path)
        if stat.S_ISDIR(found.st_mode):
            raise IsADirectoryError
        with open_input(path, found) as f:
            return _read(f, path, found.st_size if stat.S_ISREG(found.st_mode) else None)
    except IsADirectoryError:
        raise PtoError(f"{path}: error: cannot open: Is a directory") from None
    except (FileNotFoundError, PermissionError, NotADirectoryError) as e:
        raise PtoError(f"{path}: error: cannot open: {e.strerror}") from None
    except OSError as e:
        raise PtoError(f"{path}: error: cannot read: {e.strerror or e}") from None


def _read(f: IO[bytes], path: str, size: int | None) -> np.ndarray:
    """The array `f` holds: `size` bytes in all, or a stream (None) read up to the data its
    header declares, and at most STREAM_BYTES of it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # NumPy warns of some headers: each one is refused here
            shape, fortran_order, dtype = _header(f)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, Warning) as e:
        raise PtoError(f"{path}: error: not a .npy array file ({e})") from None
    if dtype.hasobject:
        raise PtoError(f"{path}: error: the array holds Python objects; pto-run reads numeric arrays only")
    needed = math.prod(shape) * dtype.itemsize
    declares = f"{path}: error: the header declares shape {shape} of {dtype} ({needed} bytes)"
    if size is None and needed > STREAM_BYTES:
        raise PtoError(f"{declares}, more than the {STREAM_BYTES >> 30} GiB an array read from a pipe may be")
    if size is not None and needed != size - f.tell():
        raise PtoError(f"{declares} but the file holds {size - f.tell()} bytes of data")
    data = bytearray(needed)
    if (held := f.readinto(data)) != needed:  # pyright: ignore[reportAttributeAccessIssue]
        raise PtoError(f"{declares} but the file holds {held} bytes of data")
    if size is None and f.read(1):
        raise PtoError(f"{declares} but more data follows it")
    array = np.frombuffer(data, dtype)
    return array.reshape(shape[::-1]).T if fortran_order else array.reshape(shape)


def _header(f: IO[bytes]) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, fortran_order, dtype) of the header `f` starts with (format versions 1 to 3)."""
    magic = f.read(len(MAGIC) + 2)
    if len(magic) < len(MAGIC) + 2 or not magic.startswith(MAGIC):
        raise ValueError("it does not start with the .npy magic string")
    version = (magic[-2], magic[-1])
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise ValueError(f"format version {version[0]}.{version[1]}; versions 1.0 to 3.0 are read")
    length_bytes = 2 if version == (1, 0) else 4
    length = int.from_bytes(f.read(length_bytes).ljust(length_bytes, b"\0"), "little")
    if length > HEADER_BYTES:
        raise ValueError(f"a header of {length} bytes; at most {HEADER_BYTES} are read")
    header = f.read(length)
    if len(header) < length:
        raise ValueError("the header is cut short")
    fields = ast.literal_eval(header.decode("utf-8" if version == (3, 0) else "latin-1"))
    if not isinstance(fields, dict) or sorted(fields) != ["descr", "fortran_order", "shape"]:
        raise ValueError("the header is not a dictionary of descr, fortran_order and shape")
    shape, fortran_order, descr = fields["shape"], fields["fortran_order"], fields["descr"]
    if not isinstance(shape, tuple) or not all(type(d) is int and d >= 0 for d in shape):
        raise ValueError(f"the shape {shape!r} is not a tuple of sizes")
    if not isinstance(fortran_order, bool):
        raise ValueError(f"fortran_order {fortran_order!r} is not a bool")
    if descr in FLOAT8_E5M2_DESCRS:
        import ml_dtypes

        return shape, fortran_order, np.dtype(ml_dtypes.float8_e5m2)
    return shape, fortran_order, np.lib.format.descr_to_dtype(descr)
