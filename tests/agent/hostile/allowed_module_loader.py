# Tries: reach the loader of an allowed module to load arbitrary code.
# Harm: an arbitrary module is loaded.
# ruff: noqa
import math
print("ESCAPED", math.__loader__)
