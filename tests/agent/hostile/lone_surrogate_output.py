# Tries: print a lone surrogate so the host cannot encode the output.
# Harm: the host crashes encoding the result.
# Expect: may-succeed
# ruff: noqa
print("bad \ud800 text")
