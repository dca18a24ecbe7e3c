# Tries: type() of an API object, then its methods' globals via getattr.
# Harm: the host module's globals become reachable.
# ruff: noqa
u = "_" * 2
cls = type(list(scene())[0])
print("ESCAPED", getattr(getattr(cls, u + "init" + u), u + "globals" + u))
