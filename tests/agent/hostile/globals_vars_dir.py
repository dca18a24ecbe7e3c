# Tries: globals() / vars() / dir() / locals() to list and reach hidden names.
# Harm: host names become reachable.
# ruff: noqa
print("ESCAPED", globals(), vars(), dir(), locals())
