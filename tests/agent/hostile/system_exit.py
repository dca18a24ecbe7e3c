# Tries: raise SystemExit / KeyboardInterrupt to end the child without a result.
# Harm: the host gets no result or misreads the run as a success.
# ruff: noqa
try:
    raise SystemExit(0)
finally:
    raise KeyboardInterrupt
