# Tries: a codec lookup that imports a module lazily (rot13) at run time.
# Harm: a module not loaded before the lockdown is imported.
# ruff: noqa
print("abc".encode("rot13"))
