# Tries: 10**10**10, a CPU-bound big-integer computation in C.
# Harm: the run never ends.
# ruff: noqa
x = 10 ** 10 ** 10
print(x > 0)
