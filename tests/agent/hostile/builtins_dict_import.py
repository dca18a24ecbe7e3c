# Tries: index the __builtins__ mapping to reach the real import function.
# Harm: a file appears in the canary directory.
# ruff: noqa
imp = __builtins__["__import__"]
imp("os").system("touch CANARY_DIR/pwned")
