# Tries: fork through a subclass walk to posix.fork without any import statement.
# Harm: processes multiply and survive the run.
# ruff: noqa
u = "_" * 2
for c in getattr(getattr(getattr((), u + "class" + u), u + "base" + u), u + "subclasses" + u)():
    print(c)
