"""Small kernels several test files share, as text."""

from __future__ import annotations

from pathlib import Path


def kernel_file(folder: Path, text: str, name: str = "kernel.pto") -> str:
    """`text` written to `folder / name`: the path a test runs."""
    path = folder / name
    path.write_text(text)
    return str(path)


def index_constants(*values: int) -> str:
    """`%cN = arith.constant N : index` for each N, one line each (no newline after the last): the
    indices a kernel's views, tiles and loops use."""
    return "\n".join(f"  %c{v} = arith.constant {v} : index" for v in values)


def copy_block(src: str, dst: str, rows_at: tuple[str, str], block: tuple[int, int], indent: str = "    ") -> str:
    """Lines (each `indent`ed, no newline after the last) copying a rows x cols f32 block from row
    rows_at[0] of the tensor view %<src>v to row rows_at[1] of %<dst>v through the tile %t: the
    partitions %<src>p and %<dst>p (sized by the kernel's %cN), a tload and a tstore."""
    rows, cols = block
    view, part, tile = "!pto.tensor_view<?x?xf32>", f"!pto.partition_tensor_view<{rows}x{cols}xf32>", f"!pto.tile_buf<vec, {rows}x{cols}xf32>"
    lines = [
        f"%{src}p = pto.partition_view %{src}v, offsets = [{rows_at[0]}, %c0], sizes = [%c{rows}, %c{cols}] : {view}",
        f"%{dst}p = pto.partition_view %{dst}v, offsets = [{rows_at[1]}, %c0], sizes = [%c{rows}, %c{cols}] : {view}",
        f"pto.tload ins(%{src}p : {part}) outs(%t : {tile})",
        f"pto.tstore ins(%t : {tile}) outs(%{dst}p : {part})",
    ]
    return "\n".join(indent + line for line in lines)


def copy_kernel(
    element: str = "f32", cols: int = 8, name: str = "copy", src: str = "src", dst: str = "dst", trips: int | None = None
) -> str:
    """`@name(%src, %dst)`: tload a 1 x cols tile from %src, tstore it to %dst (in an scf.for
    of `trips` iterations, if given)."""
    s, d = src[0], dst[0]
    loop_constant = index_constants(trips) + "\n" if trips is not None else ""
    loop, indent, end = (f"  scf.for %i = %c0 to %c{trips} step %c1 {{\n", "  ", "  }\n") if trips is not None else ("", "", "")
    view = f"!pto.tensor_view<?x?x{element}>"
    part = f"!pto.partition_tensor_view<1x{cols}x{element}>"
    tile = f"!pto.tile_buf<vec, 1x{cols}x{element}>"
    return f"""\
func.func @{name}(%{src}: !pto.ptr<{element}>, %{dst}: !pto.ptr<{element}>) {{
{index_constants(0, 1, cols)}
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


def nested_loops(depth: int, trips: int = 1, ops_per_level: int = 0) -> str:
    """`@nest(%x, %y)`: tload a 1 x 16 f32 tile from %x; `depth` scf.for loops of `trips`
    iterations each, one inside the other; at each level `ops_per_level` pairs of instructions
    (t = (t + t) * t through a second tile), and innermost one `t = t + t`; tstore t to %y.
    With one trip and no ops per level, %y is %x doubled."""
    tile = "!pto.tile_buf<vec, 1x16xf32>"
    part = "!pto.partition_tensor_view<1x16xf32>"
    view = "!pto.tensor_view<1x16xf32>"
    lines = [
        "func.func @nest(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %trips = arith.constant {trips} : index",
        "  %c16 = arith.constant 16 : index",
        f"  %xv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : {view}",
        f"  %yv = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : {view}",
        f"  %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : {view}",
        f"  %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c16] : {view}",
        f"  %t = pto.alloc_tile : {tile}",
        f"  %u = pto.alloc_tile : {tile}",
        "  pto.section.vector {",
        f"    pto.tload ins(%xp : {part}) outs(%t : {tile})",
    ]
    indent = "    "
    for level in range(depth):
        lines.append(f"{indent}scf.for %i{level} = %c0 to %trips step %c1 {{")
        indent += "  "
        for _ in range(ops_per_level):
            lines.append(f"{indent}pto.tadd ins(%t, %t : {tile}, {tile}) outs(%u : {tile})")
            lines.append(f"{indent}pto.tmul ins(%u, %t : {tile}, {tile}) outs(%t : {tile})")
    lines.append(f"{indent}pto.tadd ins(%t, %t : {tile}, {tile}) outs(%t : {tile})")
    for _ in range(depth):
        indent = indent[:-2]
        lines.append(f"{indent}}}")
    lines += [f"    pto.tstore ins(%t : {tile}) outs(%yp : {part})", "  }", "  return", "}"]
    return "\n".join(lines) + "\n"
