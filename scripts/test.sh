#!/usr/bin/env bash
# Every test: pytest (Python API, interpreter, properties, fuzz) and lit (FileCheck tests).
# Both spread over every core (pytest-xdist, lit's workers) and run at the same time, so that
# lit fills the cores while the longest property tests finish; lit's report follows pytest's.
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
lit_log="$(mktemp)"
trap 'rm -f "$lit_log"' EXIT
lit -sv tests/filecheck >"$lit_log" 2>&1 &
lit_pid=$!
status=0
python -m pytest -q -n auto -W error::DeprecationWarning tests || status=$?
lit_status=0
wait "$lit_pid" || lit_status=$?
cat "$lit_log"
if [ "$status" -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi
if [ "$status" -eq 0 ]; then status=$lit_status; fi
exit "$status"
