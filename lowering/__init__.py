"""
Lowering machinery shared by every target: the table-driven rewrite pattern of `pto-lower`
(`convert.py`). The lowered ops' bases are in pto_dialect/lowered.py and the typed choice
attributes in pto_dialect/choices.py; what each target chooses lives in its folder under
targets/.
"""
