#!/usr/bin/env bash
# The main job on a bundled kernel: parse, verify and print it for each target, then run it
# with pto-run on each target (table rows gathered for 32 ids, some past the table's end).
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
fi
