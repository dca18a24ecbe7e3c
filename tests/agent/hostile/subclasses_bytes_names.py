# Tries: attribute names decoded from bytes.
# Harm: the object base class becomes reachable.
# ruff: noqa
name = bytes([95, 95, 99, 108, 97, 115, 115, 95, 95]).decode()
print("ESCAPED", hasattr(1, name), getattr(1, name))
