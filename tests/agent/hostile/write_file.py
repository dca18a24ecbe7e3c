# Tries: create a file with open(..., 'w').
# Harm: a file appears in the canary directory.
with open("CANARY_DIR/pwned", "w") as f:
    f.write("ESCAPED")
