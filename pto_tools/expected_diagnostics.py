"""
`--verify-diagnostics` on an input with MLIR's `expected-error` / `expected-warning` /
`expected-note` annotations: each diagnostic must be announced, each announcement
met, as `mlir-opt -verify-diagnostics` checks them.

    // expected-error {{message}}        on this line
    // expected-error @+1 {{message}}    N lines below (@-N: above)
    // expected-error @below {{message}} on the next line without an annotation
    // expected-error @above {{message}} on the last line without an annotation

The message is a substring of the diagnostic's. Without any annotation in the input,
`--verify-diagnostics` keeps xDSL's behaviour (diagnostics printed for FileCheck).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ANNOTATION = re.compile(r"expected-(error|warning|note)\s*(?:@([+-]\d+|above|below))?\s*\{\{(.*?)\}\}")
_DIAGNOSTIC = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|note): (.*)$")


@dataclass
class Expected:
    severity: str
    message: str
    line: int | None  # None: an @above with no line above it, or an @below with none below
    annotation: tuple[int, int]  # where the annotation is written (line, column)
    met: bool = False


def has_annotations(text: str) -> bool:
    return ANNOTATION.search(text) is not None


def expectations(text: str, first_line: int) -> list[Expected]:
    """The annotations of a chunk whose first line is `first_line` of the file."""
    found: list[Expected] = []
    last_plain: int | None = None
    below: list[Expected] = []
    for number, line in enumerate(text.splitlines(), first_line):
        matches = list(ANNOTATION.finditer(line))
        if not matches:
            for e in below:
                e.line = number
            below.clear()
            last_plain = number
            continue
        for m in matches:
            severity, where, message = m.groups()
            e = Expected(severity, message, number, (number, m.start() + 1))
            if where == "above":
                e.line = last_plain
            elif where == "below":
                e.line = None
                below.append(e)
            elif where is not None:
                e.line = number + int(where)
            found.append(e)
    return found


def check(name: str, expected: list[Expected], diagnostics: list[str]) -> list[str]:
    """One `FILE:LINE:COL: error: ...` line per unannounced diagnostic and per unmet annotation."""
    problems = []
    for text in diagnostics:
        first = text.splitlines()[0] if text else ""
        m = _DIAGNOSTIC.match(first)
        if m is None:
            problems.append(f"unexpected diagnostic (no line to match it to): {first}")
            continue
        file, line, col, severity, message = m.groups()
        match = next(
            (
                e
                for e in expected
                if not e.met and e.severity == severity and e.line == int(line) and e.message in message
            ),
            None,
        )
        if match is None:
            problems.append(f"{file}:{line}:{col}: error: unexpected {severity}: {message}")
        else:
            match.met = True
    for e in expected:
        if not e.met:
            where = f"{name}:{e.annotation[0]}:{e.annotation[1]}"
            if e.line is None:
                problems.append(f"{where}: error: expected-{e.severity} has no line to point at")
            else:
                problems.append(f'{where}: error: expected {e.severity} "{e.message}" was not produced')
    return problems
