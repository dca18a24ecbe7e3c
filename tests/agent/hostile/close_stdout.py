# Tries: close or redirect stdout so the result cannot be written back.
# Harm: the host gets no result or hangs.
# ruff: noqa
print("x", file=scene)
sys.stdout.close()
