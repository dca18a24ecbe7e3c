# Tries: reach os through the globals of an injected API function.
# Harm: a file appears in the canary directory.
# ruff: noqa
scene.__globals__["os"].system("touch CANARY_DIR/pwned")
