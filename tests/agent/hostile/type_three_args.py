# Tries: type(name, bases, dict) to build a class with hostile dunder methods.
# Harm: a class with a custom __getattribute__ or __del__ is created.
# ruff: noqa
u = "_" * 2
T = type("T", (), {u + "del" + u: lambda self: print("ESCAPED")})
print("ESCAPED", T)
