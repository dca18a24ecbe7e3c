# Tries: fullwidth underscores that NFKC-normalise to __class__.
# Harm: the object base class becomes reachable.
print("ESCAPED", ().＿＿class＿＿)
