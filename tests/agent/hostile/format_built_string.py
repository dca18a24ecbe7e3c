# Tries: str.format with a field built at run time so no '__' constant appears.
# Harm: the object base class becomes reachable.
# ruff: noqa
u = "_" * 2
fmt = "{0." + u + "class" + u + "}"
print("ESCAPED", fmt.format(1))
