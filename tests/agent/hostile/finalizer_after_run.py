# Tries: a generator whose finally block runs after the program, while the reply is built.
# Harm: hostile code runs with the lockdown lifted.
# ruff: noqa
def g():
    try:
        yield 1
    finally:
        u = "_" * 2
        print("ESCAPED", getattr(1, u + "class" + u))

x = g()
next(x)
print("body done")
