# Tries: type(x).mro() to reach object without any underscore.
# Harm: the object base class becomes reachable.
# ruff: noqa
print("ESCAPED", type(1).mro())
