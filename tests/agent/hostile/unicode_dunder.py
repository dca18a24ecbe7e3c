# Tries: an attribute spelled with a fullwidth letter that NFKC-normalises to __class__.
# Harm: the object base class becomes reachable.
# ruff: noqa
print("ESCAPED", ().__ｃlass__.__ｂase__)
