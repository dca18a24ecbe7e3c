# Tries: read a secret file in the canary directory.
# Harm: the secret token appears in the output.
# ruff: noqa
print(open("CANARY_DIR/secret.txt").read())
