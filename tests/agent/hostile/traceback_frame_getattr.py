# Tries: the traceback walk through getattr with built names.
# Harm: the sandbox child's module globals become reachable.
# ruff: noqa
u = "_" * 2
try:
    1 / 0
except Exception as e:
    tb = getattr(e, u + "traceback" + u)
    print("ESCAPED", getattr(tb, "tb" + "_frame"))
