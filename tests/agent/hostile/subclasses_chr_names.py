# Tries: attribute names built from chr() codes, avoiding '_' in the source.
# Harm: the object base class and its subclasses become reachable.
# ruff: noqa
name = chr(95) * 2 + "class" + chr(95) * 2
print("ESCAPED", getattr(1, name))
