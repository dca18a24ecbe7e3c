# Tries: the same through getattr with built names.
# Harm: a file appears in the canary directory.
# ruff: noqa
u = "_" * 2
g = getattr(scene, u + "globals" + u)
g["os"].system("touch CANARY_DIR/pwned")
print("ESCAPED")
