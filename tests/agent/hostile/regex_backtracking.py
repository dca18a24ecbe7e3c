# Tries: catastrophic regex backtracking.
# Harm: the run never ends.
# ruff: noqa
import re
print(re.match("(a+)+$", "a" * 40 + "b"))
