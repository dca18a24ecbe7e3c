# Tries: create a file with open(..., 'w').
# Harm: a file appears in the canary directory.
# ruff: noqa
with open("CANARY_DIR/pwned", "w") as f:
    f.write("ESCAPED")
