# Tries: memoryview to poke raw memory.
# Harm: memory outside the program is read.
# ruff: noqa
print("ESCAPED", memoryview(bytearray(8)))
