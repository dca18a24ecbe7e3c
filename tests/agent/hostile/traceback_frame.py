# Tries: e.__traceback__.tb_frame.f_back.f_globals from a caught exception.
# Harm: the sandbox child's module globals become reachable.
# ruff: noqa
try:
    1 / 0
except Exception as e:
    print("ESCAPED", e.__traceback__.tb_frame.f_back.f_globals)
