# Tries: use importlib, reached through the builtins, to load os.
# Harm: a file appears in the canary directory.
# ruff: noqa
importlib.import_module("os").system("touch CANARY_DIR/pwned")
