"""Command-line tools: `pto-opt` (parse, verify, transform, print) and `pto-run` (execute)."""
