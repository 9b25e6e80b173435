"""Small kernels several test files share, as text."""

from __future__ import annotations


def copy_kernel(
    element: str = "f32", cols: int = 8, name: str = "copy", src: str = "src", dst: str = "dst", trips: int | None = None
) -> str:
    """`@name(%src, %dst)`: tload a 1 x cols tile from %src, tstore it to %dst (in an scf.for
    of `trips` iterations, if given)."""
    s, d = src[0], dst[0]
    loop_constant = f"  %c{trips} = arith.constant {trips} : index\n" if trips is not None else ""
    loop, indent, end = (f"  scf.for %i = %c0 to %c{trips} step %c1 {{\n", "  ", "  }\n") if trips is not None else ("", "", "")
    view = f"!pto.tensor_view<?x?x{element}>"
    part = f"!pto.partition_tensor_view<1x{cols}x{element}>"
    tile = f"!pto.tile_buf<vec, 1x{cols}x{element}>"
    return f"""\
func.func @{name}(%{src}: !pto.ptr<{element}>, %{dst}: !pto.ptr<{element}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c{cols} = arith.constant {cols} : index
{loop_constant}  %{s}v = pto.make_tensor_view %{src}, shape = [%c1, %c{cols}], strides = [%c{cols}, %c1] : {view}
  %{d}v = pto.make_tensor_view %{dst}, shape = [%c1, %c{cols}], strides = [%c{cols}, %c1] : {view}
  %{s}p = pto.partition_view %{s}v, offsets = [%c0, %c0], sizes = [%c1, %c{cols}] : {view}
  %{d}p = pto.partition_view %{d}v, offsets = [%c0, %c0], sizes = [%c1, %c{cols}] : {view}
  %t = pto.alloc_tile : {tile}
{loop}{indent}  pto.tload ins(%{s}p : {part}) outs(%t : {tile})
{indent}  pto.tstore ins(%t : {tile}) outs(%{d}p : {part})
{end}  return
}}
"""
