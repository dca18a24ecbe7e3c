# Tries: type() of a function to call FunctionType with a forged code object.
# Harm: arbitrary code runs outside the checks.
# ruff: noqa
F = type(lambda: 0)
g = F(None, {})
print("ESCAPED", g)
