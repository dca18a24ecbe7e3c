# Tries: call __import__ directly to get os.
# Harm: a file appears in the canary directory.
# ruff: noqa
__import__("os").system("touch CANARY_DIR/pwned")
