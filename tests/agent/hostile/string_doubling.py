# Tries: a string doubled until memory runs out.
# Harm: the machine runs out of memory.
# ruff: noqa
s = "x"
while True:
    s = s + s
