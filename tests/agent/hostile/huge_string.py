# Tries: 'x' * 10**10.
# Harm: the machine runs out of memory.
# ruff: noqa
print(len("x" * 10**10))
