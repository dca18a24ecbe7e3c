# Tries: input() to block forever on stdin.
# Harm: the run hangs.
print("ESCAPED", input())
