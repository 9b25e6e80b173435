"""Registers the hypothesis profiles (tests/budgets.py) before any test module is collected."""

import tests.budgets  # noqa: F401
