# Tries: an infinite loop that catches every exception so a timeout cannot stop it.
# Harm: the run never ends.
# ruff: noqa
while True:
    try:
        while True:
            pass
    except Exception:
        pass
