"""targets/rules/divergences.py: the PTOAS inputs listed as divergences name real targets, and
bench/ptoas_lit.py finds them by their path under PTOAS's test/."""

import targets
from targets.rules.divergences import LENIENT, NOT_IMPLEMENTED, STRICTER, documented


def test_each_divergence_names_known_targets_and_files_under_test() -> None:
    names = set(targets.names())
    for d in (*STRICTER, *LENIENT, *NOT_IMPLEMENTED):
        assert set(d.targets) <= names, d.targets
        assert all(f.startswith(("lit/", "samples/")) for f in d.files), d.files


def test_documented_matches_file_and_target() -> None:
    assert documented("lit/pto/texpands_bf16.pto", "a5") is NOT_IMPLEMENTED[0]
    assert documented("lit/pto/texpands_bf16.pto", "cpu") is None
    assert documented("lit/pto/other.pto", "a5") is None
