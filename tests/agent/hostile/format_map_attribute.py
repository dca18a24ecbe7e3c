# Tries: str.format_map with an attribute field.
# Harm: the globals of an API function become reachable.
# ruff: noqa
u = "_" * 2
print("ESCAPED", ("{f." + u + "globals" + u + "}").format_map({"f": scene}))
