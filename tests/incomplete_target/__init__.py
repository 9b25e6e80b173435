"""A target folder that lacks TCOLARGMIN's rule row (tests/test_registry.py)."""
