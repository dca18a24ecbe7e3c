# Tries: the subclasses walk with getattr and names built at run time.
# Harm: a file appears in the canary directory.
# ruff: noqa
u = "_" * 2
base = getattr(getattr((), u + "class" + u), u + "base" + u)
for cls in getattr(base, u + "subclasses" + u)():
    print("ESCAPED", cls)
