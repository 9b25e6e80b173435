"""Write the bundled inputs of examples/embedding_wrap.pto and examples/column_argmin.ptoasm:
`python examples/data/make.py`.

wrap_table.npy: 14 rows x 8 f32 (flat), row k filled with k, so each output row shows the table
row it was read from; wrap_ids.npy: 8 i32 ids, in range, past the 7 rows of a5's and cpu's
view of the table, and negative; wrap_out.npy: 8 x 8 f32 zeros (flat). argmin_src.npy: an 8 x 16
f32 tile of scrambled values.
"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def inputs() -> dict[str, np.ndarray]:
    return {
        "wrap_table": np.repeat(np.arange(14, dtype=np.float32), 8),
        "wrap_ids": np.array([0, 6, 7, 10, 13, -1, -2, -7], dtype=np.int32),
        "wrap_out": np.zeros(64, np.float32),
        "argmin_src": ((np.arange(128) * 37) % 101).astype(np.float32).reshape(8, 16),
    }


if __name__ == "__main__":
    for name, array in inputs().items():
        np.save(HERE / f"{name}.npy", array)
