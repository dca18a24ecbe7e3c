# Tries: read the closure cells of an injected API function to reach host objects.
# Harm: host objects held by the API closure become reachable.
# ruff: noqa
for cell in query_attribute.__closure__:
    print("ESCAPED", cell.cell_contents)
