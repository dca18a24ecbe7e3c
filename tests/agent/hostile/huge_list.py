# Tries: [0] * 10**10.
# Harm: the machine runs out of memory.
# ruff: noqa
print(len([0] * 10**10))
