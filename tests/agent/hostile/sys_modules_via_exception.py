# Tries: reach sys.modules through an exception class's module globals.
# Harm: the host's sys.modules becomes reachable.
# ruff: noqa
print("ESCAPED", ValueError.__init__.__globals__)
