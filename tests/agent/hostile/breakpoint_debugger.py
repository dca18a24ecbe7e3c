# Tries: breakpoint() to open a debugger on the host's stdin.
# Harm: an interactive debugger starts.
# ruff: noqa
breakpoint()
print("ESCAPED")
