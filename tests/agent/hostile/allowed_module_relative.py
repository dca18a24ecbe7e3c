# Tries: a relative import that looks like an allowed module.
# Harm: the host package's modules become reachable.
# ruff: noqa
from .math import sqrt
print("ESCAPED", sqrt)
