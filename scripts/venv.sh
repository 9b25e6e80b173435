# Sourced by the other scripts: make sure .venv exists, runs a supported Python and holds this project.
#
# The Python: $PYTHON if set, else the first supported one of python3, python3.13, python3.12,
# python3.11 (an existing working .venv on a supported Python is kept when $PYTHON is unset).
# The supported versions are pyproject.toml's "Programming Language :: Python :: 3.N" classifiers;
# any other version stops here, before anything is installed.
# .venv is rebuilt when it was made by another Python than the one asked for, or no longer runs;
# the project is re-installed when pyproject.toml is newer than the last complete install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
STAMP="$VENV/.pto-installed"
SUPPORTED="$(sed -n 's/^ *"Programming Language :: Python :: \(3\.[0-9][0-9]*\)",$/\1/p' "$ROOT/pyproject.toml" | tr '\n' ' ')"
WANTED="Python $(echo $SUPPORTED | sed 's/ \([^ ]*\)$/ or \1/; s/ /, /g; s/, or,/ or/')"

python_version() {  # "3.12.1" for a Python that runs, nothing otherwise
  "$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || true
}
is_supported() {  # is_supported 3.12.1
  case " $SUPPORTED " in *" ${1%.*} "*) return 0 ;; *) return 1 ;; esac
}

venv_version="$(python_version "$VENV/bin/python")"
if [ -n "${PYTHON:-}" ]; then
  python="$PYTHON"
  version="$(python_version "$python")"
  if [ -z "$version" ]; then
    echo "error: PYTHON=$PYTHON does not run a Python interpreter (pto-frontend needs $WANTED)" >&2
    exit 1
  fi
  if ! is_supported "$version"; then
    echo "error: PYTHON=$PYTHON is Python $version; pto-frontend needs $WANTED" >&2
    exit 1
  fi
elif [ -n "$venv_version" ] && is_supported "$venv_version"; then
  python="$VENV/bin/python"
  version="$venv_version"
else
  python=""
  tried=""
  for candidate in python3 python3.13 python3.12 python3.11; do
    candidate_version="$(python_version "$candidate")"
    [ -n "$candidate_version" ] && tried="$tried, $candidate is $candidate_version"
    if [ -n "$candidate_version" ] && is_supported "$candidate_version"; then
      python="$candidate"
      version="$candidate_version"
      break
    fi
  done
  if [ -z "$python" ]; then
    echo "error: pto-frontend needs $WANTED (found: ${tried#, }${tried:+; }none supported);" \
      "install one, or name it: PYTHON=/path/to/python3.12 bash $0" >&2
    exit 1
  fi
fi

if [ "$venv_version" != "$version" ]; then
  if [ -e "$VENV" ]; then
    if [ -n "$venv_version" ]; then
      echo "note: rebuilding .venv (made by Python $venv_version) with Python $version" >&2
    else
      echo "note: rebuilding .venv (it does not run) with Python $version" >&2
    fi
    rm -rf "$VENV"
  fi
  "$python" -m venv "$VENV"
fi
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e "$ROOT[test]"
  # The project's bytecode, as a non-editable install writes it: with PYTHONDONTWRITEBYTECODE set,
  # each pto-opt or pto-run start would otherwise compile every module of the project from source.
  packages="$(sed -n '/^\[tool.setuptools.packages.find\]/,/^include/s/^include = \[\(.*\)\]$/\1/p' "$ROOT/pyproject.toml" | tr -d '"*,')"
  (cd "$ROOT" && "$VENV/bin/python" -m compileall -q $packages >/dev/null)
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
