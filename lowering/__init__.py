"""
Lowering machinery shared by every target: the vocabulary of the target
dialects (`ops.py`: lowered-op bases and the typed choice attributes) and the
table-driven rewrite patterns of `pto-lower` (`convert.py`). What each target
chooses lives in its folder under targets/.
"""
