# Tries: unbounded recursion to overflow the C stack.
# Harm: the child or host crashes.
# ruff: noqa
def f(n):
    return f(n + 1) + 1

print(f(0))
