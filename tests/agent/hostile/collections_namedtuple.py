# Tries: use collections.namedtuple, which runs exec and sys._getframe internally.
# Harm: code compiled from a string runs inside the sandbox.
# ruff: noqa
import collections
P = collections.namedtuple("P", "x y")
print("ESCAPED", P(1, 2))
