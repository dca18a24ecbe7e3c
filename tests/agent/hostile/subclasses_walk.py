# Tries: the classic ().__class__.__bases__[0].__subclasses__() walk to os._wrap_close.
# Harm: a file appears in the canary directory.
# ruff: noqa
for cls in ().__class__.__bases__[0].__subclasses__():
    if cls.__name__ == "_wrap_close":
        cls.__init__.__globals__["system"]("touch CANARY_DIR/pwned")
        print("ESCAPED")
