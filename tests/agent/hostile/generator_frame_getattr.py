# Tries: generator frame walk through getattr with split strings.
# Harm: the sandbox child's module globals become reachable.
# ruff: noqa
g = (x for x in [1])
frame = getattr(g, "gi" + "_frame")
print("ESCAPED", getattr(frame, "f_" + "back"))
