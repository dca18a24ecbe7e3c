# Tries: pow(7, 10**9) through the builtin.
# Harm: the run never ends.
# ruff: noqa
print(pow(7, 10**9) % 10)
