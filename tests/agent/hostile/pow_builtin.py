# Tries: pow(7, 10**9) through the builtin.
# Harm: the run never ends.
print(pow(7, 10**9) % 10)
