# Tries: a list that grows by a megabyte per step forever.
# Harm: the machine runs out of memory.
# ruff: noqa
a = []
while True:
    a.append("x" * 10**6)
