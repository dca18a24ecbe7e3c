# Tries: globals() / vars() / dir() / locals() to list and reach hidden names.
# Harm: host names become reachable.
print("ESCAPED", globals(), vars(), dir(), locals())
