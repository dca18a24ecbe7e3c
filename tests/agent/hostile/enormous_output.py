# Tries: print forever.
# Harm: the host's memory fills with output.
# ruff: noqa
while True:
    print("x" * 1000)
