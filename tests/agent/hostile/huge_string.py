# Tries: 'x' * 10**10.
# Harm: the machine runs out of memory.
print(len("x" * 10**10))
