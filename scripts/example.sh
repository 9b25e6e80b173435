#!/usr/bin/env bash
# The main job on a bundled kernel: parse, verify for each target, print.
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
kernel="${1:-examples/embedding_lookup.pto}"
for target in cpu a2a3 a5; do
  echo "== pto-opt $kernel --target $target"
  pto-opt "$kernel" --target "$target"
done
