# Tries: fetch str.format with getattr to dodge the attribute rule.
# Harm: the object base class becomes reachable.
# ruff: noqa
u = "_" * 2
fmt = "{0." + u + "class" + u + "}"
print("ESCAPED", getattr(fmt, "for" + "mat")(1))
