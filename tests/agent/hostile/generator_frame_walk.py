# Tries: gi_frame.f_back.f_globals of a running generator to reach the host's globals.
# Harm: the sandbox child's module globals (os, sys) become reachable.
# ruff: noqa
def gen():
    yield 1

g = gen()
print("ESCAPED", g.gi_frame.f_back.f_globals)
