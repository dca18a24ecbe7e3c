# Tries: while True: pass.
# Harm: the run never ends.
while True:
    pass
