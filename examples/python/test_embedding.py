"""
A test suite for the kernel of embedding.py, as a kernel author writes one with
pto_frontend.testing: `python -m pytest examples/python`.
"""

import numpy as np
import pytest
from embedding import embed, expected, inputs

import pto_frontend as pto
from pto_frontend.testing import assert_matches, assert_targets_agree


@pytest.mark.parametrize("target", pto.TARGETS)
def test_rows_match_numpy(target):
    table, ids, out = inputs(seed=1)
    assert_matches(embed, table, ids, out, expected={"out": expected(table, ids)}, target=target)


def test_every_target_gathers_the_same_rows():
    assert_targets_agree(embed, *inputs(seed=2))


def test_the_inputs_are_left_alone():
    table, ids, out = inputs(seed=3)
    embed.run(table, ids, out, target="a5")
    assert not out.any()


def test_a_mistyped_table_names_the_argument():
    table, ids, out = inputs()
    with pytest.raises(pto.PtoError, match="argument 'table' .*expected dtype float16, got float32"):
        embed.run(table.astype(np.float32), ids, out)
