#!/usr/bin/env bash
# Every test: pytest (Python API, interpreter, properties, fuzz) and lit (FileCheck tests).
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
status=0
python -m pytest -q -W error::DeprecationWarning tests || status=$?
if [ "$status" -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi
lit -sv tests/filecheck || status=$?
exit "$status"
