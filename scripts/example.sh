#!/usr/bin/env bash
# The main job on the bundled kernels: parse, verify and print one for each target, run it with
# pto-run on each target (table rows gathered for 32 ids, some past the table's end), run the same
# kind of kernel written in Python (examples/python/embedding.py), then run a kernel whose results
# differ between targets on all of them at once (ids wrapping around a small table): pto-run
# --targets all reports where the targets differ and why; last, a routed MoE combine on random
# inputs, on every target.
# Usage: bash scripts/example.sh [KERNEL.pto]   (PYTHON=python3.12 picks the Python; see venv.sh)
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
kernel="${1:-examples/embedding_lookup.pto}"
for target in cpu a2a3 a5; do
  echo "== pto-opt $kernel --target $target"
  pto-opt "$kernel" --target "$target"
done
if [ "$kernel" = examples/embedding_lookup.pto ]; then
  inputs="$(mktemp -d)"
  trap 'rm -rf "$inputs"' EXIT
  python - "$inputs" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
np.save(f"{d}/table.npy", (np.arange(1024 * 64) % 251).astype(np.float16))
np.save(f"{d}/ids.npy", np.array([0, 5, 1023, 2000, -1, 7, 8, 9] * 4, dtype=np.int32))
np.save(f"{d}/out.npy", np.zeros(32 * 64, np.float16))
PY
  for target in cpu a2a3 a5; do
    echo "== pto-run $kernel --target $target table.npy ids.npy out.npy"
    pto-run "$kernel" --target "$target" "$inputs/table.npy" "$inputs/ids.npy" "$inputs/out.npy"
  done
  echo
  echo "== python examples/python/embedding.py   (an embedding lookup written in Python with pto_frontend)"
  python examples/python/embedding.py || exit 1
  echo
  echo "Where targets differ: examples/embedding_wrap.pto wraps ids around a 14-row table seen as"
  echo "2 x 7 x 8 (row k of the table holds k); ids: $(python -c 'import numpy as np; print(np.load("examples/data/wrap_ids.npy"))')"
  echo "== pto-run examples/embedding_wrap.pto --targets all wrap_table.npy wrap_ids.npy wrap_out.npy"
  status=0
  pto-run examples/embedding_wrap.pto --targets all \
    examples/data/wrap_table.npy examples/data/wrap_ids.npy examples/data/wrap_out.npy || status=$?
  echo "(pto-run exited $status: 0 when every target agrees, 1 when they differ)"
  echo
  echo "A kernel as users write them (examples/routed_combine.pto: MoE outputs weighted and added into"
  echo "their tokens' rows by MSCATTER's atomic add), on inputs drawn from its signature:"
  echo "== pto-run examples/routed_combine.pto --targets all --inputs random:5"
  pto-run examples/routed_combine.pto --targets all --inputs random:5 || exit 1
fi
