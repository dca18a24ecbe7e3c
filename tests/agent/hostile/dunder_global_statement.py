# Tries: declare and use a dunder global (__builtins__) to swap the builtins.
# Harm: the real builtins become reachable.
# ruff: noqa
def f():
    global __builtins__
    __builtins__ = None

f()
print("ESCAPED")
