# Tries: dunder access inside an f-string expression.
# Harm: the object base class becomes reachable.
# ruff: noqa
print(f"ESCAPED {(1).__class__.__base__}")
