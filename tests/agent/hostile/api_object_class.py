# Tries: walk from an API object's class to its module and the host.
# Harm: the host module's globals become reachable.
# ruff: noqa
obj = list(scene())[0]
print("ESCAPED", obj.__class__.__init__.__globals__)
