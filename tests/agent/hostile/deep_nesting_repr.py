# Tries: a 100000-deep nested list printed, to overflow repr.
# Harm: the child or host crashes.
# ruff: noqa
x = []
for _ in range(100000):
    x = [x]
print(x)
