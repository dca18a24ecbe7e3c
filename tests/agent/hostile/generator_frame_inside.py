# Tries: walk frames from inside the generator while it runs (gi_frame of itself).
# Harm: the host's frames become reachable.
# ruff: noqa
def gen():
    me = yield
    yield getattr(me, "gi_" + "frame")

g = gen()
next(g)
print("ESCAPED", g.send(g))
