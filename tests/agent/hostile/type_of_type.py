# Tries: type(type(1)) to recover the real metaclass and build a class with it.
# Harm: a class with hostile dunder methods is created.
# ruff: noqa
u = "_" * 2
meta = type(type(1))
T = meta("T", (), {u + "str" + u: lambda self: "x"})
print("ESCAPED", T)
