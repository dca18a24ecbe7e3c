# Tries: an endless generator consumed by sum().
# Harm: the run never ends.
# ruff: noqa
print(sum(1 for _ in iter(int, 1)))
