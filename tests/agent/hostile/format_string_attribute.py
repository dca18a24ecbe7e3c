# Tries: str.format field access '{0.__class__}' to reach dunders.
# Harm: the object base class becomes reachable.
# ruff: noqa
print("ESCAPED", "{0.__class__.__base__}".format(1))
