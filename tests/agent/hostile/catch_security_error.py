# Tries: catch the SecurityError of a denied operation and carry on as if it worked.
# Harm: a forbidden operation goes unnoticed and the run reports success.
# ruff: noqa
u = "_" * 2
try:
    getattr(1, u + "class" + u)
except Exception:
    pass
print("carried on")
