# Tries: lambda.__globals__ and __code__ of a function the program defines.
# Harm: the program's code object can be rebuilt into arbitrary code.
# ruff: noqa
f = lambda: 0
print("ESCAPED", f.__globals__, f.__code__)
