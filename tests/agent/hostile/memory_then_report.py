# Tries: fill memory close to the limit and keep it referenced so the report cannot be written.
# Harm: the reply is lost or corrupted.
# ruff: noqa
keep = []
try:
    while True:
        keep.append(bytes(10**7))
except MemoryError:
    pass
print("ESCAPED" * 0, len(keep))
raise ValueError("after the memory fill")
