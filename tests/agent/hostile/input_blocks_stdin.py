# Tries: input() to block forever on stdin.
# Harm: the run hangs.
# ruff: noqa
print("ESCAPED", input())
