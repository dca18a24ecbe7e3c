# Tries: while True: pass.
# Harm: the run never ends.
# ruff: noqa
while True:
    pass
