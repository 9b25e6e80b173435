"""
The vector unit's sizes the NPU kernels are written in (pto-isa's common/constants.hpp and
the a5 register width): what one repeat, block or register holds, and how many repeats a
run of elements takes. Every instruction's interpreter kernel and cost read them from here.
"""

from __future__ import annotations


REPEAT_BYTES = 256
"""One vector repeat (REPEAT_BYTE) or register (CCE_VL) of pto-isa."""


BLOCK_BYTES = 32
"""One UB block (BLOCK_BYTE_SIZE)."""


def vector_repeats(count: int, elem_bytes: int) -> int:
    """The repeats (a5: registers) `count` elements of `elem_bytes` take: ceil(count / (REPEAT_BYTES / elem_bytes))."""
    return -(-count // (REPEAT_BYTES // elem_bytes))


REPEAT_MAX = 255
"""The most repeats one a2a3 vector intrinsic takes (pto-isa common/constants.hpp)."""
