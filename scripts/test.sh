#!/usr/bin/env bash
# Every test: pytest (Python API, interpreter, properties, fuzz), lit (FileCheck tests) and the
# static checks (ruff, and basedpyright as configured in pyproject.toml). pytest spreads over every
# core (pytest-xdist); lit and the static checks run beside it, so that they fill the cores
# while the longest property tests finish; their reports follow pytest's. Any failure fails.
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
lit_log="$(mktemp)"
static_log="$(mktemp)"
trap 'rm -f "$lit_log" "$static_log"' EXIT
lit -sv tests/filecheck >"$lit_log" 2>&1 &
lit_pid=$!
{
  ruff_status=0
  ruff check --quiet . || ruff_status=$?
  pyright_status=0
  basedpyright --warnings || pyright_status=$?
  exit $((ruff_status | pyright_status))
} >"$static_log" 2>&1 &
static_pid=$!
status=0
python -m pytest -q -n auto -W error::DeprecationWarning tests || status=$?
lit_status=0
wait "$lit_pid" || lit_status=$?
static_status=0
wait "$static_pid" || static_status=$?
cat "$lit_log"
echo "static checks (ruff, basedpyright):"
cat "$static_log"
if [ "$status" -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi
if [ "$status" -eq 0 ]; then status=$lit_status; fi
if [ "$status" -eq 0 ]; then status=$static_status; fi
exit "$status"
