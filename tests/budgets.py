"""
Hypothesis budgets. Each property test states how many examples it runs in the `ci` profile,
the one `scripts/test.sh`, CI and a plain `pytest` use; other profiles scale every budget:

    HYPOTHESIS_PROFILE=dev pytest ...        a tenth, for a quick loop while editing
    HYPOTHESIS_PROFILE=thorough pytest ...   ten times as many, for a deeper search now and then

(`pytest --hypothesis-profile NAME` works too.) The scale is the profile's `max_examples`
over hypothesis' default of 100, so a test without a budget of its own follows the profile.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", max_examples=100)
settings.register_profile("dev", max_examples=10)
settings.register_profile("thorough", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def examples(ci_budget: int) -> int:
    """A test's number of examples under the loaded profile, given its `ci` budget."""
    return max(1, round(ci_budget * settings.default.max_examples / 100))
